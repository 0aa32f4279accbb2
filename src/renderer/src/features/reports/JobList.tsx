import { useState } from 'react';
import type { ReportJob } from '@shared/schemas/saved-report';
import { call, errorMessage } from '@renderer/bridge';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { useNow } from '@renderer/hooks/use-now';
import { describeReportJob } from '@shared/report-progress';
import { formatDuration } from './format';
import { useReportJobs } from './report-jobs-store';

/** One request in flight: what the service said last, how long, when Closebook asks next; cancel, or try a failed one again. */
export function ReportJobStatus({ job }: { job: ReportJob }): React.JSX.Element {
  const load = useReportJobs((state) => state.load);
  const now = useNow();
  const [failure, setFailure] = useState<string | null>(null);
  const act = async (action: () => Promise<unknown>) => {
    setFailure(null);
    try {
      await action();
      await load();
    } catch (error) {
      setFailure(errorMessage(error));
    }
  };
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
  if (jobs.length === 0) return null;
  return (
    <section className="panel" aria-label="Report requests">
      <h2>In progress</h2>
      <ul className="job-list">
        {jobs.map((job) => (
          <li key={job.id} className={`job job--${job.state}`} data-testid="report-job">
            <div className="job__title">
              {job.period.startDate} – {job.period.endDate} <span className="muted">({job.profileName})</span>
            </div>
            <ReportJobStatus job={job} />
          </li>
        ))}
      </ul>
    </section>
  );
}
