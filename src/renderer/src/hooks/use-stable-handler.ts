import { useCallback, useLayoutEffect, useRef } from 'react';

/**
 * A handler whose identity never changes and that calls the newest `handler`: for a memoised child (the report
 * tree) that must not redraw because a parent's render made a new closure of the same handler.
 */
export function useStableHandler<A extends unknown[], R>(handler: (...args: A) => R): (...args: A) => R {
  const latest = useRef(handler);
  useLayoutEffect(() => {
    latest.current = handler;
  });
  return useCallback((...args: A) => latest.current(...args), []);
}
