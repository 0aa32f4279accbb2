import { useEffect, useRef } from 'react';
import { calendarMonthBefore } from '@shared/model/month-before';
import type { ReportMeta } from '@shared/schemas/saved-report';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { useAction } from '@renderer/hooks/use-action';
import { focusIsLost } from '@renderer/hooks/keyboard-focus';
import { useStableHandler } from '@renderer/hooks/use-stable-handler';
import { ReportJobStatus } from '../reports/JobList';
import { useReportJobs } from '../reports/report-jobs-store';
import { monthLabel } from './month-label';

/**
 * The month before this one, fetched from here with this month's profile, for the checks and the comparison to stand
 * on: its request's progress in place, and once it is saved the Close screen reads the month again
 * (useEarlierMonthSaved). Nothing for a month imported from a file (no profile of ours fetched it) or a period that is
 * not one calendar month. On a signed month (`signed`) it says what the fetch will do to the sign-off.
 */
export function FetchMonthBefore({ meta, signed = null }: { meta: ReportMeta; signed?: 'prepared' | 'approved' | null }): React.JSX.Element | null {
  const period = calendarMonthBefore(meta.period);
  const job = useReportJobs((state) =>
    period ? state.jobs.find((candidate) => candidate.profileId === meta.profileId && samePeriod(candidate.period, period)) : undefined,
  );
  const saved = useReportJobs((state) => state.lastReady);
  const request = useReportJobs((state) => state.request);
  const action = useAction();
  // The button goes once the request is made, the progress once it is cancelled: the keyboard goes to what takes
  // their place (Cancel; the button again).
  const box = useRef<HTMLDivElement>(null);
  const requested = job !== undefined;
  const wasRequested = useRef(requested);
  useEffect(() => {
    if (wasRequested.current !== requested && focusIsLost()) box.current?.querySelector<HTMLElement>('button:not(:disabled)')?.focus();
    wasRequested.current = requested;
  });
  if (!period || meta.importedFrom) return null;
  const label = monthLabel(period);
  const justSaved = !job && saved && saved.profileId === meta.profileId && samePeriod(saved.period, period);
  return (
    <div className="fetch-before" data-testid="fetch-month-before" ref={box}>
      {job ? (
        <>
          <span>Fetching {label}:</span> <ReportJobStatus job={job} />
        </>
      ) : justSaved ? (
        <p className="muted" role="status">
          {label} is saved; the month is checked against it.
        </p>
      ) : (
        <>
          <button type="button" onClick={() => void action.run(() => request(meta.profileId, period), 'fetch')} disabled={action.busy}>
            Fetch {label}
          </button>{' '}
          <span className="muted">with the profile {meta.profileName}: it takes as long as the service needs, and you can go on meanwhile.</span>
          {/* A sign-off covers the exceptions it saw: what the checks find against the month before is open since. */}
          {signed ? (
            <span className="fetch-before__signed">
              {' '}
              The month is {signed === 'approved' ? 'Approved' : 'Prepared'}: exceptions the checks then find stay open until it is reopened, and hold its
              invoices back.
            </span>
          ) : null}
          <ErrorNote message={action.error} />
        </>
      )}
    </div>
  );
}

/**
 * Calls `then` when a month before this one is saved, fetched here or from the Reports list (its profile's, so its
 * service's): the month's "last month" may now be another, and the checks and the months to compare with change.
 */
export function useEarlierMonthSaved(meta: ReportMeta, then: () => void): void {
  const saved = useReportJobs((state) => state.lastReady);
  const seen = useRef(saved?.id);
  const call = useStableHandler(then);
  useEffect(() => {
    if (!saved || saved.id === seen.current) return;
    seen.current = saved.id;
    if (saved.profileId === meta.profileId && saved.period.endDate < meta.period.startDate) call();
  }, [saved, meta.profileId, meta.period.startDate, call]);
}

const samePeriod = (a: { startDate: string; endDate: string }, b: { startDate: string; endDate: string }) =>
  a.startDate === b.startDate && a.endDate === b.endDate;
