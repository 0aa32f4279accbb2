import { z } from 'zod';
import { AppError } from '@shared/errors';
import type { Clock } from '../ports/ports';
import { ANSWER_LIMITS, largerThan, parseAnswer } from './body-reading';
import { cancelled, errorForStatus } from './http-errors';
import type { RetryLoop, RetryNotice } from './retry';

/**
 * Signing in to the service: the token request exactly as spec §5 says, and its renewal before it runs out. The
 * token is kept here, in memory only, and one request for it is shared by every call that needs it.
 */

/** Who signs in: the profile's client and user, their secrets read only when a token is asked for. */
export interface Credentials {
  clientId: string;
  username: string;
  readSecrets: () => Promise<{ apiSecret: string; password: string }>;
}

const TokenResponse = z.object({
  access_token: z.string().min(1),
  expires_in: z.coerce.number().positive().optional(),
});

interface HeldToken {
  value: string;
  /** Epoch ms after which we ask for a new one before use; undefined when the service gave no lifetime. */
  renewAfter?: number;
}

export class SignIn {
  private held: HeldToken | null = null;
  private request: Promise<HeldToken> | null = null;

  constructor(
    private readonly credentials: Credentials,
    private readonly service: { tokenUrl: string; host: string; loop: RetryLoop; clock: Clock },
  ) {}

  /** Forgets the token: the next call asks for a new one. */
  forget(): void {
    this.held = null;
  }

  /** A token still good to send: the one held, or a new one when there is none or it is due for renewal. */
  async token(signal?: AbortSignal, onRetry?: (notice: RetryNotice) => void): Promise<string> {
    const now = this.service.clock.now();
    if (this.held && (this.held.renewAfter === undefined || now < this.held.renewAfter)) return this.held.value;
    if (signal?.aborted) throw cancelled();
    // Concurrent calls share one token request, so no one call's cancel stops it: another report's poll may be
    // waiting on the same token. Each call waits for it until its own cancel.
    if (!this.request) {
      const request = this.requestToken(onRetry)
        .then((held) => (this.held = held))
        .finally(() => {
          this.request = null;
        });
      request.catch(() => undefined); // every waiter may have been cancelled: the failure is theirs, and they are gone
      this.request = request;
    }
    return (await untilCancelled(this.request, signal)).value;
  }

  /** POST {base}/connect/token exactly as spec §5: Basic client credentials plus the password grant. */
  private async requestToken(onRetry?: (notice: RetryNotice) => void): Promise<HeldToken> {
    const { clientId, username } = this.credentials;
    const { apiSecret, password } = await this.credentials.readSecrets();
    const basic = Buffer.from(`${clientId}:${apiSecret}`, 'utf8').toString('base64');
    const form = new URLSearchParams({ client_id: clientId, grant_type: 'password', username, password, scope: 'api' });
    // Asking for a token changes nothing on the service, so it is safe to repeat.
    const { response, text, cut } = await this.service.loop.send(
      this.service.tokenUrl,
      async () => ({
        method: 'POST',
        headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
        body: form.toString(),
      }),
      { retry: 'safe', onRetry, maxBytes: ANSWER_LIMITS.tokenBytes },
    );
    if (response.status === 400 || response.status === 401 || response.status === 403) {
      throw new AppError('auth', `The service refused the credentials for ${username}. Check the client ID, API secret, username and password in the profile.`);
    }
    if (!response.ok) throw errorForStatus(response.status, this.service.host, text);
    if (cut) throw largerThan('a sign-in token', ANSWER_LIMITS.tokenBytes);
    const token = parseAnswer(text, TokenResponse, 'a sign-in token');
    const now = this.service.clock.now();
    // Renew a minute early (or at half-life for short tokens) so a long poll does not start with a dying token.
    const renewAfter = token.expires_in === undefined ? undefined : now + Math.max(token.expires_in * 500, token.expires_in * 1000 - 60_000);
    return renewAfter === undefined ? { value: token.access_token } : { value: token.access_token, renewAfter };
  }
}

/** `work`'s answer, or a cancel as soon as `signal` aborts (the work itself goes on). */
function untilCancelled<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
