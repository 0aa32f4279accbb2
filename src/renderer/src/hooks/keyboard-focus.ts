import { type RefObject, useCallback, useEffect, useRef, useState } from 'react';

/*
 * Where the keyboard goes after a step. A step often replaces the control that took it (a button that goes with its
 * row, a form that closes); the browser then drops the focus to the top of the page, and a keyboard or screen-reader
 * user starts over. These hooks put it where the person would look next, and never move it when they have put it
 * somewhere else meanwhile.
 */

/**
 * True when nothing has the keyboard: the control that had it went with a step (the browser then gives it to the
 * page's body). A person who has put it somewhere else meanwhile keeps it there.
 */
export function focusIsLost(): boolean {
  const focused = document.activeElement;
  return !focused || focused === document.body;
}

/**
 * For a step that replaces the control which took it (Prepare, Approve, Reopen: the button pressed is gone once its
 * step is done, and the focus with it, back to the top of the page for a keyboard or screen-reader user). Wrap the
 * step in what this returns: once it is done, if `step` changed, the focus goes to `target` — unless the person has
 * put it somewhere else meanwhile. A change nobody here made (a colleague's step arriving) moves nothing, nor does
 * one that arrives after a step of ours that changed nothing.
 */
export function useFocusAfterStep(
  target: RefObject<HTMLElement | null>,
  step: string | null,
): <A extends unknown[]>(action: (...args: A) => Promise<void>) => (...args: A) => Promise<void> {
  // The step a step of ours was taken from, once it is done; looked at (and cleared) in the render after.
  const taken = useRef<{ from: string | null } | null>(null);
  const [done, setDone] = useState(0);
  useEffect(() => {
    const from = taken.current?.from;
    if (from === undefined) return;
    taken.current = null;
    if (step !== from && focusIsLost()) target.current?.focus();
  }, [step, done, target]);
  return useCallback(
    (action) =>
      async (...args) => {
        await action(...args);
        // Rendered with the step's answer (set in the same turn), whether or not it changed the step.
        taken.current = { from: step };
        setDone((count) => count + 1);
      },
    [step],
  );
}

/**
 * A form opened in place of, or under, the control that opened it (a note to accept with, a reason to reopen):
 * once it closes — cancelled, or done and the row still there — the focus goes back to that control instead of the
 * top of the page. `open` is what it was opened with (null or false: closed); `opener` finds the control for it.
 */
export function useFocusBackOnClose<T>(open: T | null | false, opener: (openedWith: T) => HTMLElement | null | undefined): void {
  const was = useRef(open);
  useEffect(() => {
    const before = was.current;
    was.current = open;
    if (before && !open && focusIsLost()) opener(before)?.focus();
  });
}

/**
 * For a step that swaps a control for another in the same place (Delete for Keep, a name for its rename field): what
 * this returns asks for the focus to go, once the screen is drawn again, to what `selector` finds in `within` —
 * unless the person has put it somewhere else meanwhile.
 */
export function useFocusAfterRender(within: RefObject<HTMLElement | null>): (selector: string) => void {
  const [asked, setAsked] = useState<string | null>(null);
  useEffect(() => {
    if (asked === null) return;
    setAsked(null);
    if (focusIsLost()) within.current?.querySelector<HTMLElement>(asked)?.focus();
  }, [asked, within]);
  return setAsked;
}

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
 * place (to the first of its `targets`, as useFocusStaysInList), or to `empty`; a control swapped for another (Delete
 * for Keep and back) gets it after the next render.
 */
export function useRowFocus(
  list: RefObject<HTMLElement | null>,
  empty: () => HTMLElement | null | undefined,
  targets?: string,
): { handOn<T>(key: string, step: () => Promise<T>): Promise<T>; focusOn(key: string, control: string): void } {
  const keepFocus = useFocusStaysInList(list, '[data-focus-row]', empty, targets);
  const focusAfterRender = useFocusAfterRender(list);
  const row = (key: string) => `[data-focus-row="${CSS.escape(key)}"]`;
  return {
    handOn: (key, step) => keepFocus(list.current?.querySelector(row(key)) ?? null, step),
    focusOn: (key, control) => focusAfterRender(`${row(key)} [data-control="${control}"]`),
  };
}
