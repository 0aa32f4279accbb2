import { useState } from 'react';
import { periodInWords, stateInWords } from '@shared/consumption-batch';
import type { Submission } from '@shared/schemas/consumption';
import { call } from '@renderer/bridge';
import { receiveFile } from '@renderer/bridge/files';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { useAction } from '@renderer/hooks/use-action';

/** The task of the batch just sent (or picked from the history): its state in words, live, and what to do next. */
export function SubmissionPanel({
  submission,
  past = false,
  stateRef,
}: {
  submission: Submission;
  past?: boolean;
  /** The line saying the task's state: where the keyboard goes once the task has ended, when nothing else needs it. */
  stateRef?: React.RefObject<HTMLDivElement | null>;
}): React.JSX.Element {
  const [notice, setNotice] = useState<string | null>(null);
  const { run, error: failure } = useAction();
  const unmatched = submission.failures.filter((item) => item.row === null);

  const exportFailed = (format: 'xlsx' | 'csv') =>
    run(async () => setNotice(receiveFile(await call('consumption:export-failed', { submissionId: submission.id, format }))));

  return (
    <section className={`panel submission submission--${submission.state}`} aria-label="Submission" data-testid="submission">
      <div className="submission__state" role="status" ref={stateRef} tabIndex={stateRef ? -1 : undefined}>
        <strong data-testid="submission-state">{stateInWords(submission)}</strong>
        <span className="muted" data-testid="submission-period">
          {' '}
          · usage for {submission.period ? periodInWords(submission.period) : 'no month given'}
        </span>
        <span className="muted">
          {' '}
          · {submission.records.length} records from {submission.fileName}
        </span>
        {submission.taskId ? <span className="muted mono"> · task {submission.taskId}</span> : null}
      </div>
      {submission.message && submission.state !== 'Failed' ? (
        <p
          className={submission.state === 'Successful' ? 'notice' : submission.state === 'Queued' || submission.state === 'Processing' ? 'muted' : 'job__error'}
        >
          {submission.message}
        </p>
      ) : null}
      {submission.state === 'Failed' ? (
        <>
          <p className="warn-text" data-testid="nothing-saved">
            The service rejected {submission.failures.length} of {submission.records.length} records, so nothing of this batch was saved (a batch is all or
            nothing).{' '}
            {past
              ? 'To fix it, copy it to a new batch, fix or remove the rows marked below, and submit it again.'
              : 'Fix or remove the rows marked below, then submit the whole batch again.'}
          </p>
          {unmatched.length ? (
            <div className="unmatched" aria-label="Failures with no matching row">
              <strong>Failures that match no row of the batch:</strong>
              <ul>
                {unmatched.map((item, index) => (
                  <li key={index}>
                    {item.subscriptionId}
                    {item.addonId ? ` / ${item.addonId}` : ''} ({item.quantity ?? '?'}): {item.errorMessage}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          <div className="toolbar">
            <button type="button" onClick={() => void exportFailed('xlsx')}>
              Failed rows to Excel
            </button>
            <button type="button" onClick={() => void exportFailed('csv')}>
              Failed rows to CSV
            </button>
          </div>
        </>
      ) : null}
      {(submission.state === 'error' || submission.state === 'outcome-unknown') && submission.statusUrl ? (
        <button type="button" onClick={() => void run(() => call('consumption:resume', { submissionId: submission.id }))}>
          Check again
        </button>
      ) : null}
      {notice ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
      <ErrorNote message={failure} />
    </section>
  );
}
