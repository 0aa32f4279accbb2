import { useCallback, useEffect, useRef, useState } from 'react';
import type { CurrencyTotalRow } from '../../../../shared/contract';
import { call, errorMessage } from '../../bridge';
import { type ReportFilter, type TreeQuery, TreeWindowCache, type TreeSnapshot } from './tree-window-cache';

export interface TreeWindows {
  snapshot: TreeSnapshot | null;
  error: string | null;
  /** The rows in view, inclusive; the cache fetches the windows around them. */
  setWanted(start: number, end: number): void;
  retry(): void;
}

/** The rows of the report tree for `query`, fetched window by window from the main process. */
export function useTreeWindows(query: TreeQuery): TreeWindows {
  const [snapshot, setSnapshot] = useState<TreeSnapshot | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [cache] = useState(
    () =>
      new TreeWindowCache(
        (request) => call('reports:window', request),
        (next) => {
          setSnapshot(next);
          setError(null);
        },
        (failure) => setError(errorMessage(failure)),
      ),
  );

  // The cache itself tells a new state from the same one asked again (stateKeyOf), so identity churn costs nothing.
  useEffect(() => {
    cache.setQuery(query);
  }, [cache, query]);
  useEffect(() => () => cache.dispose(), [cache]);

  const setWanted = useCallback((start: number, end: number) => cache.setWanted(start, end), [cache]);
  const retry = useCallback(() => {
    setError(null);
    cache.retry();
  }, [cache]);
  return { snapshot, error, setWanted, retry };
}

export interface CurrencyTotals {
  totals: CurrencyTotalRow[] | null;
  error: string | null;
}

/** Totals per currency of what the filter keeps; an answer for an older filter is dropped. */
export function useCurrencyTotals(reportId: string, filter: ReportFilter): CurrencyTotals {
  const [state, setState] = useState<CurrencyTotals>({ totals: null, error: null });
  const filterKey = JSON.stringify(filter);
  useEffect(() => {
    let current = true;
    call('reports:totals', { reportId, filter: JSON.parse(filterKey) as ReportFilter }).then(
      (answer) => current && setState({ totals: answer.totals, error: null }),
      (failure: unknown) => current && setState((previous) => ({ ...previous, error: errorMessage(failure) })),
    );
    return () => {
      current = false;
    };
  }, [reportId, filterKey]);
  return state;
}

export type FilterField = keyof ReportFilter;

export interface ReportFilterState {
  /** What the inputs show, keystroke by keystroke. */
  draft: ReportFilter;
  /** What the tree and totals are asked for: typed fields after a short pause, choices at once. */
  applied: ReportFilter;
  change(field: FilterField, value: string, typed: boolean): void;
  clear(): void;
}

function withoutEmpty(filter: ReportFilter): ReportFilter {
  return Object.fromEntries(Object.entries(filter).filter(([, value]) => value)) as ReportFilter;
}

/** The viewer's filter, with a short typing pause (answers to older text are dropped anyway, so it only saves work). */
export function useReportFilter(typingDelayMs = 30): ReportFilterState {
  const [draft, setDraft] = useState<ReportFilter>({});
  const [applied, setApplied] = useState<ReportFilter>({});
  const latestDraft = useRef(draft);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const change = useCallback(
    (field: FilterField, value: string, typed: boolean) => {
      const next = withoutEmpty({ ...latestDraft.current, [field]: value });
      latestDraft.current = next;
      setDraft(next);
      clearTimeout(timer.current);
      if (typed) timer.current = setTimeout(() => setApplied(next), typingDelayMs);
      else setApplied(next);
    },
    [typingDelayMs],
  );
  const clear = useCallback(() => {
    clearTimeout(timer.current);
    latestDraft.current = {};
    setDraft({});
    setApplied({});
  }, []);
  return { draft, applied, change, clear };
}
