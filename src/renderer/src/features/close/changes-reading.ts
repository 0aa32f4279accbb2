import { CHANGES_PER_PART, type MonthChange } from '@shared/schemas/month-close';

/** Reads changes `from` + 1 … `from` + `count` of a comparison (close:changes). */
export type ReadChanges = (from: number, count: number) => Promise<MonthChange[]>;

/**
 * A comparison's changes after the first part its answer brought, read `perPart` at a time until `wanted`:
 * each time a part is joined, `onRead` has all read so far, in order. Stops, handing on nothing more, once `stopped`
 * says so (another comparison was chosen, or the screen is gone); a failure is thrown, the parts before it handed on.
 */
export async function readRestOfChanges(
  first: readonly MonthChange[],
  wanted: number,
  read: ReadChanges,
  onRead: (changes: MonthChange[]) => void,
  stopped: () => boolean,
  perPart = CHANGES_PER_PART,
): Promise<void> {
  let changes = [...first];
  while (changes.length < wanted) {
    const part = await read(changes.length, Math.min(perPart, wanted - changes.length));
    if (stopped()) return;
    // Nothing where the count said there was more: reading on would ask for the same part for ever.
    if (part.length === 0) throw new Error('The comparison has fewer changes than it said. Compare the months again.');
    changes = [...changes, ...part];
    onRead(changes);
  }
}
