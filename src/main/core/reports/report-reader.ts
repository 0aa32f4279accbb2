import { type ParsedElementInfo, type ParsedTokenInfo, Tokenizer, TokenParser, TokenType } from '@streamparser/json';
import { AppError } from '../../../shared/errors';

/** A JSON number as the service wrote it: its literal text, so nothing is rounded on the way to a DECIMAL. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

class ExactNumberTokenizer extends Tokenizer {
  protected override parseNumber(text: string): number {
    return new JsonNumber(text) as unknown as number;
  }
}

export interface ReportReaderHandlers {
  /** One organization with its whole services tree; `path` names it for messages ("data.0.organizations.12"). */
  organization(entryNo: number, organization: unknown, path: string): void | Promise<void>;
}

export interface ReportShell {
  /** The status as sent (number, text or anything else), undefined when absent. */
  status: unknown;
  /** What `data` was: an array of billing entries, null, absent, or something else. */
  data: 'array' | 'null' | 'absent' | 'other';
  /** True for a report file saved by an earlier Closebook ({ meta, entries }), which has no status. */
  saved: boolean;
  /** That file's `meta` object, as written. */
  meta: unknown;
  /** Each billing entry's own fields (billingDate …), by entry index; its organizations went to the handler. */
  entries: Map<number, Record<string, unknown>>;
}

const ENTRY_FIELDS = ['billingDate', 'billingContentStartDate', 'billingContentEndDate'];

/**
 * Watches the tokens for the kind of the report's `data` value. Selecting `data` itself would make the parser keep
 * the whole report in memory (a selected value keeps its children), so its kind is read from the token stream.
 */
function dataKindWatcher(onKind: (kind: ReportShell['data']) => void): (token: ParsedTokenInfo) => void {
  let depth = 0;
  let reportDepth = 0;
  let expectKey = false;
  let key: unknown = null;
  let valueNext = false;
  return ({ token, value }) => {
    if (valueNext) {
      valueNext = false;
      if (key === 'data' || key === 'entries') onKind(token === TokenType.LEFT_BRACKET ? 'array' : token === TokenType.NULL ? 'null' : 'other');
    }
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
      depth++;
      if (reportDepth === 0 && token === TokenType.LEFT_BRACE) reportDepth = depth; // the report object: the root, or inside a wrapping array
      expectKey = token === TokenType.LEFT_BRACE && depth === reportDepth;
    } else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) depth--;
    else if (token === TokenType.COMMA) expectKey = depth === reportDepth;
    else if (token === TokenType.STRING && expectKey) {
      key = value;
      expectKey = false;
    } else if (token === TokenType.COLON && depth === reportDepth) valueNext = true;
  };
}

/**
 * Reads a billing report (spec §2.3) as a stream: each organization is handed over as soon as it is complete and
 * then dropped, so memory does not grow with the report. The result may be bare or wrapped in an outer array;
 * `status` and `data` may come in any order; unknown fields are skipped. Numbers arrive as JsonNumber.
 */
export async function readBillingReport(source: AsyncIterable<Uint8Array | string>, handlers: ReportReaderHandlers): Promise<ReportShell> {
  const tokenizer = new ExactNumberTokenizer();
  // `data` as the service sends it; `entries` (with `meta`) as earlier Closebook versions saved a report.
  const paths = ['$', '$.*'].flatMap((root) => [
    `${root}.status`,
    ...['data', 'entries'].flatMap((list) => [`${root}.${list}.*.organizations.*`, ...ENTRY_FIELDS.map((field) => `${root}.${list}.*.${field}`)]),
  ]);
  paths.push('$.meta');
  const parser = new TokenParser({ paths, keepStack: false });
  const shell: ReportShell = { status: undefined, data: 'absent', saved: false, meta: undefined, entries: new Map() };
  const watch = dataKindWatcher((kind) => (shell.data = kind));
  let offset = 0;
  tokenizer.onToken = (token) => {
    offset = token.offset;
    watch(token);
    parser.write(token);
  };
  parser.onError = (error) => tokenizer.error(error);
  const pending: { entryNo: number; organization: unknown; path: string }[] = [];
  let wrapped: boolean | null = null;

  parser.onValue = ({ value, key, stack }: ParsedElementInfo) => {
    // stack[0] stands for the document; stack[1] holds the root value: the report object, or an array wrapping it.
    wrapped ??= Array.isArray(stack[1]?.value);
    if (wrapped && stack[1]?.key !== 0) throw new AppError('bad-response', 'The billing report holds more than one result; Closebook expects exactly one.');
    const base = wrapped ? 1 : 0;
    if (stack.length === 1 && key === 'meta') shell.meta = plainNumbers(value);
    else if (stack.length === base + 1 && key === 'status') shell.status = value;
    else if (typeof key === 'number') {
      const entryNo = Number(stack[base + 2]?.key);
      if (!shell.entries.has(entryNo)) shell.entries.set(entryNo, {});
      const list = String(stack[base + 1]?.key);
      if (list === 'entries') shell.saved = true;
      pending.push({ entryNo, organization: value, path: `${list}.${entryNo}.organizations.${key}` });
    } else {
      if (stack[base + 1]?.key === 'entries') shell.saved = true;
      const entryNo = Number(stack[base + 2]?.key);
      shell.entries.set(entryNo, { ...shell.entries.get(entryNo), [String(key)]: value });
    }
  };

  let bytes = 0;
  try {
    for await (const raw of source) {
      // A byte-order mark at the very start is allowed (files saved by some editors); JSON itself forbids it.
      const chunk = bytes === 0 ? stripByteOrderMark(raw) : raw;
      bytes += raw.length;
      if (tokenizer.isEnded) {
        if (/\S/.test(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'))) throw new SyntaxError('unexpected data after the end of the report');
        continue;
      }
      tokenizer.write(chunk);
      // Organizations are handed over between chunks, so a handler may await (a batched insert) without the parser racing ahead.
      for (const item of pending.splice(0)) await handlers.organization(item.entryNo, item.organization, item.path);
    }
    if (bytes === 0) throw new SyntaxError('the answer is empty');
    if (!tokenizer.isEnded) tokenizer.end();
    for (const item of pending.splice(0)) await handlers.organization(item.entryNo, item.organization, item.path);
  } catch (error) {
    if (error instanceof AppError) throw error;
    const reason = readFailure(error, offset);
    throw new AppError('bad-response', `The billing report is not readable JSON (${reason}). Nothing was saved; try again, and report it to the service if it repeats.`);
  }
  return shell;
}

/** What went wrong reading, in words: zlib and the JSON parser speak of their own states and token types. */
function readFailure(error: unknown, offset: number): string {
  const message = error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error);
  const code = String((error as NodeJS.ErrnoException | null)?.code);
  if (/^Z_/.test(code)) return 'the compressed data is damaged or cut short';
  if (code === 'ERR_ENCODING_INVALID_ENCODED_DATA') return 'it is not UTF-8 text';
  if (/ended in (the middle of a token|mid-parsing)/.test(message)) return 'it ends too early, as if cut short';
  if (/^Unexpected/.test(message)) return `broken at byte ${Number(/absolute position "(\d+)"/.exec(message)?.[1] ?? offset).toLocaleString('en')}`;
  return message;
}

function stripByteOrderMark(chunk: Uint8Array | string): Uint8Array | string {
  if (typeof chunk === 'string') return chunk.charCodeAt(0) === 0xfeff ? chunk.slice(1) : chunk;
  return chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? chunk.subarray(3) : chunk;
}

/** The summary of a saved report holds counts, not money: its numbers may be read as plain numbers. */
function plainNumbers(value: unknown): unknown {
  if (value instanceof JsonNumber) return Number(value.text);
  if (Array.isArray(value)) return value.map(plainNumbers);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plainNumbers(item)]));
  return value;
}
