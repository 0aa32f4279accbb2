import { type RefObject, useCallback, useEffect, useRef } from 'react';

/**
 * For a step that replaces the control which took it (Prepare, Approve, Reopen: the button pressed is gone once its
 * step is done, and the focus with it, back to the top of the page for a keyboard or screen-reader user). Wrap the
 * step in what this returns: when `step` changes after it, the focus goes to `target` — unless the person has put it
 * somewhere else meanwhile. A change nobody here made (a colleague's step arriving) moves nothing.
 */
export function useFocusAfterStep(
  target: RefObject<HTMLElement | null>,
  step: string | null,
): <A extends unknown[]>(action: (...args: A) => Promise<void>) => (...args: A) => Promise<void> {
  const taking = useRef(false);
  useEffect(() => {
    if (!taking.current) return;
    taking.current = false;
    const focused = document.activeElement;
    if (!focused || focused === document.body) target.current?.focus();
  }, [step, target]);
  return useCallback(
    (action) =>
      async (...args) => {
        taking.current = true;
        try {
          await action(...args);
        } catch (error) {
          taking.current = false;
          throw error;
        }
      },
    [],
  );
}
