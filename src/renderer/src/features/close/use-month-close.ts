import { useCallback, useEffect, useRef, useState } from 'react';
import {
  CHANGES_PER_WINDOW,
  type ChangeView,
  FIRST_VIEW,
  type MonthChange,
  type MonthCloseView,
  type MonthComparison,
  type MonthSummary,
  type ReviewState,
} from '@shared/schemas/month-close';
import { bridge, call, errorMessage } from '@renderer/bridge';
import { type LatestAnswer, useChannelAnswer } from '@renderer/hooks/use-latest-answer';
import { useReportJobs } from '../reports/report-jobs-store';
import { ChangeWindows } from './change-windows';

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

/** Two months compared, with the first window of their changes (a comparison's answer, or a restatement's). */
export type ComparedMonths = Pick<MonthComparison, 'beforeId' | 'afterId' | 'changes' | 'changeCount' | 'kinds'>;

export interface ShownChanges {
  /** The view whose rows are shown: the one asked for once it has answered, until then the one shown before. */
  view: ChangeView;
  /** How many changes that view shows (null: nothing has answered yet). */
  total: number | null;
  /** The change at `index` of the view shown, if read. */
  at(index: number): MonthChange | undefined;
  /** Asks for rows `first` … `last` of the view shown (those in sight). */
  need(first: number, last: number): void;
  /** The view asked for has not answered yet. */
  pending: boolean;
  /** Reading the view asked for failed (retry asks again). */
  error: string | null;
  retry(): void;
}

/**
 * A comparison's changes as `view` shows them, read a window at a time (ChangeWindows): the first window came with
 * the comparison's answer; the others are read as they come into sight, sorted and searched in the main process.
 * While another view is asked for, the one before stays on screen.
 */
export function useChangeWindows(compared: ComparedMonths | null, view: ChangeView): ShownChanges {
  const [, setVersion] = useState(0);
  const key = compared ? JSON.stringify([compared.beforeId, compared.afterId, compared.changeCount]) : null;
  // Another pair of months (the key) starts again, from the first window its answer brought; the same pair answered
  // again (the month's state after a review) goes on with what is read. Both are state kept from the render before.
  const [held, setHeld] = useState(() => ({ key, windows: windowsOf(compared, setVersion) }));
  let windows = held.windows;
  if (held.key !== key) {
    windows = windowsOf(compared, setVersion);
    setHeld({ key, windows });
  }
  useEffect(() => () => windows?.stop(), [windows]);
  const answered = windows !== null && windows.total(view) !== null;
  const [lastShown, setLastShown] = useState<{ windows: ChangeWindows | null; view: ChangeView }>({ windows, view: FIRST_VIEW });
  if (answered && (lastShown.windows !== windows || lastShown.view !== view)) setLastShown({ windows, view });
  const shown = answered ? view : lastShown.windows === windows ? lastShown.view : FIRST_VIEW;
  // The view asked for is read from its top as soon as it is asked for (asked once: need skips what is asked).
  useEffect(() => windows?.need(view, 0, 0));
  return {
    view: shown,
    total: windows?.total(shown) ?? null,
    at: (index) => windows?.at(shown, index),
    need: (first, last) => windows?.need(shown, first, last),
    pending: !answered,
    error: windows?.error(view) ?? null,
    retry: () => windows?.retry(view),
  };
}

/** The windows of the months compared, their first window as their answer brought it (null: nothing compared). */
function windowsOf(compared: ComparedMonths | null, setVersion: (bump: (version: number) => number) => void): ChangeWindows | null {
  if (!compared) return null;
  const { beforeId, afterId } = compared;
  // This list's own id: a view it opens takes the place of the one it opened before, in the main process too.
  const list = crypto.randomUUID();
  return new ChangeWindows(
    (asked, from, count, opening) => call('close:changes', { beforeId, afterId, view: asked, from, count, ...(opening ? { list } : {}) }),
    CHANGES_PER_WINDOW,
    () => setVersion((version) => version + 1),
    { view: FIRST_VIEW, changes: compared.changes, total: compared.changeCount },
  );
}
