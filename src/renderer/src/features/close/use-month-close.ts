import { useCallback, useEffect, useRef, useState } from 'react';
import {
  MAX_CHANGES_SHOWN,
  type MonthChange,
  type MonthCloseView,
  type MonthComparison,
  type MonthSummary,
  type ReviewState,
} from '@shared/schemas/month-close';
import { bridge, call, errorMessage } from '@renderer/bridge';
import { type LatestAnswer, useChannelAnswer } from '@renderer/hooks/use-latest-answer';
import { useReportJobs } from '../reports/report-jobs-store';
import { readRestOfChanges } from './changes-reading';

/** Exceptions reviewed per request: few enough to show progress and stop soon, many enough to take one transaction each. */
const REVIEWS_PER_CALL = 100;

/** Progress of a review of many exceptions at once (in parts of REVIEWS_PER_CALL, one request each). */
export interface BulkProgress {
  done: number;
  total: number;
}

export interface MonthCloseState {
  view: MonthCloseView | null;
  /** Reading the month failed (the screen offers to try again). */
  loadError: string | null;
  reload(): Promise<void>;
  review(exceptionId: string, state: ReviewState, note: string): Promise<void>;
  /**
   * Reviews several exceptions alike (e.g. every unit-price change of a price-list update, with one note), a part at
   * a time; stops at the first failure or when `stop()` is called, keeping the parts done.
   */
  reviewMany(exceptionIds: readonly string[], state: ReviewState, note: string): Promise<void>;
  bulk: BulkProgress | null;
  stop(): void;
  prepare(): Promise<void>;
  approve(): Promise<void>;
  reopen(reason: string): Promise<void>;
}

/**
 * The close of one report's month as the main process keeps it: exceptions with their reviews, what is open, the
 * four-eyes sign-off and any restatement. Every change answers with the whole new state, which replaces the old one.
 */
export function useMonthClose(reportId: string): MonthCloseState {
  const [view, setView] = useState<MonthCloseView | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [bulk, setBulk] = useState<BulkProgress | null>(null);
  const stopped = useRef(false);

  const reload = useCallback(async () => {
    setLoadError(null);
    try {
      setView(await call('close:state', { reportId }));
    } catch (failure) {
      setLoadError(errorMessage(failure));
    }
  }, [reportId]);
  useEffect(() => void reload(), [reload]);
  // A colleague's step on the team ledger (a review, a prepare, an approval): read the month again.
  useEffect(() => bridge.on('team:changed', () => void reload()), [reload]);

  const review = useCallback(
    async (exceptionId: string, state: ReviewState, note: string) =>
      setView(await call('close:review', { reportId, exceptionIds: [exceptionId], state, note })),
    [reportId],
  );

  const reviewMany = useCallback(
    async (exceptionIds: readonly string[], state: ReviewState, note: string) => {
      stopped.current = false;
      setBulk({ done: 0, total: exceptionIds.length });
      try {
        // In parts: one call (one transaction) each, with the progress and a chance to stop between them.
        for (let at = 0; at < exceptionIds.length; at += REVIEWS_PER_CALL) {
          if (stopped.current) break;
          const part = exceptionIds.slice(at, at + REVIEWS_PER_CALL);
          setView(await call('close:review', { reportId, exceptionIds: part, state, note }));
          setBulk({ done: at + part.length, total: exceptionIds.length });
        }
      } finally {
        setBulk(null);
      }
    },
    [reportId],
  );
  const stop = useCallback(() => {
    stopped.current = true;
  }, []);

  const signed = useCallback((next: MonthCloseView) => {
    setView(next);
    useReportJobs.getState().closeStateChanged();
  }, []);
  const prepare = useCallback(async () => signed(await call('close:prepare', { reportId })), [reportId, signed]);
  const approve = useCallback(async () => signed(await call('close:approve', { reportId })), [reportId, signed]);
  const reopen = useCallback(async (reason: string) => signed(await call('close:reopen', { reportId, reason })), [reportId, signed]);

  return { view, loadError, reload, review, reviewMany, bulk, stop, prepare, approve, reopen };
}

/** The saved months of the report's service and reseller, oldest first. */
export function useMonths(reportId: string): LatestAnswer<MonthSummary[]> {
  return useChannelAnswer('close:months', { reportId });
}

/** `afterId` compared with `beforeId` (null: nothing to compare with); an answer for an older choice is dropped. */
export function useComparison(beforeId: string | null, afterId: string): LatestAnswer<MonthComparison> {
  return useChannelAnswer('close:compare', beforeId ? { beforeId, afterId } : null);
}

export interface ChangesRead {
  /** The comparison's changes read so far, in its order: its first part, then the rest as it comes. */
  changes: MonthChange[];
  /** How many the screen reads in all (every change, up to MAX_CHANGES_SHOWN). */
  wanted: number;
  /** Reading the rest failed (the changes read so far stay). */
  error: string | null;
  retry(): void;
}

/** Two months compared, with the first part of their changes (a comparison's answer, or a restatement's). */
export type ComparedMonths = Pick<MonthComparison, 'beforeId' | 'afterId' | 'changes' | 'changeCount'>;

/**
 * A comparison's changes: the first part its answer brought, then the rest (up to MAX_CHANGES_SHOWN) read after
 * it is shown, CHANGES_PER_PART at a time — one answer of 20,000 changes took seconds to make, carry and check.
 * Another comparison, or the screen gone, stops the reading; the same comparison answered again (the month's state
 * after a review) goes on with what is read.
 */
export function useComparisonChanges(compared: ComparedMonths | null): ChangesRead {
  const key = compared ? JSON.stringify([compared.beforeId, compared.afterId, compared.changeCount]) : null;
  const [read, setRead] = useState<{ key: string | null; changes: MonthChange[]; error: string | null }>({ key: null, changes: [], error: null });
  const [attempt, setAttempt] = useState(0);
  const wanted = compared ? Math.min(compared.changeCount, MAX_CHANGES_SHOWN) : 0;
  // The first part as the newest answer brought it; only another pair of months (the key) starts the reading again.
  const latest = useRef(compared);
  useEffect(() => {
    latest.current = compared;
  });
  useEffect(() => {
    const first = latest.current;
    if (key === null || !first) return undefined;
    let gone = false;
    let changes = first.changes;
    setRead({ key, changes, error: null });
    const { beforeId, afterId } = first;
    readRestOfChanges(
      changes,
      wanted,
      (from, count) => call('close:changes', { beforeId, afterId, from, count }),
      (joined) => {
        changes = joined;
        setRead({ key, changes, error: null });
      },
      () => gone,
    ).catch((failure: unknown) => {
      if (!gone) setRead({ key, changes, error: errorMessage(failure) });
    });
    return () => {
      gone = true;
    };
  }, [key, wanted, attempt]);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  // Until the effect has run for another comparison, its own first part is what there is.
  const current = read.key === key ? read : { changes: compared?.changes ?? [], error: null };
  return { changes: current.changes, wanted, error: current.error, retry };
}
