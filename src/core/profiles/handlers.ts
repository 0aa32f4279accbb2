import type { ConnectionTestProgress } from '@shared/connection-test-progress';
import type { ServiceHandlers } from '@shared/contract';
import type { EventHub } from '../runtime/event-hub';
import type { Ports } from '../ports/ports';
import type { RetryNotice } from '../service-api/service-client';
import { listOrganizations } from '../organizations';
import { Connections } from './connections';
import { Profiles } from './profiles';

type ProfileHandlers = Pick<
  ServiceHandlers,
  'app:info' | 'profiles:list' | 'profiles:save' | 'profiles:delete' | 'profiles:set-active' | 'profiles:set-name-order' | 'profiles:test' | 'demo:start'
>;

export interface ProfilesModule {
  handlers: ProfileHandlers;
  profiles: Profiles;
  connections: Connections;
}

/**
 * Connection profiles (secrets in the keychain), their service clients and connection state, and the demo.
 * `namesMayHaveChanged` is told when a profile is saved, deleted or given another name order: its months sort by it.
 */
export function createProfiles(ports: Ports, events: EventHub, namesMayHaveChanged: () => void = () => {}): ProfilesModule {
  const profiles = new Profiles(ports);
  const connections = new Connections(profiles, ports, events);

  async function keychainReachable(): Promise<boolean> {
    try {
      await ports.secrets.get('closebook-keychain-probe');
      return true;
    } catch {
      return false;
    }
  }

  const handlers: ProfileHandlers = {
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
      connections.forget(view.id);
      namesMayHaveChanged();
      return view;
    },
    'profiles:delete': async ({ profileId }) => {
      connections.forget(profileId);
      const state = await profiles.delete(profileId);
      namesMayHaveChanged();
      return state;
    },
    'profiles:set-active': ({ profileId }) => profiles.setActive(profileId),
    'profiles:set-name-order': async ({ profileId, nameOrder }) => {
      const state = await profiles.setNameOrder(profileId, nameOrder);
      namesMayHaveChanged();
      return state;
    },
    'profiles:test': ({ profileId }) =>
      connections.withService(profileId, async (client) => {
        const started = ports.clock.now();
        const startedAt = new Date(started).toISOString();
        const tell = (step: ConnectionTestProgress['step'], retry?: ConnectionTestProgress['retry']) =>
          events.emit('profiles:test-progress', { profileId, step, startedAt, ...(retry ? { retry } : {}) });
        const retriesOf =
          (step: ConnectionTestProgress['step']) =>
          ({ attempt, attempts, delayMs, reason }: RetryNotice) =>
            tell(step, { attempt: attempt + 1, attempts, at: new Date(ports.clock.now() + delayMs).toISOString(), reason });
        client.signOut(); // a test proves the credentials, so never reuse a held token
        tell('signing-in');
        await client.signIn({ onRetry: retriesOf('signing-in') });
        tell('listing');
        const organizations = await listOrganizations(client, undefined, retriesOf('listing'));
        return { organizationCount: organizations.length, elapsedMs: ports.clock.now() - started };
      }),
    'demo:start': () => profiles.ensureDemoProfile(),
  };
  return { handlers, profiles, connections };
}
