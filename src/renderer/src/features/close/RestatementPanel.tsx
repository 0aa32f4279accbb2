import { useState } from 'react';
import type { MonthCloseView } from '@shared/schemas/month-close';
import type { ReportMeta } from '@shared/schemas/saved-report';
import { formatDateTime } from '@renderer/components/format-time';
import { countOf } from '@renderer/components/format-number';
import { BridgeTable } from './BridgeTable';
import { ChangesTable } from './ChangesTable';
import { monthLabel } from './month-label';

/**
 * The month was prepared or approved on another fetch of it. When the service's lines differ from what was signed, this says
 * so first and loudest, with what changed; when they are the same, a quiet line says that too.
 */
export function RestatementPanel({ meta, view }: { meta: ReportMeta; view: MonthCloseView }): React.JSX.Element | null {
  const [open, setOpen] = useState(false);
  const { restatement, signOff } = view;
  if (!restatement || !signOff) return null;
  const month = monthLabel(meta.period);
  const signed =
    signOff.state === 'approved' && signOff.approvedBy
      ? `approved by ${signOff.approvedBy} at ${formatDateTime(signOff.approvedAt ?? '')}`
      : `prepared by ${signOff.preparedBy} at ${formatDateTime(signOff.preparedAt)}`;
  const changed = restatement.hashChanged || restatement.changeCount > 0;
  if (!changed) {
    return (
      <p className="restated restated--same" role="note" data-testid="restatement">
        Fetched again after it was {signed}: the lines are the same as signed (content hash unchanged).
      </p>
    );
  }
  const count = restatement.changeCount;
  return (
    <section className="restated" aria-labelledby="restated-title" data-testid="restatement">
      <h3 id="restated-title">The service changed this month after it was {signOff.state === 'approved' ? 'approved' : 'prepared'}</h3>
      <p>
        {month} was {signed} on an earlier fetch. This fetch ({formatDateTime(meta.fetchedAt)}) differs from it
        {count ? `: ${countOf(count, 'change')}` : ' (the lines differ, the amounts compared per product do not)'}. This fetch is a Draft: the signed fetch
        stays the basis of invoicing until the month is reopened with a reason. Then review any suspended acceptance (its figures changed) and prepare this
        fetch.
      </p>
      <BridgeTable
        bridges={restatement.bridges}
        label="What the service changed, per currency"
        beforeLabel="as signed off"
        afterLabel="as fetched now"
        onlyChanged
      />
      {count ? (
        <>
          <button type="button" className="link restated__toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? 'Hide the changes' : `Show the ${countOf(count, 'change')}`}
          </button>
          {open ? (
            // The changes since the sign-off: their first window came with the month's state, the others are read in sight.
            <ChangesTable
              compared={{ beforeId: restatement.signedReportId, afterId: meta.id, changes: restatement.changes, changeCount: count, kinds: restatement.kinds }}
              label="Changes since sign-off"
            />
          ) : null}
        </>
      ) : null}
    </section>
  );
}
