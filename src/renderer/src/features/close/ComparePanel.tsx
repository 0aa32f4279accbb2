import { useId, useState } from 'react';
import type { ReportMeta } from '@shared/schemas/saved-report';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { formatDateTime } from '@renderer/components/format-time';
import { BridgeTable, MarginTable } from './BridgeTable';
import { ChangesTable } from './ChangesTable';
import { FetchMonthBefore, useEarlierMonthSaved } from './FetchMonthBefore';
import { monthLabel } from './month-label';
import { useComparison, useMonths } from './use-month-close';

/** The bridges the comparison shows, one at a time (each is a table of its own; together they would push the changes away). */
const BRIDGES = {
  sales: { label: 'Sales', title: 'Sales', table: 'Change in sales per currency' },
  cost: { label: 'Cost', title: 'Cost (in the purchase currency)', table: 'Change in cost per currency' },
  margin: { label: 'Margin', title: 'Margin (sales − cost)', table: 'Margin per currency' },
} as const;
type Bridge = keyof typeof BRIDGES;

/**
 * This month against another month of the same service and reseller (by default the one before): the change in
 * sales and in cost per currency, each split into price, quantity, new/lost and other, the margin before and after,
 * and every change behind them.
 */
export function ComparePanel({ meta, previousReportId }: { meta: ReportMeta; previousReportId: string | null }): React.JSX.Element {
  const { data: months, error: monthsError, retry: readMonthsAgain } = useMonths(meta.id);
  useEarlierMonthSaved(meta, readMonthsAgain);
  const [chosen, setChosen] = useState<string | null>(null);
  const beforeId = chosen ?? previousReportId;
  const { data: comparison, error, loading, retry } = useComparison(beforeId, meta.id);
  const selectId = useId();
  const [bridge, setBridge] = useState<Bridge>('sales');
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
        <div className="empty">
          <p>There is no other month of this service in the ledger yet. Fetch or import last month to compare with it.</p>
          <FetchMonthBefore meta={meta} />
        </div>
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
          <div className="close__subhead compare__bridge-head">
            <h4>
              {BRIDGES[bridge].title}, {beforeLabel} to {afterLabel}, per currency
            </h4>
            <div className="segmented" role="group" aria-label="Bridge of">
              {(Object.keys(BRIDGES) as Bridge[]).map((choice) => (
                <button key={choice} type="button" aria-pressed={bridge === choice} onClick={() => setBridge(choice)}>
                  {BRIDGES[choice].label}
                </button>
              ))}
            </div>
          </div>
          {bridge === 'margin' ? (
            <MarginTable bridges={comparison.bridges} beforeLabel={beforeLabel} afterLabel={afterLabel} />
          ) : (
            <BridgeTable
              key={bridge}
              bridges={comparison.bridges}
              label={BRIDGES[bridge].table}
              beforeLabel={beforeLabel}
              afterLabel={afterLabel}
              measure={bridge}
            />
          )}
          <ChangesTable compared={comparison} label="Changes" />
        </>
      ) : null}
    </div>
  );
}
