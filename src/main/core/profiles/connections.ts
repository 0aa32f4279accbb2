import type { ConnectionState } from '../../../shared/contract';
import type { Profile } from '../../../shared/schemas/profile';
import type { EventHub } from '../platform/event-hub';
import { isOffline } from '../platform/http-errors';
import type { Ports } from '../platform/ports';
import { type Connection, ServiceClient } from '../platform/service-client';
import { AppError } from '../../../shared/errors';
import type { Profiles } from './profiles';

/**
 * One service client per profile (it holds the profile's token), rebuilt when the profile's connection changes,
 * and the connection state the renderer shows, told after every call made through `withService`.
 */
export class Connections {
  private readonly clients = new Map<string, { key: string; client: ServiceClient }>();

  constructor(
    private readonly profiles: Profiles,
    private readonly ports: Ports,
    private readonly events: EventHub,
  ) {}

  async clientFor(profile: Profile): Promise<ServiceClient> {
    const connection = await this.profiles.connection(profile);
    const key = connectionKey(connection);
    const cached = this.clients.get(profile.id);
    if (cached && cached.key === key) return cached.client;
    const client = new ServiceClient(connection, { fetch: this.ports.fetch, clock: this.ports.clock });
    this.clients.set(profile.id, { key, client });
    return client;
  }

  /** Runs a call against a profile's service and tells the renderer whether the service was reachable. */
  async withService<T>(profileId: string, call: (client: ServiceClient) => Promise<T>): Promise<T> {
    const client = await this.clientFor(await this.profiles.get(profileId));
    try {
      const result = await call(client);
      this.report(profileId, 'online');
      return result;
    } catch (error) {
      if (isOffline(error)) this.report(profileId, 'offline', error.message);
      else if (error instanceof AppError && error.code === 'auth') this.report(profileId, 'auth-failed', error.message);
      else this.report(profileId, 'online');
      throw error;
    }
  }

  /** Drops a profile's client (and its token), e.g. after its credentials changed. */
  forget(profileId: string): void {
    this.clients.delete(profileId);
  }

  clear(): void {
    this.clients.clear();
  }

  private report(profileId: string, state: ConnectionState['state'], message?: string): void {
    this.events.emit('connection:state', { profileId, state, at: new Date(this.ports.clock.now()).toISOString(), ...(message ? { message } : {}) });
  }
}

function connectionKey(connection: Connection): string {
  const { baseUrl, clientId, username, resellerId, sellerId } = connection;
  return JSON.stringify([baseUrl, clientId, username, resellerId, sellerId]);
}
