import type { Submission } from '@shared/schemas/consumption';
import { BatchGrid } from './BatchGrid';
import { useConsumption } from './consumption-store';
import { NamesNote } from './NamesNote';
import { SubmissionPanel } from './SubmissionPanel';

/**
 * A batch from the history, read-only whatever its state: what was sent stays as it was sent. "Copy to a new batch"
 * makes an editable copy (`onCopy` asks first when that would replace rows typed or fixed and not sent).
 */
export function PastBatch({ submission, onCopy }: { submission: Submission; onCopy: () => void }): React.JSX.Element {
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
            <button type="button" className="primary" onClick={onCopy}>
              Copy to a new batch
            </button>
            <button type="button" onClick={closePast}>
              {batch ? 'Back to the current batch' : 'Close'}
            </button>
          </div>
        </div>
        <p className="muted">
          What was sent stays as it was sent. To change it or send it again, copy it to a new batch{batch ? ' (it replaces the batch you are preparing)' : ''}.
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
