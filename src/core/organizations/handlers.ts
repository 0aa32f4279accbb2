import type { ServiceHandlers } from '@shared/contract';
import type { Connections } from '../profiles';
import { createOrganization, listOrganizations } from './organizations-api';

type OrganizationHandlers = Pick<ServiceHandlers, 'organizations:list' | 'organizations:create'>;

/** The Broker's organizations (end customers): list and create, straight against the service. */
export function createOrganizations(connections: Connections): { handlers: OrganizationHandlers } {
  return {
    handlers: {
      'organizations:list': ({ profileId }) => connections.withService(profileId, (client) => listOrganizations(client)),
      'organizations:create': ({ profileId, organization }) => connections.withService(profileId, (client) => createOrganization(client, organization)),
    },
  };
}
