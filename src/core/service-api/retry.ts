import { AppError } from '@shared/errors';
import type { Clock, FetchLike } from '../ports/ports';
import { ANSWER_LIMITS, type BodyInfo, bodyChunks, bodyInfo, readWhole } from './body-reading';
import { cancelled, errorForStatus, isAbortError, outcomeUnknown, requestNeverSent, timedOut, unreachable } from './http-errors';
import { IdleTimeout } from './idle-timeout';

/**
 * What is worth sending again, and when: the service client's one retry loop (with back-off that honours
 * Retry-After), and the rule by which a workflow waits out a failure. One place, so a request, a download and the
 * sign-in are repeated by the same rules.
 */

export interface RetryNotice {
  /** The attempt that failed, of `attempts` in all. */
  attempt: number;
  attempts: number;
  delayMs: number;
  reason: string;
  /** The service asked to slow down (HTTP 429): busy, not unreachable. */
  busy: boolean;
}

/** How the loop sends and waits, for one service. */
export interface RetryPolicy {
  fetch: FetchLike;
  clock: Clock;
  /** The service's host, for messages. */
  host: string;
  /** Per attempt: how long the service may stay silent, unless a call says otherwise. */
  timeoutMs: number;
  maxAttempts: number;
  backoffBaseMs: number;
  maxBackoffMs: number;
  /** Told after every failed attempt that is retried. */
  onOutcome?: (error: unknown | null) => void;
}

/** One call's part: how safe it is to repeat, and what to do with its answer. */
export interface Attempts<T> {
  /** 'safe' requests are repeated after network errors, 5xx and 429; 'unsafe' ones only when they surely never arrived. */
  retry: 'safe' | 'unsafe';
  signal?: AbortSignal;
  onRetry?: (notice: RetryNotice) => void;
  /** Takes a successful body as a stream (a download); without it the body is read whole, as text. */
  consume?: (body: AsyncIterable<Uint8Array>, info: BodyInfo) => Promise<T>;
  /** How long the service may stay silent; the policy's timeout when not given. */
  silenceMs?: number;
  /** The most of a successful body read whole; ANSWER_LIMITS.answerBytes when not given. */
  maxBytes?: number;
  /**
   * The least wait before sending again, for an address the service asks to be polled no more often (a billing
   * report: 30 s). Its Retry-After is then waited in full, up to MAX_SPACED_WAIT_MS, not cut to the back-off's most.
   */
  spacedMs?: number | undefined;
}

/** The longest a Retry-After is waited before a spaced request is sent again: past it, a day-long date is a mistake. */
const MAX_SPACED_WAIT_MS = 15 * 60_000;

/** The answer the loop ended with: its body as text (cut short past the bound), or what `consume` made of it. */
export interface Answer<T> {
  response: Response;
  text: string;
  cut: boolean;
  consumed?: { value: T };
}

export class RetryLoop {
  constructor(private readonly policy: RetryPolicy) {}

  /**
   * Sends until the answer is not worth repeating. Network failures are retried when the request is safe to repeat
   * (or surely never arrived), 5xx only for safe requests, 429 always — with back-off that honours Retry-After.
   * `init` is built per attempt, so a renewed token is used. A successful body goes to `consume` when given
   * (streamed), else it is read as text.
   */
  async send<T = never>(url: string, init: () => Promise<RequestInit>, attempts: Attempts<T>): Promise<Answer<T>> {
    const { retry, signal, onRetry, consume, silenceMs = this.policy.timeoutMs, maxBytes = ANSWER_LIMITS.answerBytes, spacedMs } = attempts;
    const { maxAttempts, host } = this.policy;
    for (let attempt = 1; ; attempt++) {
      const idle = new IdleTimeout(silenceMs);
      try {
        let response: Response;
        try {
          response = await this.fetchOnce(url, await init(), idle, signal);
        } catch (error) {
          const failure = this.sendFailure(error, retry, silenceMs, signal);
          if (failure.retryable && attempt < maxAttempts) {
            await this.backoff(attempt, undefined, failure.error, { signal, onRetry, spacedMs });
            continue;
          }
          throw failure.error;
        }
        if (consume && response.ok) {
          try {
            return {
              response,
              text: '',
              cut: false,
              consumed: { value: await consume(bodyChunks(response, idle, ANSWER_LIMITS.reportBytes), bodyInfo(response)) },
            };
          } catch (error) {
            if (error instanceof AppError) throw error;
            const failure = this.bodyFailure(error, retry, silenceMs, signal);
            if (attempt < maxAttempts) {
              await this.backoff(attempt, undefined, failure, { signal, onRetry, spacedMs });
              continue;
            }
            throw failure;
          }
        }
        let body: { text: string; cut: boolean };
        try {
          body = await readWhole(response, idle, response.ok ? maxBytes : ANSWER_LIMITS.errorBytes);
        } catch (error) {
          throw this.bodyFailure(error, retry, silenceMs, signal);
        }
        const retryable = response.status === 429 || (retry === 'safe' && response.status >= 500);
        if (retryable && attempt < maxAttempts) {
          await this.backoff(attempt, response.headers.get('retry-after'), errorForStatus(response.status, host, body.text), { signal, onRetry, spacedMs });
          continue;
        }
        return { response, ...body };
      } finally {
        idle.clear();
      }
    }
  }

  private async fetchOnce(url: string, init: RequestInit, idle: IdleTimeout, signal?: AbortSignal): Promise<Response> {
    const response = await this.policy.fetch(url, {
      ...init,
      redirect: 'manual', // a redirect could carry the token elsewhere; we follow none
      signal: signal ? AbortSignal.any([signal, idle.signal]) : idle.signal,
    });
    idle.touch();
    return response;
  }

  /** No answer came: cancelled, "may have arrived" for a request that changes something, else a network error. */
  private sendFailure(error: unknown, retry: 'safe' | 'unsafe', silenceMs: number, signal?: AbortSignal): { error: AppError; retryable: boolean } {
    if (signal?.aborted) return { error: cancelled(), retryable: false };
    if (error instanceof AppError) return { error, retryable: false };
    const neverSent = requestNeverSent(error);
    if (retry === 'unsafe' && !neverSent) return { error: outcomeUnknown(this.policy.host), retryable: false };
    return { error: this.networkFailure(error, silenceMs), retryable: true };
  }

  /** A body cut off half-way: cancelled, "may have arrived" for a request that changes something, else a network error. */
  private bodyFailure(error: unknown, retry: 'safe' | 'unsafe', silenceMs: number, signal?: AbortSignal): AppError {
    if (signal?.aborted) return cancelled();
    if (retry === 'unsafe') return outcomeUnknown(this.policy.host);
    return this.networkFailure(error, silenceMs);
  }

  /** `silenceMs`: the silence this request waited out (a download waits longer than a call), as the message says. */
  private networkFailure(error: unknown, silenceMs: number): AppError {
    const { host } = this.policy;
    return isAbortError(error) ? timedOut(host, silenceMs >= 1000 ? Math.round(silenceMs / 1000) : silenceMs / 1000) : unreachable(host);
  }

  private async backoff(
    attempt: number,
    retryAfter: string | null | undefined,
    failure: AppError,
    { signal, onRetry, spacedMs }: Pick<Attempts<unknown>, 'signal' | 'onRetry' | 'spacedMs'>,
  ) {
    const { clock, maxAttempts, backoffBaseMs, maxBackoffMs } = this.policy;
    // The connection indicator follows attempts too: a service failing and being retried is not "not checked yet".
    this.policy.onOutcome?.(failure);
    const reason = failure.message;
    const asked = parseRetryAfter(retryAfter, clock.now());
    const delayMs =
      spacedMs === undefined
        ? Math.min(maxBackoffMs, asked ?? backoffBaseMs * 2 ** (attempt - 1))
        : Math.max(spacedMs, Math.min(MAX_SPACED_WAIT_MS, asked ?? 0));
    onRetry?.({ attempt, attempts: maxAttempts, delayMs, reason, busy: failure.code === 'rate-limited' });
    try {
      await clock.sleep(delayMs, signal);
    } catch {
      throw cancelled();
    }
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

const TRANSIENT_CODES = new Set(['network', 'timeout', 'service', 'rate-limited']);

/** A failure worth waiting out: a workflow keeps its record and asks again later. */
export function isTransient(error: unknown): error is AppError {
  return error instanceof AppError && TRANSIENT_CODES.has(error.code);
}
