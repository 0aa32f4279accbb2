import { AppError } from '@shared/errors';
import { ReportAssembler } from './report-assembler';
import type { ReportReaderHandlers, ReportShell } from './report-parts';
import { BrokenJson, ExactNumberTokenizer } from './report-tokens';

// The reader's names, wherever they live: the bounds (report-limits.ts), the parts it hands over
// (report-parts.ts), the numbers it keeps as written (report-tokens.ts).
export { REPORT_LIMITS } from './report-limits';
export type { ReportLevel, ReportReaderHandlers, ReportShell } from './report-parts';
export { JsonNumber } from './report-tokens';

/** Bytes at most per write to the tokenizer, so a long text or number is measured at least this often. */
const SLICE = 64 * 1024;

/**
 * Reads a billing report (spec §2.3) as a stream, handing over each billing line and each part's own fields as
 * soon as they are complete, so memory does not grow with the report — not even with one huge organization —
 * and every token costs the same however deep it sits. The result may be bare or wrapped in an outer array;
 * `status` and `data` may come in any order; unknown fields are skipped. Numbers arrive as JsonNumber.
 * REPORT_LIMITS bound what it reads; past a bound it stops with a message that names the bound.
 */
export async function readBillingReport(source: AsyncIterable<Uint8Array | string>, handlers: ReportReaderHandlers): Promise<ReportShell> {
  const tokenizer = new ExactNumberTokenizer({ emitPartialTokens: true });
  const assembler = new ReportAssembler(handlers);
  let offset = 0;
  // The tokenizer drops what is thrown while it hands over a partial number, so a refusal is kept and thrown after the write.
  let refused: unknown = null;
  tokenizer.onToken = (token) => {
    if (token.partial) {
      try {
        assembler.partial(token);
      } catch (error) {
        refused = error;
      }
      return;
    }
    offset = token.offset;
    assembler.write(token);
  };
  let bytes = 0;
  try {
    for await (const raw of source) {
      // A byte-order mark at the very start is allowed (files saved by some editors); JSON itself forbids it.
      const chunk = bytes === 0 ? stripByteOrderMark(raw) : raw;
      bytes += raw.length;
      for (let at = 0; at < chunk.length; at += SLICE) {
        tokenizer.write(typeof chunk === 'string' ? chunk.slice(at, at + SLICE) : chunk.subarray(at, at + SLICE));
        if (refused) throw refused;
      }
    }
    if (bytes === 0) throw new SyntaxError('the answer is empty');
    tokenizer.end();
    if (assembler.empty) throw new SyntaxError('the answer is empty');
    if (!assembler.complete) throw new SyntaxError('Parser ended in mid-parsing');
  } catch (error) {
    if (error instanceof AppError) throw error;
    const reason = readFailure(error, offset);
    throw new AppError(
      'bad-response',
      `The billing report is not readable JSON (${reason}). Nothing was saved; try again, and report it to the service if it repeats.`,
    );
  }
  return assembler.shell;
}

/** What went wrong reading, in words: zlib and the JSON tokenizer speak of their own states and token types. */
function readFailure(error: unknown, offset: number): string {
  if (error instanceof BrokenJson) return error.message;
  const message = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
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
