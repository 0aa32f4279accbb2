import { FILTER_SHORTCUT } from '../reports/use-report-shortcuts';
import { memo, useMemo, useState } from 'react';
import type { MonthChange } from '@shared/schemas/month-close';
import { currenciesOf } from '@shared/model/currency-pair';
import { amountText, formatAmount, formatCount, quantityText, unitPriceText } from '@renderer/components/format-number';
import { NumberValue } from '@renderer/components/NumberValue';
import {
  CHANGE_KINDS,
  type ChangeFilter,
  type ChangeSort,
  type ChangeSortKey,
  effectOf,
  filterChanges,
  KIND_LABELS,
  kindCounts,
  LEVEL_LABELS,
  nextChangeSort,
  sortChanges,
} from './change-list';
import { GridRow, HeaderCell, TWO_LINE_ROWS, useVirtualRows, VirtualGrid } from '@renderer/components/VirtualGrid';

const COLUMNS: { key: ChangeSortKey; label: string; numeric?: boolean }[] = [
  { key: 'kind', label: 'Change' },
  { key: 'level', label: 'Level' },
  { key: 'organization', label: 'Organization' },
  { key: 'place', label: 'Service · subscription' },
  { key: 'currency', label: 'Currency' },
  { key: 'before', label: 'Before', numeric: true },
  { key: 'after', label: 'After', numeric: true },
  { key: 'effect', label: 'Effect on sales', numeric: true },
];

function Side({ values, currency }: { values: MonthChange['before']; currency: string }): React.JSX.Element {
  if (!values) return <span className="muted">—</span>;
  const quantity = values.quantity ? quantityText(values.quantity).text : '';
  const detail = quantity && values.unitPrice ? `${quantity} × ${unitPriceText(values.unitPrice, currency).text}` : quantity ? `quantity ${quantity}` : '';
  return (
    <span className="chg__side">
      <span>
        <NumberValue value={amountText(values.sales, currency)} />
        <span className="ccy">{currency}</span>
      </span>
      {detail ? (
        <span className="muted chg__detail" title={detail}>
          {detail}
        </span>
      ) : null}
    </span>
  );
}

function effectTitle(change: MonthChange, currency: string): string {
  const { price, quantity, newLost, other } = change.effects;
  return `Price ${formatAmount(price, currency)} · quantity ${formatAmount(quantity, currency)} · new/lost ${formatAmount(newLost, currency)} · other ${formatAmount(other, currency)} (exact: ${effectOf(change).toFixed()} ${currency})`;
}

const ChangeRow = memo(function ChangeRow({ change, index, top }: { change: MonthChange; index: number; top: number }): React.JSX.Element {
  const currency = currenciesOf(change.currencyKey).sales;
  const place = [change.service, change.subscription, change.product].filter(Boolean).join(' › ');
  const effect = effectOf(change).toFixed();
  return (
    <GridRow index={index} top={top} className={`chg__row chg__row--${change.kind}`} data-testid="change-row" data-kind={change.kind}>
      <div role="gridcell">
        <span className={`kind kind--${change.kind}`}>{KIND_LABELS[change.kind]}</span>
      </div>
      <div role="gridcell">{LEVEL_LABELS[change.level]}</div>
      <div role="gridcell" className="chg__two" title={`${change.organization} (${change.customerNumber || 'no customer number'})`}>
        <span className="chg__org">{change.organization}</span>
        <span className="muted">{change.customerNumber}</span>
      </div>
      <div role="gridcell" className="chg__two" title={place}>
        <span>{change.service}</span>
        <span className="muted">{[change.subscription, change.product].filter(Boolean).join(' › ')}</span>
      </div>
      <div role="gridcell">{change.currencyKey}</div>
      <div role="gridcell" className="num">
        <Side values={change.before} currency={currency} />
      </div>
      <div role="gridcell" className="num">
        <Side values={change.after} currency={currency} />
      </div>
      <div role="gridcell" className="num chg__effect" title={effectTitle(change, currency)}>
        <NumberValue value={amountText(effect, currency)} />
        <span className="ccy">{currency}</span>
      </div>
    </GridRow>
  );
});

interface Props {
  changes: MonthChange[];
  /** All there are (more than `changes` when the main process cut the list). */
  changeCount: number;
  label: string;
  /** The rest of `changes` still being read (useComparisonChanges): how many in all, or why reading them failed. */
  reading?: { wanted: number; error: string | null; retry(): void };
}

/**
 * The changes between two months, one row per change (new and lost rolled up to the highest level that is new or
 * lost), filtered by kind and text and sorted by any column; rows are drawn only where they are in view.
 */
export function ChangesTable({ changes, changeCount, label, reading }: Props): React.JSX.Element {
  const [filter, setFilter] = useState<ChangeFilter>({});
  const [sort, setSort] = useState<ChangeSort>({ key: 'organization', direction: 'asc' });
  const counts = useMemo(() => kindCounts(changes), [changes]);
  const rows = useMemo(() => sortChanges(filterChanges(changes, filter), sort), [changes, filter, sort]);
  // A new filter or order is a new list: it starts at its top.
  const virtualRows = useVirtualRows(rows.length, TWO_LINE_ROWS, rows);

  return (
    <div className="changes">
      <div className="close-bar" role="search" aria-label={`${label}: filters`}>
        <div className="segmented" role="group" aria-label="Kind of change">
          <button type="button" aria-pressed={!filter.kind} onClick={() => setFilter((current) => ({ ...current, kind: undefined }))}>
            All <span className="segmented__count">{formatCount(changes.length)}</span>
          </button>
          {CHANGE_KINDS.map((kind) => (
            <button
              key={kind}
              type="button"
              aria-pressed={filter.kind === kind}
              onClick={() => setFilter((current) => ({ ...current, kind }))}
              disabled={counts[kind] === 0 && filter.kind !== kind}
            >
              {KIND_LABELS[kind]} <span className="segmented__count">{formatCount(counts[kind])}</span>
            </button>
          ))}
        </div>
        <input
          type="search"
          aria-label="Search changes"
          {...FILTER_SHORTCUT}
          placeholder="Organization, cust. no., product…"
          value={filter.text ?? ''}
          onChange={(event) => setFilter((current) => ({ ...current, text: event.target.value }))}
        />
        <span className="count" data-testid="change-count">
          {rows.length === changes.length
            ? `${formatCount(rows.length)} ${changes.length === 1 ? 'change' : 'changes'}`
            : `${formatCount(rows.length)} of ${formatCount(changes.length)} changes`}
        </span>
      </div>
      {reading?.error ? (
        <div className="error-note" role="alert">
          Only {formatCount(changes.length)} of the changes could be read: {reading.error}{' '}
          <button type="button" className="link" onClick={reading.retry}>
            Try again
          </button>
        </div>
      ) : reading && changes.length < reading.wanted ? (
        <p className="hint" role="status" data-testid="changes-reading">
          Reading the changes: {formatCount(changes.length)} of {formatCount(reading.wanted)} so far — the counts, the search and the order cover those.
        </p>
      ) : changeCount > changes.length ? (
        <p className="hint" role="note">
          The first {formatCount(changes.length)} of {formatCount(changeCount)} changes are shown here; the workbook's Changes sheet and the CLI (reports
          compare) have them all.
        </p>
      ) : null}
      <VirtualGrid
        rows={virtualRows}
        block="chg"
        label={label}
        header={COLUMNS.map((column) => (
          <HeaderCell
            key={column.key}
            label={column.label}
            numeric={column.numeric}
            direction={sort.key === column.key ? sort.direction : null}
            onSort={() => setSort((current) => nextChangeSort(current, column.key))}
            title={column.numeric ? `Sort by ${column.label} (within each currency)` : `Sort by ${column.label}`}
          />
        ))}
        renderRow={(item, top) => <ChangeRow key={item.key} change={rows[item.index]!} index={item.index} top={top} />}
        after={rows.length === 0 ? <p className="empty chg__empty">{changes.length === 0 ? 'Nothing changed.' : 'No changes match these filters.'}</p> : null}
      />
    </div>
  );
}
