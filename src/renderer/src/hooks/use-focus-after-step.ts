import { type RefObject, useCallback, useEffect, useRef, useState } from 'react';

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
