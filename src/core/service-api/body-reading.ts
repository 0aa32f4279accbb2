import type { z } from 'zod';
import { AppError, describeIssue } from '@shared/errors';
import type { IdleTimeout } from './idle-timeout';

/**
 * Reading the service's answers within bounds: an answer read whole is cut at its size and refused past its
 * nesting before it is parsed; a download is handed on as a stream of chunks, capped too. Kept apart from the
 * retry loop and sign-in so that every answer, the token's included, is read by the same few functions.
 */

/**
 * The most Closebook reads of one answer of the service. An answer read whole (all but the billing report) is
 * refused past its size before it is parsed, and past its nesting before JSON.parse builds it, so a broken or
 * hostile service is answered in time linear in what was read, never with "Maximum call stack size exceeded".
 * The billing report is streamed: its own bounds are REPORT_LIMITS (reports/report-limits.ts).
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

/** What is known of a download's body before it is read: its length, when the service said it (and did not compress it). */
export interface BodyInfo {
  bytes: number | null;
}

const MB = (bytes: number) => `${(bytes / 1024 / 1024).toLocaleString('en')} MB`;

/** An answer past a bound of ANSWER_LIMITS, in words. */
function pastLimit(what: string, problem: string): AppError {
  return new AppError(
    'bad-response',
    `The service sent ${what} ${problem}, more than Closebook reads. Nothing was changed; report it to the service if it repeats.`,
  );
}

/** An answer past its size bound, in words: `what` names it ("a sign-in token"). */
export function largerThan(what: string, bytes: number): AppError {
  return pastLimit(what, `larger than ${MB(bytes)}`);
}

/** The deepest nesting of objects and lists in a JSON text, stopping once past `limit`: one pass, strings skipped. */
export function jsonDepthOver(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (inString) {
      if (code === 0x5c)
        at++; // a backslash: the next character is escaped
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      if (++depth > limit) return true;
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return false;
}

/** A body's length from its headers; none when the service compressed it (the header then counts compressed bytes). */
export function bodyInfo(response: Response): BodyInfo {
  const length = Number(response.headers.get('content-length'));
  const encoded = (response.headers.get('content-encoding') ?? 'identity').toLowerCase() !== 'identity';
  return { bytes: Number.isSafeInteger(length) && length > 0 && !encoded ? length : null };
}

/**
 * The body's chunks, each one restarting the idle clock; silence past it ends the read with a TimeoutError. Past
 * `maxBytes` (a download's bound) it stops with a message.
 */
export async function* bodyChunks(response: Response, idle: IdleTimeout, maxBytes = Number.POSITIVE_INFINITY): AsyncGenerator<Uint8Array> {
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
      if (bytes > maxBytes) throw largerThan('a billing report', maxBytes);
      yield value;
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

/**
 * A body read whole, up to `maxBytes`: past it reading stops and `cut` says so (an error answer is read for its
 * message only; a success answer cut short is refused by the caller). An error answer nested past
 * ANSWER_LIMITS.depth is not read at all: its message cannot be found in it. A failure while reading is thrown as
 * it came; the caller says what it means.
 */
export async function readWhole(response: Response, idle: IdleTimeout, maxBytes: number): Promise<{ text: string; cut: boolean }> {
  let text = '';
  let cut = false;
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
  if (!response.ok && jsonDepthOver(text, ANSWER_LIMITS.depth)) text = '';
  return { text, cut };
}

/** An answer's JSON checked by `schema` (undefined when there is none); refused in words naming `what` it was. */
export function parseAnswer<T>(text: string, schema: z.ZodType<T> | null, what: string): T {
  if (schema === null) return undefined as T;
  if (jsonDepthOver(text, ANSWER_LIMITS.depth)) throw pastLimit(what, `nested deeper than ${ANSWER_LIMITS.depth} levels`);
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
