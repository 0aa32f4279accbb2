import { z } from 'zod';
import { AppError, describeIssue } from '@shared/errors';
import type { Clock, FetchLike } from '../ports/ports';
import { isLoopbackHost } from '@shared/schemas/profile';
import {
  errorForStatus,
  isAbortError,
  outcomeUnknown,
  requestNeverSent,
  timedOut,
  unreachable,
} from './http-errors';

/** Everything needed to talk to one service as one user. Secrets are read lazily and never kept elsewhere. */
export interface Connection {
  baseUrl: string;
  clientId: string;
  username: string;
  resellerId: string;
  sellerId: string;
  readSecrets: () => Promise<{ apiSecret: string; password: string }>;
}

export interface RetryNotice {
  /** The attempt that failed, of `attempts` in all. */
  attempt: number;
  attempts: number;
  delayMs: number;
  reason: string;
}

/** What is known of a download's body before it is read: its length, when the service said it (and did not compress it). */
export interface BodyInfo {
  bytes: number | null;
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
}

export interface ServiceResponse<T> {
  status: number;
  headers: Headers;
  data: T;
}

/**
 * The most Closebook reads of one answer of the service. An answer read whole (all but the billing report) is
 * refused past its size before it is parsed, and past its nesting before JSON.parse builds it, so a broken or
 * hostile service is answered in time linear in what was read, never with "Maximum call stack size exceeded".
 * The billing report is streamed: its own bounds are REPORT_LIMITS (report-reader.ts).
 */
export const ANSWER_LIMITS = {
  /**
   * Nesting, in objects and lists: the deepest answer the interface shows is the organization list in a paging
   * envelope (envelope, list, organization, contact — 4 levels). 64, as for a report, leaves room for fields it does not show.
   */
  depth: 64,
  /** The token answer: an access token (a JWT is a few KB) and a few fields. */
  tokenBytes: 1024 * 1024,
  /**
   * Any other answer read whole. The largest a real one gets is the organization list: 50,000 organizations at
   * about 1 KB each as JSON (the §2.1 fields and some not shown) is 50 MB; the failed records of a 50,000-row
   * consumption batch are about half that. 128 MB is room for both.
   */
  answerBytes: 128 * 1024 * 1024,
  /** An error answer: only its message and field errors are read, so the rest is not. */
  errorBytes: 1024 * 1024,
  /**
   * A billing report as downloaded (to disk, before it is read): at REPORT_LIMITS.lines (5,000,000) and about 500
   * bytes a line as the service writes them that is 2.5 GB; 8 GB leaves room for indentation.
   */
  reportBytes: 8 * 1024 * 1024 * 1024,
} as const;

const MB = (bytes: number) => `${(bytes / 1024 / 1024).toLocaleString('en')} MB`;

/** An answer past a bound of ANSWER_LIMITS, in words. */
function tooMuch(what: string, problem: string): AppError {
  return new AppError('bad-response', `The service sent ${what} ${problem}, more than Closebook reads. Nothing was changed; report it to the service if it repeats.`);
}

/** The deepest nesting of objects and lists in a JSON text, stopping once past `limit`: one pass, strings skipped. */
export function jsonDepthOver(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (inString) {
      if (code === 0x5c) at++; // a backslash: the next character is escaped
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      if (++depth > limit) return true;
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return false;
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

/**
 * The HTTP client for one profile: gets a token exactly as spec §5 says, keeps it in memory only, sends it only to
 * the profile's own origin, retries what is safe to retry and parses every response with zod.
 */
export class ServiceClient {
  private token: HeldToken | null = null;
  private tokenRequest: Promise<HeldToken> | null = null;
  private readonly origin: string;
  private readonly host: string;
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;
  private readonly backoffBaseMs: number;
  private readonly maxBackoffMs: number;

  constructor(
    readonly connection: Connection,
    private readonly options: ClientOptions,
  ) {
    const url = new URL(connection.baseUrl);
    this.origin = url.origin;
    this.host = url.host;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxAttempts = options.maxAttempts ?? 4;
    this.backoffBaseMs = options.backoffBaseMs ?? 1_000;
    this.maxBackoffMs = options.maxBackoffMs ?? 60_000;
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
            'Closebook did not follow it, so your sign-in was not sent there. Check the profile\'s base URL.',
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
    this.token = null;
  }

  /** Gets a token now (a connection test proves the credentials before it asks for anything). */
  async signIn(options: { signal?: AbortSignal; onRetry?: (notice: RetryNotice) => void } = {}): Promise<void> {
    await this.observed(() => this.validToken(options.signal, options.onRetry));
  }

  async request<T>(spec: RequestSpec<T>): Promise<ServiceResponse<T>> {
    return this.observed(() => this.requestOnce(spec));
  }

  private async requestOnce<T>(spec: RequestSpec<T>): Promise<ServiceResponse<T>> {
    const url = this.resolve(spec.target);
    const init = async (): Promise<RequestInit> => ({
      method: spec.method,
      headers: {
        Authorization: `Bearer ${(await this.validToken(spec.signal)).value}`,
        'Content-Type': 'application/json',
        Accept: 'application/json',
      },
      ...(spec.body === undefined ? {} : { body: JSON.stringify(spec.body) }),
    });
    let { response, text, cut } = await this.sendWithRetries(url, init, spec.retry, spec.signal, spec.onRetry);
    if (response.status === 401) {
      // The token may have expired early: ask for a new one once, then give up.
      this.token = null;
      ({ response, text, cut } = await this.sendWithRetries(url, init, spec.retry, spec.signal, spec.onRetry));
    }
    if (!response.ok) throw errorForStatus(response.status, this.host, text);
    if (cut && spec.schema !== null) throw tooMuch(spec.what, `larger than ${MB(ANSWER_LIMITS.answerBytes)}`);
    return { status: response.status, headers: response.headers, data: this.parseBody(text, spec.schema, spec.what) };
  }

  /**
   * A GET whose body may be large (a billing report): on success the body is handed to `into` as a stream, never
   * read into one string. Retried like any safe request, from the start. Only silence is a timeout: the clock
   * restarts with every chunk, so a slow 500 MB body is not cut off while it still arrives.
   */
  async download<T>(spec: DownloadSpec<T>): Promise<T> {
    return this.observed(() => this.downloadOnce(spec));
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

  private async downloadOnce<T>(spec: DownloadSpec<T>): Promise<T> {
    const url = this.resolve(spec.target);
    const init = async (): Promise<RequestInit> => ({
      method: 'GET',
      headers: { Authorization: `Bearer ${(await this.validToken(spec.signal)).value}`, Accept: 'application/json' },
    });
    const silence = this.options.downloadTimeoutMs ?? 120_000;
    let answer = await this.sendWithRetries(url, init, 'safe', spec.signal, spec.onRetry, spec.into, silence);
    if (answer.response.status === 401) {
      this.token = null;
      answer = await this.sendWithRetries(url, init, 'safe', spec.signal, spec.onRetry, spec.into, silence);
    }
    if (!answer.response.ok || answer.consumed === undefined) throw errorForStatus(answer.response.status, this.host, answer.text);
    return answer.consumed.value;
  }

  /**
   * The one retry loop: sends until the answer is not worth repeating. Network failures are retried when the
   * request is safe to repeat (or surely never arrived), 5xx only for safe requests, 429 always — with back-off
   * that honours Retry-After. `init` is built per attempt, so a renewed token is used. A successful body goes to
   * `consume` when given (streamed), else it is read as text.
   */
  private async sendWithRetries<T = never>(
    url: string,
    init: () => Promise<RequestInit>,
    retry: 'safe' | 'unsafe',
    signal?: AbortSignal,
    onRetry?: (notice: RetryNotice) => void,
    consume?: (body: AsyncIterable<Uint8Array>, info: BodyInfo) => Promise<T>,
    silenceMs = this.timeoutMs,
    maxBytes: number = ANSWER_LIMITS.answerBytes,
  ): Promise<{ response: Response; text: string; cut: boolean; consumed?: { value: T } }> {
    for (let attempt = 1; ; attempt++) {
      const idle = new IdleTimeout(silenceMs);
      try {
        let response: Response;
        try {
          response = await this.send(url, await init(), idle, signal);
        } catch (error) {
          const failure = this.classifySendFailure(error, retry, signal);
          if (failure.retryable && attempt < this.maxAttempts) {
            await this.backoff(attempt, undefined, failure.error, signal, onRetry);
            continue;
          }
          throw failure.error;
        }
        if (consume && response.ok) {
          try {
            return { response, text: '', cut: false, consumed: { value: await consume(bodyChunks(response, idle, ANSWER_LIMITS.reportBytes), bodyInfo(response)) } };
          } catch (error) {
            if (error instanceof AppError) throw error;
            const failure = this.classifyBodyFailure(error, retry, signal);
            if (attempt < this.maxAttempts) {
              await this.backoff(attempt, undefined, failure, signal, onRetry);
              continue;
            }
            throw failure;
          }
        }
        const { text, cut } = await this.readBody(response, idle, retry, signal, response.ok ? maxBytes : ANSWER_LIMITS.errorBytes);
        const retryable = response.status === 429 || (retry === 'safe' && response.status >= 500);
        if (retryable && attempt < this.maxAttempts) {
          await this.backoff(attempt, response.headers.get('retry-after'), errorForStatus(response.status, this.host, text), signal, onRetry);
          continue;
        }
        return { response, text, cut };
      } finally {
        idle.clear();
      }
    }
  }

  private async send(url: string, init: RequestInit, idle: IdleTimeout, signal?: AbortSignal): Promise<Response> {
    const response = await this.options.fetch(url, {
      ...init,
      redirect: 'manual', // a redirect could carry the token elsewhere; we follow none
      signal: signal ? AbortSignal.any([signal, idle.signal]) : idle.signal,
    });
    idle.touch();
    return response;
  }

  private classifySendFailure(error: unknown, retry: 'safe' | 'unsafe', signal?: AbortSignal): { error: AppError; retryable: boolean } {
    if (signal?.aborted) return { error: new AppError('cancelled', 'Cancelled.'), retryable: false };
    if (error instanceof AppError) return { error, retryable: false };
    const neverSent = requestNeverSent(error);
    if (retry === 'unsafe' && !neverSent) return { error: outcomeUnknown(this.host), retryable: false };
    const appError = isAbortError(error) ? timedOut(this.host, Math.round(this.timeoutMs / 1000)) : unreachable(this.host);
    return { error: appError, retryable: true };
  }

  /**
   * A body read whole, up to `maxBytes`: past it reading stops and `cut` says so (an error answer is read for its
   * message only; a success answer cut short is refused by the caller). An error answer nested past
   * ANSWER_LIMITS.depth is not read at all: its message cannot be found in it.
   */
  private async readBody(response: Response, idle: IdleTimeout, retry: 'safe' | 'unsafe', signal: AbortSignal | undefined, maxBytes: number): Promise<{ text: string; cut: boolean }> {
    let text = '';
    let cut = false;
    try {
      const decoder = new TextDecoder();
      let bytes = 0;
      for await (const chunk of bodyChunks(response, idle)) {
        const room = maxBytes - bytes;
        bytes += chunk.byteLength;
        if (chunk.byteLength > room) {
          text += decoder.decode(chunk.subarray(0, room), { stream: true });
          cut = true;
          break; // ends the body's stream
        }
        text += decoder.decode(chunk, { stream: true });
      }
      text += decoder.decode();
    } catch (error) {
      throw this.classifyBodyFailure(error, retry, signal);
    }
    if (!response.ok && jsonDepthOver(text, ANSWER_LIMITS.depth)) text = '';
    return { text, cut };
  }

  /** A body cut off half-way: cancelled, "may have arrived" for a request that changes something, else a network error. */
  private classifyBodyFailure(error: unknown, retry: 'safe' | 'unsafe', signal?: AbortSignal): AppError {
    if (signal?.aborted) return new AppError('cancelled', 'Cancelled.');
    if (retry === 'unsafe') return outcomeUnknown(this.host);
    return isAbortError(error) ? timedOut(this.host, Math.round(this.timeoutMs / 1000)) : unreachable(this.host);
  }

  private parseBody<T>(text: string, schema: z.ZodType<T> | null, what: string): T {
    if (schema === null) return undefined as T;
    if (jsonDepthOver(text, ANSWER_LIMITS.depth)) throw tooMuch(what, `nested deeper than ${ANSWER_LIMITS.depth} levels`);
    let json: unknown;
    try {
      // An empty body reaches the schema as undefined: a schema that allows it (a create whose reply is "not shown") passes.
      json = text.trim() === '' ? undefined : JSON.parse(text);
    } catch {
      throw new AppError(
        'bad-response',
        `The service sent ${what} in a form Closebook cannot read (not JSON). Nothing was changed; try again, and report it to the service if it repeats.`,
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const { where, message } = describeIssue(parsed.error);
      throw new AppError(
        'bad-response',
        `The service sent ${what} that Closebook cannot read: at ${where}, ${message}. Nothing was changed; report it to the service if it repeats.`,
      );
    }
    return parsed.data;
  }

  private async backoff(
    attempt: number,
    retryAfter: string | null | undefined,
    failure: AppError,
    signal?: AbortSignal,
    onRetry?: (notice: RetryNotice) => void,
  ) {
    // The connection indicator follows attempts too: a service failing and being retried is not "not checked yet".
    this.options.onOutcome?.(failure);
    const reason = failure.message;
    const delayMs = Math.min(this.maxBackoffMs, parseRetryAfter(retryAfter, this.options.clock.now()) ?? this.backoffBaseMs * 2 ** (attempt - 1));
    onRetry?.({ attempt, attempts: this.maxAttempts, delayMs, reason });
    try {
      await this.options.clock.sleep(delayMs, signal);
    } catch {
      throw new AppError('cancelled', 'Cancelled.');
    }
  }

  private async validToken(signal?: AbortSignal, onRetry?: (notice: RetryNotice) => void): Promise<HeldToken> {
    const now = this.options.clock.now();
    if (this.token && (this.token.renewAfter === undefined || now < this.token.renewAfter)) return this.token;
    // Concurrent requests share one token request.
    this.tokenRequest ??= this.requestToken(signal, onRetry).finally(() => {
      this.tokenRequest = null;
    });
    this.token = await this.tokenRequest;
    return this.token;
  }

  /** POST {base}/connect/token exactly as spec §5: Basic client credentials plus the password grant. */
  private async requestToken(signal?: AbortSignal, onRetry?: (notice: RetryNotice) => void): Promise<HeldToken> {
    const { apiSecret, password } = await this.connection.readSecrets();
    const basic = Buffer.from(`${this.connection.clientId}:${apiSecret}`, 'utf8').toString('base64');
    const form = new URLSearchParams({
      client_id: this.connection.clientId,
      grant_type: 'password',
      username: this.connection.username,
      password,
      scope: 'api',
    });
    // Asking for a token changes nothing on the service, so it is safe to repeat.
    const { response, text, cut } = await this.sendWithRetries(
      this.resolve('/connect/token'),
      async () => ({
        method: 'POST',
        headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
        body: form.toString(),
      }),
      'safe',
      signal,
      onRetry,
      undefined,
      undefined,
      ANSWER_LIMITS.tokenBytes,
    );
    if (response.status === 400 || response.status === 401 || response.status === 403) {
      throw new AppError(
        'auth',
        `The service refused the credentials for ${this.connection.username}. Check the client ID, API secret, username and password in the profile.`,
      );
    }
    if (!response.ok) throw errorForStatus(response.status, this.host, text);
    if (cut) throw tooMuch('a sign-in token', `larger than ${MB(ANSWER_LIMITS.tokenBytes)}`);
    const token = this.parseBody(text, TokenResponse, 'a sign-in token');
    const now = this.options.clock.now();
    // Renew a minute early (or at half-life for short tokens) so a long poll does not start with a dying token.
    const renewAfter = token.expires_in === undefined ? undefined : now + Math.max(token.expires_in * 500, token.expires_in * 1000 - 60_000);
    return renewAfter === undefined ? { value: token.access_token } : { value: token.access_token, renewAfter };
  }
}

/** Aborts a request after `ms` without progress (no headers yet, or no new chunk of the body). */
class IdleTimeout {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly ms: number) {
    this.touch();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  touch(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.controller.abort(new DOMException('No answer in time', 'TimeoutError')), this.ms);
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/** The body's chunks, each one restarting the idle clock; silence past it ends the read with a TimeoutError. */
/** A body's length from its headers; none when the service compressed it (the header then counts compressed bytes). */
function bodyInfo(response: Response): BodyInfo {
  const length = Number(response.headers.get('content-length'));
  const encoded = (response.headers.get('content-encoding') ?? 'identity').toLowerCase() !== 'identity';
  return { bytes: Number.isSafeInteger(length) && length > 0 && !encoded ? length : null };
}

async function* bodyChunks(response: Response, idle: IdleTimeout, maxBytes = Number.POSITIVE_INFINITY): AsyncGenerator<Uint8Array> {
  if (!response.body) return;
  let bytes = 0;
  const reader = response.body.getReader();
  const silence = new Promise<never>((_resolve, reject) => {
    const fail = () => reject(idle.signal.reason ?? new DOMException('No answer in time', 'TimeoutError'));
    if (idle.signal.aborted) fail();
    else idle.signal.addEventListener('abort', fail, { once: true });
  });
  silence.catch(() => undefined);
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), silence]);
      if (done) return;
      idle.touch();
      bytes += value.byteLength;
      if (bytes > maxBytes) throw tooMuch('a billing report', `larger than ${MB(maxBytes)}`);
      yield value;
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

/** Retry-After as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
