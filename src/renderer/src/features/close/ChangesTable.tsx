import { FILTER_SHORTCUT } from '../reports/use-report-shortcuts';
import { memo, useEffect, useState } from 'react';
import { ChangeKind, type ChangeSortKey, type ChangeView, FIRST_VIEW, type MonthChange } from '@shared/schemas/month-close';
import { currenciesOf } from '@shared/model/currency-pair';
import { amountText, countOf, formatAmount, formatCount, quantityText, unitPriceText } from '@renderer/components/format-number';
import { NumberValue } from '@renderer/components/NumberValue';
import { effectOf, KIND_LABELS, LEVEL_LABELS, nextChangeSort } from './change-list';
import { type ComparedMonths, useChangeWindows } from './use-month-close';
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

/** Rows beyond those in sight whose window is read ahead of them. */
const READ_AHEAD = 60;

/** A row in sight whose window is still on its way. */
function PendingRow({ index, top }: { index: number; top: number }): React.JSX.Element {
  return (
    <GridRow index={index} top={top} className="chg__row chg__row--pending" data-testid="change-row-pending">
      <div role="gridcell" className="muted">
        Reading…
      </div>
    </GridRow>
  );
}

interface Props {
  /** The months compared: how many changes of each kind, and the first window of their own order. */
  compared: ComparedMonths;
  label: string;
}

/**
 * The changes between two months, one row per change (new and lost rolled up to the highest level that is new or
 * lost), filtered by kind and words and sorted by any column — in the main process, over every change: only the
 * rows in sight are read (useChangeWindows), and drawn.
 */
export function ChangesTable({ compared, label }: Props): React.JSX.Element {
  const [view, setView] = useState<ChangeView>(FIRST_VIEW);
  const shown = useChangeWindows(compared, view);
  const { changeCount, kinds } = compared;
  const total = shown.total ?? 0;
  // Another view shown is a new list: it starts at its top.
  const virtualRows = useVirtualRows(total, TWO_LINE_ROWS, shown.view);
  const { items } = virtualRows;
  const [first, last] = [items[0]?.index ?? 0, items.at(-1)?.index ?? 0];
  // The rows in sight, and a screen or two either side: the next window is read before it scrolls into sight.
  useEffect(() => shown.need(Math.max(0, first - READ_AHEAD), last + READ_AHEAD));
  const typed = view.text ?? '';

  return (
    <div className="changes">
      <div className="close-bar" role="search" aria-label={`${label}: filters`}>
        <div className="segmented" role="group" aria-label="Kind of change">
          <button type="button" aria-pressed={!view.kind} onClick={() => setView((current) => ({ ...current, kind: undefined }))}>
            All <span className="segmented__count">{formatCount(changeCount)}</span>
          </button>
          {ChangeKind.options.map((kind) => (
            <button
              key={kind}
              type="button"
              aria-pressed={view.kind === kind}
              onClick={() => setView((current) => ({ ...current, kind }))}
              disabled={kinds[kind] === 0 && view.kind !== kind}
            >
              {KIND_LABELS[kind]} <span className="segmented__count">{formatCount(kinds[kind])}</span>
            </button>
          ))}
        </div>
        <input
          type="search"
          aria-label="Search changes"
          {...FILTER_SHORTCUT}
          placeholder="Organization, cust. no., product…"
          value={typed}
          onChange={(event) => setView((current) => ({ ...current, text: event.target.value }))}
        />
        {/* The text the count answers (data-for-text): the benchmark waits for it. */}
        <span className="count" data-testid="change-count" data-for-text={shown.view.text ?? ''} aria-busy={shown.pending}>
          {total === changeCount ? countOf(total, 'change') : `${formatCount(total)} of ${formatCount(changeCount)} changes`}
        </span>
      </div>
      {shown.error ? (
        <div className="error-note" role="alert">
          The changes could not be read: {shown.error}{' '}
          <button type="button" className="link" onClick={shown.retry}>
            Try again
          </button>
        </div>
      ) : null}
      <VirtualGrid
        rows={virtualRows}
        block="chg"
        label={label}
        aria-busy={shown.pending}
        header={COLUMNS.map((column) => (
          <HeaderCell
            key={column.key}
            label={column.label}
            numeric={column.numeric}
            direction={shown.view.sort === column.key ? shown.view.direction : null}
            onSort={() => setView((current) => ({ ...current, ...nextChangeSort(current, column.key) }))}
            title={column.numeric ? `Sort by ${column.label} (within each currency)` : `Sort by ${column.label}`}
          />
        ))}
        renderRow={(item, top) => {
          const change = shown.at(item.index);
          return change ? (
            <ChangeRow key={item.key} change={change} index={item.index} top={top} />
          ) : (
            <PendingRow key={item.key} index={item.index} top={top} />
          );
        }}
        after={shown.total === 0 ? <p className="empty chg__empty">{changeCount === 0 ? 'Nothing changed.' : 'No changes match these filters.'}</p> : null}
      />
    </div>
  );
}
