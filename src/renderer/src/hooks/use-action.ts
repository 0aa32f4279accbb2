import { useCallback, useEffect, useRef, useState } from 'react';
import { errorMessage } from '../bridge';

export interface Action {
  /**
   * Runs `action`: clears the last error, is busy (as `what`) until it settles, and keeps its error's message to
   * show. Resolves to the action's result, or undefined when it failed (the failure is never thrown on).
   */
  run<T>(action: () => Promise<T>, what?: string): Promise<T | undefined>;
  /** True while an action runs. */
  busy: boolean;
  /** What is running (the `what` given to `run`, "action" when none was), or null. */
  running: string | null;
  /** The last failure in words for people, or null. */
  error: string | null;
  /** Shows a failure found without running anything (e.g. a form checked before it is sent). */
  setError(message: string | null): void;
  clearError(): void;
}

/**
 * "Run an action, show its error": one busy flag and one error message per screen or form, instead of the same
 * try/catch/finally in each. `onError` sees the raw error too (e.g. to put a RequestError's field messages beside
 * the fields).
 */
export function useAction(options: { onError?: (error: unknown) => void } = {}): Action {
  const [running, setRunning] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const onError = useRef(options.onError);
  useEffect(() => {
    onError.current = options.onError;
  });
  // The latest run owns the busy state: an earlier one settling late does not clear it.
  const latest = useRef(0);

  const run = useCallback(async <T>(action: () => Promise<T>, what = 'action'): Promise<T | undefined> => {
    const token = ++latest.current;
    setError(null);
    setRunning(what);
    try {
      return await action();
    } catch (failure) {
      setError(errorMessage(failure));
      onError.current?.(failure);
      return undefined;
    } finally {
      if (latest.current === token) setRunning(null);
    }
  }, []);
  const clearError = useCallback(() => setError(null), []);

  return { run, busy: running !== null, running, error, setError, clearError };
}
