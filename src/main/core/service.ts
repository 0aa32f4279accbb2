import type { ConnectionState, ServiceHandlers } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import type { Profile } from '../../shared/schemas/profile';
import { createOrganization, listOrganizations } from './organizations/organizations-api';
import { type Connection, ServiceClient } from './platform/service-client';
import { EventHub } from './platform/event-hub';
import type { Ports } from './platform/ports';
import { Profiles } from './profiles/profiles';
import { createConsumption, type ConsumptionModule } from './consumption/handlers';
import { createReports, type ReportsModule } from './reports/handlers';

export interface Service {
  handlers: ServiceHandlers;
  events: EventHub;
  /** Resolves a profile by id, or by name for the CLI. */
  profiles: Profiles;
  clientFor(profile: Profile): Promise<ServiceClient>;
  reports: ReportsModule;
  consumption: ConsumptionModule;
  /** Resumes unfinished workflows (report jobs, consumption tasks) saved by an earlier run. */
  start(): Promise<void>;
  dispose(): Promise<void>;
}

const OFFLINE_CODES = new Set(['network', 'timeout']);

/**
 * The whole app without Electron: one handler per contract channel. Electron's IPC, the browser test bridge and
 * the CLI are thin hosts of this.
 */
export function createService(ports: Ports): Service {
  const events = new EventHub();
  const profiles = new Profiles(ports);
  const clients = new Map<string, { key: string; client: ServiceClient }>();

  async function clientFor(profile: Profile): Promise<ServiceClient> {
    const connection = await profiles.connection(profile);
    const key = connectionKey(connection);
    const cached = clients.get(profile.id);
    if (cached && cached.key === key) return cached.client;
    const client = new ServiceClient(connection, { fetch: ports.fetch, clock: ports.clock });
    clients.set(profile.id, { key, client });
    return client;
  }

  function reportConnection(profileId: string, state: ConnectionState['state'], message?: string) {
    events.emit('connection:state', {
      profileId,
      state,
      at: new Date(ports.clock.now()).toISOString(),
      ...(message ? { message } : {}),
    });
  }

  /** Runs a call against a profile's service and tells the renderer whether the service was reachable. */
  async function withService<T>(profileId: string, call: (client: ServiceClient) => Promise<T>): Promise<T> {
    const profile = await profiles.get(profileId);
    const client = await clientFor(profile);
    try {
      const result = await call(client);
      reportConnection(profileId, 'online');
      return result;
    } catch (error) {
      if (error instanceof AppError && OFFLINE_CODES.has(error.code)) reportConnection(profileId, 'offline', error.message);
      else if (error instanceof AppError && error.code === 'auth') reportConnection(profileId, 'auth-failed', error.message);
      else reportConnection(profileId, 'online');
      throw error;
    }
  }

  async function keychainReachable(): Promise<boolean> {
    try {
      await ports.secrets.get('closebook-keychain-probe');
      return true;
    } catch {
      return false;
    }
  }

  const reports = createReports(ports, events, (profileId) => profiles.get(profileId), clientFor);
  const consumption = createConsumption(ports, events, (profileId) => profiles.get(profileId), clientFor);

  const handlers: ServiceHandlers = {
    ...reports.handlers,
    ...consumption.handlers,
    'app:info': async () => {
      const state = await profiles.state();
      return {
        version: ports.appVersion,
        host: ports.host,
        firstRun: state.profiles.length === 0,
        dataDir: ports.dataDir,
        keychainAvailable: await keychainReachable(),
      };
    },
    'profiles:list': () => profiles.state(),
    'profiles:save': async (input) => {
      const view = await profiles.save(input);
      clients.delete(view.id);
      return view;
    },
    'profiles:delete': async ({ profileId }) => {
      clients.delete(profileId);
      return profiles.delete(profileId);
    },
    'profiles:set-active': ({ profileId }) => profiles.setActive(profileId),
    'profiles:test': ({ profileId }) =>
      withService(profileId, async (client) => {
        const started = ports.clock.now();
        client.signOut(); // a test proves the credentials, so never reuse a held token
        const organizations = await listOrganizations(client);
        return { organizationCount: organizations.length, elapsedMs: ports.clock.now() - started };
      }),
    'demo:start': () => profiles.ensureDemoProfile(),
    'organizations:list': ({ profileId }) => withService(profileId, (client) => listOrganizations(client)),
    'organizations:create': ({ profileId, organization }) =>
      withService(profileId, (client) => createOrganization(client, organization)),
  };

  return {
    handlers,
    events,
    profiles,
    clientFor,
    reports,
    consumption,
    start: async () => {
      await reports.jobs.resumeAll();
      await consumption.tasks.resumeAll();
    },
    dispose: async () => {
      await reports.jobs.stopAll();
      await consumption.tasks.stopAll();
      clients.clear();
    },
  };
}

function connectionKey(connection: Connection): string {
  const { baseUrl, clientId, username, resellerId, sellerId } = connection;
  return JSON.stringify([baseUrl, clientId, username, resellerId, sellerId]);
}

