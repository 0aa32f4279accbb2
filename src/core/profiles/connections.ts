import type { ConnectionState } from '@shared/contract';
import type { Profile } from '@shared/schemas/profile';
import type { EventHub } from '../runtime/event-hub';
import { isOffline } from '../service-api/http-errors';
import type { Ports } from '../ports/ports';
import { type Connection, ServiceClient } from '../service-api/service-client';
import { AppError } from '@shared/errors';
import type { Profiles } from './profiles';

/**
 * One service client per profile (it holds the profile's token), rebuilt when the profile's connection changes,
 * and the connection state the renderer shows: told after every call the client makes — organizations, report
 * requests and polls, consumption tasks alike.
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
    const client = new ServiceClient(connection, { fetch: this.ports.fetch, clock: this.ports.clock, onOutcome: (error) => this.report(profile.id, error) });
    this.clients.set(profile.id, { key, client });
    return client;
  }

  /** Runs a call against a profile's service (its client reports how it went). */
  async withService<T>(profileId: string, call: (client: ServiceClient) => Promise<T>): Promise<T> {
    return call(await this.clientFor(await this.profiles.get(profileId)));
  }

  /** Drops a profile's client (and its token), e.g. after its credentials changed. */
  forget(profileId: string): void {
    this.clients.delete(profileId);
  }

  clear(): void {
    this.clients.clear();
  }

  private report(profileId: string, error: unknown | null): void {
    const { state, message } = connectionStateOf(error);
    this.events.emit('connection:state', { profileId, state, at: new Date(this.ports.clock.now()).toISOString(), ...(message ? { message } : {}) });
  }
}

function connectionKey(connection: Connection): string {
  const { baseUrl, clientId, username, resellerId, sellerId } = connection;
  return JSON.stringify([baseUrl, clientId, username, resellerId, sellerId]);
}

/**
 * What a call's ending says about the service: it answered (a refusal of bad input is still an answer), it could
 * not be reached, it refused the sign-in, or it answered with a fault of its own (5xx, 429, an unreadable answer,
 * a status or redirect it does not explain).
 */
export function connectionStateOf(error: unknown | null): { state: ConnectionState['state']; message?: string } {
  if (error === null) return { state: 'online' };
  if (isOffline(error)) return { state: 'offline', message: error.message };
  if (error instanceof AppError && error.code === 'auth') return { state: 'auth-failed', message: error.message };
  if (error instanceof AppError && SERVICE_FAULTS.has(error.code)) return { state: 'service-error', message: error.message };
  return { state: 'online' };
}

const SERVICE_FAULTS: ReadonlySet<string> = new Set(['service', 'rate-limited', 'bad-response', 'refused']);
