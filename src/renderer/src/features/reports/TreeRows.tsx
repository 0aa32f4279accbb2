import { memo } from 'react';
import type { TreeRow } from '@shared/contract';
import { currenciesOf } from '@shared/model/currency-pair';
import { amountText, formatAmount, type NumberText, percentText, quantityText, unitPriceText } from '@renderer/components/format-number';
import { NumberValue } from '@renderer/components/NumberValue';
import { GridRow } from '@renderer/components/VirtualGrid';
import { type ColumnSpec, columnClass } from './format';

/** How a click picks rows: this one alone, this one added or taken away (Ctrl/⌘), or all from the last one (Shift). */
export type SelectHow = 'only' | 'toggle' | 'range';

function MismatchFlag({ row }: { row: TreeRow }): React.JSX.Element | null {
  if (!row.mismatch) return null;
  const { statedCost, sumCost, statedSales, sumSales } = row.mismatch;
  const { cost, sales } = currenciesOf(row.currencyKey);
  // Second-level rows (a service under its organization, or an organization under its service) state their subscriptions' totals.
  const below = row.level !== 'subscription' ? 'its subscriptions' : 'its billing lines';
  const text = `Stated total differs from the sum of ${below}: cost stated ${formatAmount(statedCost, cost)}, sum ${formatAmount(sumCost, cost)}; sales stated ${formatAmount(statedSales, sales)}, sum ${formatAmount(sumSales, sales)}. Closebook shows the sum of the lines.`;
  return (
    <span className="mismatch" title={text} aria-label={text} role="img" data-testid="mismatch-flag">
      ⚠
    </span>
  );
}

function NumberCell({ value, currency, pin = '' }: { value: NumberText | null; currency?: string | undefined; pin?: string }): React.JSX.Element {
  return (
    <div role="gridcell" className={`num${pin}`}>
      {value ? <NumberValue value={value} /> : null}
      {value && currency ? <span className="ccy">{currency}</span> : null}
    </div>
  );
}

function Cell({ row, column }: { row: TreeRow; column: ColumnSpec }): React.JSX.Element {
  const currencies = currenciesOf(row.currencyKey);
  const currency = column.currency ? currencies[column.currency] : '';
  // `?? null`: a main process older than these columns leaves them out.
  const value = row[column.key] ?? null;
  const pin = columnClass(column.key);
  switch (column.kind) {
    case 'text':
      return (
        <div role="gridcell" title={value ?? undefined}>
          {value ?? ''}
        </div>
      );
    case 'quantity':
      return <NumberCell value={value === null ? null : quantityText(value)} />;
    case 'unit-price':
      return <NumberCell value={value === null ? null : unitPriceText(value, currency)} currency={value === null ? undefined : currency} />;
    case 'percent':
      return <NumberCell value={value === null ? null : percentText(value)} pin={pin} />;
    case 'amount':
      if (value === null) {
        return (
          <div role="gridcell" className={`num${pin}`}>
            <span className="muted" title="Cost and sales are in different currencies">
              n/a
            </span>
          </div>
        );
      }
      // Margin is in the sales currency (it exists only where cost is too); its column leaves the code out.
      return <NumberCell value={amountText(value, currency)} currency={column.key === 'margin' ? undefined : currency} pin={pin} />;
  }
}

interface RowProps {
  id: string;
  row: TreeRow;
  index: number;
  top: number;
  active: boolean;
  selected: boolean;
  columns: readonly ColumnSpec[];
  onClickRow: (index: number, row: TreeRow, how: SelectHow) => void;
}

export const TreeRowView = memo(function TreeRowView({ id, row, index, top, active, selected, columns, onClickRow }: RowProps): React.JSX.Element {
  // The top level reads alike whatever it is (organizations, or services in the tree by service).
  const classes = [
    'tree__row',
    `tree__row--${row.level}`,
    row.depth === 0 ? 'tree__row--top' : '',
    active ? 'tree__row--active' : '',
    selected ? 'tree__row--selected' : '',
  ]
    .filter(Boolean)
    .join(' ');
  return (
    <GridRow
      id={id}
      index={index}
      top={top}
      aria-level={row.depth + 1}
      aria-expanded={row.hasChildren ? row.expanded : undefined}
      aria-selected={selected}
      className={classes}
      // Shift+click would otherwise select the page's text between the two rows.
      onMouseDown={(event) => event.shiftKey && event.preventDefault()}
      onClick={(event) => onClickRow(index, row, event.shiftKey ? 'range' : event.ctrlKey || event.metaKey ? 'toggle' : 'only')}
    >
      <div role="gridcell" className="tree__name" style={{ paddingLeft: 8 + row.depth * 18 }} title={[row.label, row.detail].filter(Boolean).join(' · ')}>
        <span className="tree__toggle" aria-hidden="true">
          {row.hasChildren ? (row.expanded ? '▾' : '▸') : ''}
        </span>
        <span className="tree__label">{row.label || '(no name)'}</span>
        {row.detail ? <span className="tree__detail">{row.detail}</span> : null}
        {/* The top rows are one per currency group: say which. */}
        {row.depth === 0 ? <span className="tag">{row.currencyKey}</span> : null}
        <MismatchFlag row={row} />
      </div>
      {columns.map((column) => (
        <Cell key={column.key} row={row} column={column} />
      ))}
    </GridRow>
  );
});

/** A row whose window is still on its way: the same height, a light bar instead of text. */
export function PlaceholderRow({ index, top }: { index: number; top: number }): React.JSX.Element {
  return (
    <GridRow index={index} top={top} aria-busy="true" className="tree__row tree__row--placeholder">
      <div role="gridcell">
        <span className="placeholder-bar" />
      </div>
    </GridRow>
  );
}
