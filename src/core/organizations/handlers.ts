import type { ServiceHandlers } from '@shared/contract';
import type { Connections } from '../profiles';
import type { Ledger } from '@core/ledger/ledger';
import { createOrganization, listOrganizations } from './organizations-api';
import { organizationsInNewestReport } from './report-organizations';

type OrganizationHandlers = Pick<ServiceHandlers, 'organizations:list' | 'organizations:create' | 'organizations:in-report'>;

/** The Broker's organizations (end customers): list and create, straight against the service; those its newest saved month bills. */
export function createOrganizations(connections: Connections, ledger: () => Promise<Ledger>): { handlers: OrganizationHandlers } {
  return {
    handlers: {
      'organizations:list': ({ profileId }) => connections.withService(profileId, (client) => listOrganizations(client)),
      'organizations:create': ({ profileId, organization }) => connections.withService(profileId, (client) => createOrganization(client, organization)),
      'organizations:in-report': async ({ profileId }) => organizationsInNewestReport(await ledger(), profileId),
    },
  };
}
