import { useCallback, useEffect, useRef, useState } from 'react';

/** "Copied 12 rows": a short status in words that clears itself after `ms`. */
export function useStatus(ms: number): [string | null, (text: string) => void] {
  const [status, setStatus] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const show = useCallback(
    (text: string) => {
      clearTimeout(timer.current);
      setStatus(text);
      timer.current = setTimeout(() => setStatus(null), ms);
    },
    [ms],
  );
  return [status, show];
}
