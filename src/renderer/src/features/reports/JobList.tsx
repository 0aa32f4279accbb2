import { useCallback, useRef, useState } from 'react';
import type { ReportJob } from '@shared/schemas/saved-report';
import { call, errorMessage } from '@renderer/bridge';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { useRowFocus } from '@renderer/hooks/keyboard-focus';
import { useNow } from '@renderer/hooks/use-now';
import { describeReportJob } from '@shared/report-progress';
import { formatDuration } from './format';
import { useReportJobs } from './report-jobs-store';

/** One request in flight: what the service said last, how long, when Closebook asks next; cancel, or try a failed one again. */
export function ReportJobStatus({
  job,
  around = (step) => step(),
}: {
  job: ReportJob;
  /** Wraps each action (Cancel, Try again): where the focus goes once it took its button away. */
  around?: (step: () => Promise<boolean>) => Promise<boolean>;
}): React.JSX.Element {
  const load = useReportJobs((state) => state.load);
  const now = useNow();
  const [failure, setFailure] = useState<string | null>(null);
  const act = (action: () => Promise<unknown>) =>
    around(async () => {
      setFailure(null);
      try {
        await action();
        await load();
        return true;
      } catch (error) {
        setFailure(errorMessage(error));
        return false;
      }
    });
  const { state, message } = job;
  return (
    <>
      <div className="job__status" role="status">
        <strong>{describeReportJob(job, now)}</strong> · {formatDuration(now - Date.parse(job.startedAt))} since the request
      </div>
      {message ? <div className={state === 'failed' ? 'job__error' : 'job__note'}>{message}</div> : null}
      <div className="job__actions">
        {state === 'failed' ? (
          <button type="button" className="link" onClick={() => void act(() => call('reports:retry', { jobId: job.id }))}>
            Try again
          </button>
        ) : null}
        <button type="button" className="link danger" onClick={() => void act(() => call('reports:cancel', { jobId: job.id }))}>
          {state === 'failed' ? 'Discard' : 'Cancel'}
        </button>
      </div>
      <ErrorNote message={failure} />
    </>
  );
}

/** Report requests in flight, each with its status. */
export function JobList(): React.JSX.Element | null {
  const jobs = useReportJobs((state) => state.jobs);
  // A request cancelled hands the keyboard to the next one, the last to Request report.
  const list = useRef<HTMLElement>(null);
  const { handOn } = useRowFocus(
    list,
    useCallback(() => document.querySelector<HTMLElement>('[data-control="request-report"]'), []),
  );
  if (jobs.length === 0) return null;
  return (
    <section className="panel" aria-label="Report requests" ref={list}>
      <h2>In progress</h2>
      <ul className="job-list">
        {jobs.map((job) => (
          <li key={job.id} className={`job job--${job.state}`} data-testid="report-job" data-focus-row={job.id}>
            <div className="job__title">
              {job.period.startDate} – {job.period.endDate} <span className="muted">({job.profileName})</span>
            </div>
            <ReportJobStatus job={job} around={(step) => handOn(job.id, step)} />
          </li>
        ))}
      </ul>
    </section>
  );
}
