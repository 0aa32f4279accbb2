import { EXIT } from './exit-codes';

/**
 * Ends the command in words when standard output cannot be written: a full disk under `> file` would otherwise end
 * in Node's stack trace. A reader that stopped early (`| head`) is not a failure: the command ends quietly.
 */
export function endWhenStandardOutputFails(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT.ok);
    const advice =
      error.code === 'ENOSPC' || error.code === 'EDQUOT' ? 'free some space on that disk (or send the output elsewhere)' : 'check where the output goes';
    const what = error.message.split('\n')[0];
    process.stderr.write(`closebook: standard output could not be written (${what}), so it is incomplete: ${advice} and run the command again.\n`);
    process.exit(EXIT.service);
  });
}

/** Writes to standard output, waiting while its buffer is full (a long listing stays within memory). */
export async function writeOut(text: string | Uint8Array): Promise<void> {
  if (!process.stdout.write(text)) await new Promise((resolve) => process.stdout.once('drain', resolve));
}

/**
 * `value` as JSON.stringify writes it, in parts: the array under `key` an item at a time, so a large one is never one
 * string (a million-line month's invoice run is 327 MB of JSON; made whole, `invoices run --json` peaked at 2.4 GB).
 */
export function* jsonInParts(value: Record<string, unknown>, key: string): Generator<string> {
  let first = true;
  yield '{';
  for (const [name, field] of Object.entries(value)) {
    const text = name === key && Array.isArray(field) ? null : JSON.stringify(field);
    if (text === undefined) continue; // left out, as JSON.stringify leaves out undefined and functions
    yield `${first ? '' : ','}${JSON.stringify(name)}:`;
    first = false;
    if (text !== null) {
      yield text;
      continue;
    }
    yield '[';
    let index = 0;
    for (const item of field as unknown[]) yield `${index++ ? ',' : ''}${JSON.stringify(item) ?? 'null'}`;
    yield ']';
  }
  yield '}';
}

/**
 * An array as JSON.stringify(items, null, 2) writes it (and a newline), from its items a batch at a time: each batch
 * stringified as an array whose brackets are cut off, its items already indented and joined as the whole array's. At
 * 345,774 changes (`reports compare --json`) 13.8–16.2 s against 26–27 s stringifying and indenting each item.
 */
export async function* indentedJsonArray<T>(batches: AsyncIterable<T[]>): AsyncGenerator<string> {
  let first = true;
  for await (const batch of batches) {
    if (!batch.length) continue;
    yield `${first ? '[\n' : ',\n'}${JSON.stringify(batch, null, 2).slice(2, -2)}`;
    first = false;
  }
  yield first ? '[]\n' : '\n]\n';
}
