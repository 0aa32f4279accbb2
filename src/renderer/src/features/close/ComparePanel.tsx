import { useId, useState } from 'react';
import type { ReportMeta } from '@shared/schemas/saved-report';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { formatDateTime } from '@renderer/components/format-time';
import { BridgeTable } from './BridgeTable';
import { ChangesTable } from './ChangesTable';
import { monthLabel } from './month-label';
import { useComparison, useMonths } from './use-month-close';

/**
 * This month against another month of the same service and reseller (by default the one before): the change in
 * sales per currency, split into price, quantity, new/lost and other, and every change behind it.
 */
export function ComparePanel({ meta, previousReportId }: { meta: ReportMeta; previousReportId: string | null }): React.JSX.Element {
  const { data: months, error: monthsError } = useMonths(meta.id);
  const [chosen, setChosen] = useState<string | null>(null);
  const beforeId = chosen ?? previousReportId;
  const { data: comparison, error, loading, retry } = useComparison(beforeId, meta.id);
  const selectId = useId();
  // Any other saved month may be compared with; another fetch of this same month is what a restatement shows.
  const others = (months ?? []).filter((month) => month.reportId !== meta.id);
  const before = others.find((month) => month.reportId === beforeId);
  const beforeLabel = before ? monthLabel(before.period) : 'before';
  const afterLabel = monthLabel(meta.period);
  const samePeriod = before?.period.startDate === meta.period.startDate && before.period.endDate === meta.period.endDate;

  return (
    <div className="compare">
      <div className="close-bar">
        <label htmlFor={selectId}>Compare {afterLabel} with</label>
        <select
          id={selectId}
          className="close-bar__month"
          value={beforeId ?? ''}
          onChange={(event) => setChosen(event.target.value || null)}
          disabled={others.length === 0}
        >
          {beforeId ? null : <option value="">Choose a month</option>}
          {others.map((month) => (
            <option key={month.reportId} value={month.reportId}>
              {monthLabel(month.period)} (fetched {formatDateTime(month.fetchedAt)}){month.state === 'draft' ? '' : ` · ${month.state}`}
            </option>
          ))}
        </select>
        {samePeriod ? <span className="hint">Another fetch of the same month: this shows what the service changed between the two.</span> : null}
      </div>
      <ErrorNote message={monthsError} />
      {months && others.length === 0 ? (
        <p className="empty">There is no other month of this service in the ledger yet. Fetch or import last month to compare with it.</p>
      ) : null}
      {error ? (
        <div className="error-note" role="alert">
          The months could not be compared: {error}{' '}
          <button type="button" className="link" onClick={retry}>
            Try again
          </button>
        </div>
      ) : null}
      {loading ? <p className="empty">Comparing…</p> : null}
      {comparison ? (
        <>
          <h4 className="close__subhead">
            Sales, {beforeLabel} to {afterLabel}, per currency
          </h4>
          <BridgeTable bridges={comparison.bridges} label="Change in sales per currency" beforeLabel={beforeLabel} afterLabel={afterLabel} />
          <ChangesTable changes={comparison.changes} changeCount={comparison.changeCount} label="Changes" />
        </>
      ) : null}
    </div>
  );
}
