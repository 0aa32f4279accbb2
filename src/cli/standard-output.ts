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
