import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { TreeRow } from '@shared/contract';
import { formatCount } from '@renderer/components/format-number';
import type { SelectHow } from './TreeRows';
import { stateKeyOf, type TreeQuery, type TreeSnapshot } from './tree-window-cache';
import { errorMessage } from '@shared/error-message';

/** The most rows `clipboard:copy-table` takes at once, and so the most a selection holds. */
export const MAX_COPY_ROWS = 50_000;

/** A selected row and where it stood when picked (its place now, if known, orders a copy). */
export interface Picked {
  row: TreeRow;
  index: number;
}

export interface TreeSelection {
  picked: ReadonlyMap<string, Picked>;
  keys: ReadonlySet<string>;
  /** A click or a key: this row alone, added or taken away, or the range from the last one picked. */
  select(index: number, row: TreeRow, how: SelectHow): void;
  /** This row alone, leaving where a range starts as it is. */
  selectOnly(index: number, row: TreeRow): void;
  clear(): void;
  /** The rows moved (another hierarchy, all opened or closed): a range from an old place would pick the wrong ones. */
  forgetAnchor(): void;
  /** The picked rows in the tree's order: where a row stands now if it is loaded, else where it stood when picked. */
  inOrder(snapshot: TreeSnapshot | null): TreeRow[];
}

/**
 * The tree's selection. It belongs to one list: a new `resetKey` (filter, sort or hierarchy) starts without one. A
 * range reads the rows between from the cache (or asks for them, when scrolled far away); a newer pick drops the
 * answer of an older one. `onError` hears what cannot be selected.
 */
export function useTreeSelection(
  resetKey: string,
  rowsIn: (start: number, end: number) => Promise<TreeRow[]>,
  onError: (message: string) => void,
): TreeSelection {
  const [selection, setSelection] = useState<{ resetKey: string; rows: Map<string, Picked> }>({ resetKey, rows: new Map() });
  const picked = useMemo(() => (selection.resetKey === resetKey ? selection.rows : new Map<string, Picked>()), [selection, resetKey]);
  const keys = useMemo(() => new Set(picked.keys()), [picked]);
  const anchor = useRef<number | null>(null);
  const rangeRead = useRef(0);

  const select = useCallback(
    (index: number, row: TreeRow, how: SelectHow) => {
      const from = anchor.current;
      const read = ++rangeRead.current;
      if (how === 'range' && from !== null) {
        const [start, end] = from <= index ? [from, index] : [index, from];
        if (end - start + 1 > MAX_COPY_ROWS) {
          onError(`Select at most ${formatCount(MAX_COPY_ROWS)} rows at a time.`);
          return;
        }
        rowsIn(start, end).then(
          (rows) =>
            read === rangeRead.current &&
            setSelection({ resetKey, rows: new Map(rows.map((candidate, at) => [candidate.key, { row: candidate, index: start + at }])) }),
          (failure: unknown) => onError(errorMessage(failure)),
        );
        return;
      }
      anchor.current = index;
      setSelection((current) => {
        if (how !== 'toggle') return { resetKey, rows: new Map([[row.key, { row, index }]]) };
        const rows = new Map(current.resetKey === resetKey ? current.rows : []);
        if (rows.has(row.key)) rows.delete(row.key);
        else rows.set(row.key, { row, index });
        return { resetKey, rows };
      });
    },
    [resetKey, rowsIn, onError],
  );
  const selectOnly = useCallback((index: number, row: TreeRow) => setSelection({ resetKey, rows: new Map([[row.key, { row, index }]]) }), [resetKey]);
  const clear = useCallback(() => setSelection({ resetKey, rows: new Map() }), [resetKey]);
  const forgetAnchor = useCallback(() => {
    anchor.current = null;
  }, []);
  const inOrder = (snapshot: TreeSnapshot | null) =>
    [...picked.values()]
      .map((entry) => ({ row: entry.row, at: snapshot?.indexOf(entry.row.key) ?? entry.index }))
      .sort((a, b) => a.at - b.at)
      .map((entry) => entry.row);
  return { picked, keys, select, selectOnly, clear, forgetAnchor, inOrder };
}

/**
 * Reveals a row by its key once the tree has answered `query`: selects it alone and asks the tree to make it active
 * and scroll it into view (`focusRow`, a new object each time). A row not among those fetched so far is read for.
 */
export function useRevealRow(
  snapshot: TreeSnapshot | null,
  query: TreeQuery | null,
  rowsIn: (start: number, end: number) => Promise<TreeRow[]>,
  selectOnly: (index: number, row: TreeRow) => void,
): { reveal(key: string | null): void; focusRow: { index: number } | null } {
  const [revealing, setRevealing] = useState<string | null>(null);
  const [focusRow, setFocusRow] = useState<{ index: number } | null>(null);
  useEffect(() => {
    if (!revealing || !snapshot || !query || snapshot.stateKey !== stateKeyOf(query)) return;
    const select = (index: number, row: TreeRow) => {
      selectOnly(index, row);
      setFocusRow({ index });
    };
    setRevealing(null);
    const index = snapshot.indexOf(revealing);
    const row = index === undefined ? undefined : snapshot.rowAt(index);
    if (index !== undefined && row) {
      select(index, row);
      return;
    }
    // Not among the rows fetched so far: read the (one organization's) tree until it turns up.
    rowsIn(0, Math.min(snapshot.rowCount, MAX_COPY_ROWS) - 1).then(
      (rows) => {
        const at = rows.findIndex((candidate) => candidate.key === revealing);
        if (at >= 0) select(at, rows[at]!);
      },
      () => undefined,
    );
  }, [revealing, snapshot, query, rowsIn, selectOnly]);
  return { reveal: setRevealing, focusRow };
}
