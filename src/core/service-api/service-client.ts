import type { z } from 'zod';
import { AppError } from '@shared/errors';
import type { Clock, FetchLike } from '../ports/ports';
import { isLoopbackHost } from '@shared/schemas/profile';
import { ANSWER_LIMITS, type BodyInfo, largerThan, parseAnswer } from './body-reading';
import { errorForStatus, gatewayOutcomeUnknown } from './http-errors';
import { type Answer, RetryLoop, type RetryNotice } from './retry';
import { type Credentials, SignIn } from './sign-in';

// What the rest of the core imports from here: the bounds and the retry notice live beside it, by what they are.
export { ANSWER_LIMITS, jsonDepthOver, type BodyInfo } from './body-reading';
export { parseRetryAfter, type RetryNotice } from './retry';

/** Everything needed to talk to one service as one user. Secrets are read lazily and never kept elsewhere. */
export interface Connection extends Credentials {
  baseUrl: string;
  resellerId: string;
  sellerId: string;
}

export interface ClientOptions {
  fetch: FetchLike;
  clock: Clock;
  /** Per attempt: how long the service may stay silent (before its headers, or between chunks of the body). */
  timeoutMs?: number;
  /** The same for a large download: a service may take minutes to start sending a month's report. */
  downloadTimeoutMs?: number;
  /** Attempts for a request that is safe to repeat. */
  maxAttempts?: number;
  backoffBaseMs?: number;
  maxBackoffMs?: number;
  /**
   * Told after every call — a success or the error it ended with — and after every failed attempt that is retried,
   * so the app can show whether the service answers while a call is still retrying.
   */
  onOutcome?: (error: unknown | null) => void;
}

export interface RequestSpec<T> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** A path under the base URL, or an absolute URL that must be on the base URL's origin. */
  target: string;
  body?: unknown;
  /** Schema of the JSON body; null when the body is expected empty or is ignored. */
  schema: z.ZodType<T> | null;
  /** 'safe' requests are repeated after network errors, 5xx and 429; 'unsafe' ones only when they surely never arrived. */
  retry: 'safe' | 'unsafe';
  signal?: AbortSignal;
  onRetry?: (notice: RetryNotice) => void;
  /** Names the call in messages about unreadable responses, e.g. "the organization list". */
  what: string;
}

export interface DownloadSpec<T> {
  target: string;
  what: string;
  /** Takes the body as it arrives (retried from the start when it fails half-way). */
  into: (body: AsyncIterable<Uint8Array>, info: BodyInfo) => Promise<T>;
  signal?: AbortSignal;
  onRetry?: (notice: RetryNotice) => void;
  /** The least wait before the address is asked again after a failure (a report's: the service's poll interval). */
  spacedMs?: number;
}

export interface ServiceResponse<T> {
  status: number;
  headers: Headers;
  data: T;
  /** The body as read, for an answer whose form is "not shown" (`schema: null`): its reader decides what it holds. */
  text: string;
}

/**
 * The HTTP client for one profile: gets a token exactly as spec §5 says (sign-in.ts), keeps it in memory only,
 * sends it only to the profile's own origin, retries what is safe to retry (retry.ts), reads every answer within
 * its bounds and parses it with zod (body-reading.ts).
 */
export class ServiceClient {
  private readonly origin: string;
  private readonly host: string;
  private readonly loop: RetryLoop;
  private readonly auth: SignIn;

  constructor(
    readonly connection: Connection,
    private readonly options: ClientOptions,
  ) {
    const url = new URL(connection.baseUrl);
    this.origin = url.origin;
    this.host = url.host;
    this.loop = new RetryLoop({
      fetch: options.fetch,
      clock: options.clock,
      host: this.host,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxAttempts: options.maxAttempts ?? 4,
      backoffBaseMs: options.backoffBaseMs ?? 1_000,
      maxBackoffMs: options.maxBackoffMs ?? 60_000,
      onOutcome: options.onOutcome,
    });
    this.auth = new SignIn(connection, { tokenUrl: this.resolve('/connect/token'), host: this.host, loop: this.loop, clock: options.clock });
  }

  /** True when the service runs on this machine (the twin), where tests and demo may poll faster. */
  get isLoopback(): boolean {
    return isLoopbackHost(new URL(this.origin).hostname);
  }

  /** Resolves a path or absolute URL; refuses any URL that would carry the token to another origin. */
  resolve(target: string): string {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
      let url: URL;
      try {
        url = new URL(target);
      } catch {
        throw new AppError('bad-response', `The service pointed Closebook at an address it cannot read: ${target}`);
      }
      if (url.origin !== this.origin) {
        throw new AppError(
          'forbidden-origin',
          `The service pointed Closebook at ${url.origin}, which is not the profile's service (${this.origin}). ` +
            "Closebook did not follow it, so your sign-in was not sent there. Check the profile's base URL.",
        );
      }
      return url.toString();
    }
    return `${this.connection.baseUrl}${target.startsWith('/') ? '' : '/'}${target}`;
  }

  /**
   * A `location` header from the service: absolute (as the spec promises) or relative by HTTP's rules, against the
   * base URL. Either way it must end up on the profile's own origin.
   */
  resolveLocation(location: string): string {
    let absolute: string;
    try {
      absolute = new URL(location, `${this.connection.baseUrl}/`).toString();
    } catch {
      throw new AppError('bad-response', `The service pointed Closebook at an address it cannot read: ${location}`);
    }
    return this.resolve(absolute);
  }

  /** Forgets the token, e.g. after the profile's credentials change. */
  signOut(): void {
    this.auth.forget();
  }

  /** Gets a token now (a connection test proves the credentials before it asks for anything). */
  async signIn(options: { signal?: AbortSignal; onRetry?: (notice: RetryNotice) => void } = {}): Promise<void> {
    await this.observed(() => this.auth.token(options.signal, options.onRetry));
  }

  async request<T>(spec: RequestSpec<T>): Promise<ServiceResponse<T>> {
    return this.observed(() => this.requestOnce(spec));
  }

  /**
   * A GET whose body may be large (a billing report): on success the body is handed to `into` as a stream, never
   * read into one string. Retried like any safe request, from the start. Only silence is a timeout: the clock
   * restarts with every chunk, so a slow 500 MB body is not cut off while it still arrives.
   */
  async download<T>(spec: DownloadSpec<T>): Promise<T> {
    return this.observed(() => this.downloadOnce(spec));
  }

  private async requestOnce<T>(spec: RequestSpec<T>): Promise<ServiceResponse<T>> {
    const url = this.resolve(spec.target);
    const init = async (): Promise<RequestInit> => ({
      method: spec.method,
      headers: {
        Authorization: `Bearer ${await this.auth.token(spec.signal)}`,
        'Content-Type': 'application/json',
        Accept: 'application/json',
      },
      ...(spec.body === undefined ? {} : { body: JSON.stringify(spec.body) }),
    });
    const { response, text, cut } = await this.signedIn(() => this.loop.send(url, init, { retry: spec.retry, signal: spec.signal, onRetry: spec.onRetry }));
    if (spec.retry === 'unsafe' && (response.status === 502 || response.status === 504)) throw gatewayOutcomeUnknown(this.host, response.status);
    if (!response.ok) throw errorForStatus(response.status, this.host, text);
    if (cut && spec.schema !== null) throw largerThan(spec.what, ANSWER_LIMITS.answerBytes);
    return { status: response.status, headers: response.headers, data: parseAnswer(text, spec.schema, spec.what), text };
  }

  private async downloadOnce<T>(spec: DownloadSpec<T>): Promise<T> {
    const url = this.resolve(spec.target);
    const init = async (): Promise<RequestInit> => ({
      method: 'GET',
      headers: { Authorization: `Bearer ${await this.auth.token(spec.signal)}`, Accept: 'application/json' },
    });
    const silenceMs = this.options.downloadTimeoutMs ?? 120_000;
    const answer = await this.signedIn(() =>
      this.loop.send(url, init, { retry: 'safe', signal: spec.signal, onRetry: spec.onRetry, consume: spec.into, silenceMs, spacedMs: spec.spacedMs }),
    );
    if (!answer.response.ok || answer.consumed === undefined) throw errorForStatus(answer.response.status, this.host, answer.text);
    return answer.consumed.value;
  }

  /** Sends with the token; a 401 means it may have expired early: ask for a new one once, then give up. */
  private async signedIn<T>(send: () => Promise<Answer<T>>): Promise<Answer<T>> {
    const answer = await send();
    if (answer.response.status !== 401) return answer;
    this.auth.forget();
    return send();
  }

  /** Runs one call and tells `onOutcome` how it ended (a cancelled call says nothing about the service). */
  private async observed<T>(call: () => Promise<T>): Promise<T> {
    try {
      const result = await call();
      this.options.onOutcome?.(null);
      return result;
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'cancelled')) this.options.onOutcome?.(error);
      throw error;
    }
  }
}
