import type { Submission } from '@shared/schemas/consumption';
import { BatchGrid } from './BatchGrid';
import { useConsumption } from './consumption-store';
import { NamesNote } from './NamesNote';
import { SubmissionPanel } from './SubmissionPanel';

/**
 * A batch from the history, read-only whatever its state: what was sent stays as it was sent. "Copy to a new batch"
 * makes an editable copy (replacing a batch being prepared but not yet sent, which `draftRows` counts).
 */
export function PastBatch({ submission, draftRows }: { submission: Submission; draftRows: number }): React.JSX.Element {
  const copyToNewBatch = useConsumption((state) => state.copyToNewBatch);
  const closePast = useConsumption((state) => state.closePast);
  const batch = useConsumption((state) => state.batch);

  return (
    <>
      <section className="panel past-batch" aria-label="Past batch">
        <div className="panel__header">
          <h2>
            {submission.fileName} <span className="muted">(read-only: a batch from the history)</span>
          </h2>
          <div className="toolbar">
            <button type="button" className="primary" onClick={copyToNewBatch}>
              Copy to a new batch
            </button>
            <button type="button" onClick={closePast}>
              {batch ? 'Back to the current batch' : 'Close'}
            </button>
          </div>
        </div>
        <p className="muted">
          What was sent stays as it was sent. To change it or send it again, copy it to a new batch
          {draftRows ? ` (this replaces the ${draftRows} rows you are preparing and have not sent)` : ''}.
        </p>
      </section>
      <SubmissionPanel submission={submission} past />
      <section className="panel" aria-label="Rows of the past batch">
        {submission.extraColumns?.length ? <p className="muted">Your own columns, kept but not sent: {submission.extraColumns.join(', ')}</p> : null}
        <NamesNote hasProfile />
        <BatchGrid
          rows={submission.rows}
          extraColumns={submission.extraColumns ?? []}
          failures={submission.state === 'Failed' ? submission.failures : []}
          readOnly
        />
      </section>
    </>
  );
}
