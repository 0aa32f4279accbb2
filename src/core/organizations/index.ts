/** The reseller's organizations at the service: listed and created. */
export { createOrganizations } from './handlers';
export { listOrganizations } from './organizations-api';
