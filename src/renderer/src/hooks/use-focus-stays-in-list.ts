import { type RefObject, useCallback, useEffect, useRef, useState } from 'react';
import { focusIsLost, useFocusAfterRender } from './use-focus-after-step';

/**
 * For a list worked through a row at a time, where a step takes its row away or redraws it (an exception reviewed on
 * the Open list leaves it; a customer mapped leaves the customers to map): the keyboard would fall back to the top of
 * the page at every row. Wrap each step in what this returns, with the row it was taken on; once it is done, the
 * focus goes to the first of `targets` (by default a button that can be pressed) in the row now in that place (the
 * next one), or in the rows before it, or — none left — to what `empty` gives. `rows` selects the list's rows (group
 * headers included, where they have buttons of their own). Focus the person has put somewhere else meanwhile stays
 * where it is; a step that failed moves nothing.
 */
export function useFocusStaysInList(
  list: RefObject<HTMLElement | null>,
  rows: string,
  empty: () => HTMLElement | null | undefined,
  targets = 'button:not(:disabled)',
): <T>(row: Element | null, step: () => Promise<T>) => Promise<T> {
  const place = useRef<number | null>(null);
  const [done, setDone] = useState(0);
  const rowsNow = useCallback(() => [...(list.current?.querySelectorAll(rows) ?? [])], [list, rows]);
  useEffect(() => {
    const at = place.current;
    if (at === null) return;
    place.current = null;
    if (!focusIsLost()) return;
    const now = rowsNow();
    const byNearness = [...now.slice(at), ...now.slice(0, at).reverse()];
    // Only what is shown (a row folded away in a closed <details> cannot take the focus).
    const next = byNearness.map((row) => row.querySelector<HTMLElement>(targets)).find((target) => target && target.getClientRects().length > 0);
    (next ?? empty())?.focus();
  }, [done, rowsNow, empty, targets]);
  return useCallback(
    async (row, step) => {
      const at = row ? rowsNow().indexOf(row) : -1;
      const result = await step();
      // Rendered with the step's answer, which was set in the same turn.
      if (result && at >= 0) {
        place.current = at;
        setDone((count) => count + 1);
      }
      return result;
    },
    [rowsNow],
  );
}

/**
 * The keyboard through a list of rows marked `data-focus-row={key}`, each with controls marked `data-control`: a
 * step that may take a row away (a delete, a "use" that removes its own button) hands the focus on to the row in its
 * place, or to `empty`; a control swapped for another (Delete for Keep and back) gets it after the next render.
 */
export function useRowFocus(
  list: RefObject<HTMLElement | null>,
  empty: () => HTMLElement | null | undefined,
): { handOn<T>(key: string, step: () => Promise<T>): Promise<T>; focusOn(key: string, control: string): void } {
  const keepFocus = useFocusStaysInList(list, '[data-focus-row]', empty);
  const focusAfterRender = useFocusAfterRender(list);
  const row = (key: string) => `[data-focus-row="${CSS.escape(key)}"]`;
  return {
    handOn: (key, step) => keepFocus(list.current?.querySelector(row(key)) ?? null, step),
    focusOn: (key, control) => focusAfterRender(`${row(key)} [data-control="${control}"]`),
  };
}
