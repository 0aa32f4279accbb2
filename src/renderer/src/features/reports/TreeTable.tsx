import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useEffect, useId, useRef, useState } from 'react';
import type { ReportSortInput, TreeRow } from '../../../../shared/contract';
import { formatAmount, formatQuantity } from './format';
import type { TreeSnapshot } from './tree-window-cache';

type SortKey = ReportSortInput['key'];

/** Every row is this tall (CSS agrees): with a fixed height the scroll height is known from the row count alone. */
const ROW_HEIGHT = 26;
const HEADER_HEIGHT = 28;
/** Rows drawn beyond the edges of the view, so a short scroll never shows a gap. */
const OVERSCAN_ROWS = 6;
/** Rows asked for beyond the edges of the view, so windows arrive before they are scrolled into. */
const PREFETCH_ROWS = 60;

const COLUMNS: { key: SortKey; label: string; numeric?: boolean }[] = [
  { key: 'label', label: 'Organization › service › subscription › line' },
  { key: 'quantity', label: 'Quantity', numeric: true },
  { key: 'cost', label: 'Cost', numeric: true },
  { key: 'sales', label: 'Sales', numeric: true },
  { key: 'margin', label: 'Margin', numeric: true },
  { key: 'marginPercent', label: 'Margin %', numeric: true },
];

interface Props {
  snapshot: TreeSnapshot | null;
  /** The rows the view needs, inclusive (in view plus a margin). */
  onWanted: (start: number, end: number) => void;
  onToggle: (row: TreeRow) => void;
  sort: ReportSortInput;
  onSort: (key: SortKey) => void;
  /** Changes with the filter and the sort: the view then goes back to the top. */
  resetKey: string;
}

function HeaderRow({ sort, onSort }: Pick<Props, 'sort' | 'onSort'>): React.JSX.Element {
  return (
    <div className="tree__row tree__row--head" role="row" aria-rowindex={1}>
      {COLUMNS.map((column) => {
        const sorted = sort.key === column.key;
        return (
          <div key={column.key} role="columnheader" className={column.numeric ? 'num' : undefined} aria-sort={sorted ? (sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'}>
            {/* A button: click, Enter and Space all sort, and the tree's own keys stay off it. */}
            <button type="button" className="sort" onClick={() => onSort(column.key)} title={`Sort by ${column.label}`}>
              {column.label}
              {sorted ? (sort.direction === 'asc' ? ' ▲' : ' ▼') : ''}
            </button>
          </div>
        );
      })}
    </div>
  );
}

function MismatchFlag({ row }: { row: TreeRow }): React.JSX.Element | null {
  if (!row.mismatch) return null;
  const { statedCost, sumCost, statedSales, sumSales } = row.mismatch;
  const below = row.level === 'service' ? 'its subscriptions' : 'its billing lines';
  const text = `Stated total differs from the sum of ${below}: cost stated ${formatAmount(statedCost)}, sum ${formatAmount(sumCost)}; sales stated ${formatAmount(statedSales)}, sum ${formatAmount(sumSales)}. Closebook shows the sum of the lines.`;
  return (
    <span className="mismatch" title={text} aria-label={text} role="img" data-testid="mismatch-flag">
      ⚠
    </span>
  );
}

function Amount({ value, currency }: { value: string; currency: string }): React.JSX.Element {
  return (
    <>
      {formatAmount(value)} <span className="ccy">{currency}</span>
    </>
  );
}

interface RowProps {
  id: string;
  row: TreeRow;
  index: number;
  top: number;
  active: boolean;
  onActivate: (index: number, row: TreeRow) => void;
}

const TreeRowView = memo(function TreeRowView({ id, row, index, top, active, onActivate }: RowProps): React.JSX.Element {
  const [costCurrency, salesCurrency = costCurrency] = row.currencyKey.split('→') as [string, string?];
  return (
    <div
      id={id}
      role="row"
      aria-rowindex={index + 2}
      aria-level={row.depth + 1}
      aria-expanded={row.hasChildren ? row.expanded : undefined}
      aria-selected={active}
      className={`tree__row tree__row--${row.level}${active ? ' tree__row--active' : ''}`}
      style={{ transform: `translateY(${top}px)` }}
      onClick={() => onActivate(index, row)}
    >
      <div role="gridcell" className="tree__name" style={{ paddingLeft: 8 + row.depth * 18 }} title={row.label}>
        <span className="tree__toggle" aria-hidden="true">{row.hasChildren ? (row.expanded ? '▾' : '▸') : ''}</span>
        <span className="tree__label">{row.label || '(no name)'}</span>
        {row.detail ? <span className="tree__detail">{row.detail}</span> : null}
        {row.level === 'organization' ? <span className="tag">{row.currencyKey}</span> : null}
        <MismatchFlag row={row} />
      </div>
      <div role="gridcell" className="num">{formatQuantity(row.quantity)}</div>
      <div role="gridcell" className="num">
        <Amount value={row.cost} currency={costCurrency} />
      </div>
      <div role="gridcell" className="num">
        <Amount value={row.sales} currency={salesCurrency} />
      </div>
      <div role="gridcell" className="num">
        {row.margin !== null ? formatAmount(row.margin) : <span className="muted" title="Cost and sales are in different currencies">n/a</span>}
      </div>
      <div role="gridcell" className="num">{row.marginPercent ?? ''}</div>
    </div>
  );
});

/** A row whose window is still on its way: the same height, a light bar instead of text. */
function PlaceholderRow({ index, top }: { index: number; top: number }): React.JSX.Element {
  return (
    <div role="row" aria-rowindex={index + 2} aria-busy="true" className="tree__row tree__row--placeholder" style={{ transform: `translateY(${top}px)` }}>
      <div role="gridcell">
        <span className="placeholder-bar" />
      </div>
    </div>
  );
}

/** The nearest row above `index` one level up, among the rows already fetched. */
function parentIndex(snapshot: TreeSnapshot, index: number): number | null {
  const depth = snapshot.rowAt(index)?.depth ?? 0;
  for (let candidate = index - 1; candidate >= 0 && depth > 0; candidate -= 1) {
    const row = snapshot.rowAt(candidate);
    if (!row) return null;
    if (row.depth < depth) return candidate;
  }
  return null;
}

/**
 * The report tree. It scrolls inside itself (the header row stays on top), holds in the DOM only the rows in view,
 * and asks for the rows it is about to show. Keyboard: ↑/↓ move (PgUp/PgDn, Home/End), → opens, ← closes (or goes
 * to the parent), Enter toggles.
 */
export function TreeTable({ snapshot, onWanted, onToggle, sort, onSort, resetKey }: Props): React.JSX.Element {
  const scroller = useRef<HTMLDivElement>(null);
  const idPrefix = useId();
  const [active, setActive] = useState(0);
  const rowCount = snapshot?.rowCount ?? 0;
  const virtualizer = useVirtualizer({
    count: rowCount,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: OVERSCAN_ROWS,
    // The header row sits above the rows inside the same scroller (sticky), so rows start below it.
    scrollMargin: HEADER_HEIGHT,
    scrollPaddingStart: HEADER_HEIGHT,
  });
  const items = virtualizer.getVirtualItems();
  const firstInView = items[0]?.index ?? 0;
  const lastInView = items.at(-1)?.index ?? 0;

  useEffect(() => {
    onWanted(firstInView - PREFETCH_ROWS, lastInView + PREFETCH_ROWS);
  }, [firstInView, lastInView, onWanted]);

  // A new filter or sort is a new list: start at its top (the window cache asks for the top one first).
  const [seenResetKey, setSeenResetKey] = useState(resetKey);
  if (seenResetKey !== resetKey) {
    setSeenResetKey(resetKey);
    setActive(0);
  }
  useEffect(() => {
    // In braces: newer Chromium returns a promise from scrollTo, and an effect may return only its cleanup.
    scroller.current?.scrollTo({ top: 0 });
  }, [resetKey]);

  const activeIndex = Math.min(active, Math.max(0, rowCount - 1));
  const activeRow = snapshot?.rowAt(activeIndex);

  const moveTo = (index: number) => {
    const next = Math.max(0, Math.min(rowCount - 1, index));
    setActive(next);
    virtualizer.scrollToIndex(next, { align: 'auto' });
  };

  const onKeyDown = (event: React.KeyboardEvent<HTMLDivElement>) => {
    // Keys on the header's sort buttons are theirs.
    if (event.target !== event.currentTarget || !snapshot || rowCount === 0) return;
    const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? 0) / ROW_HEIGHT) - 2);
    switch (event.key) {
      case 'ArrowDown':
        moveTo(activeIndex + 1);
        break;
      case 'ArrowUp':
        moveTo(activeIndex - 1);
        break;
      case 'PageDown':
        moveTo(activeIndex + page);
        break;
      case 'PageUp':
        moveTo(activeIndex - page);
        break;
      case 'Home':
        moveTo(0);
        break;
      case 'End':
        moveTo(rowCount - 1);
        break;
      case 'Enter':
        if (activeRow?.hasChildren) onToggle(activeRow);
        break;
      case 'ArrowRight':
        if (activeRow?.hasChildren && !activeRow.expanded) onToggle(activeRow);
        else if (activeRow?.expanded) moveTo(activeIndex + 1);
        break;
      case 'ArrowLeft': {
        if (activeRow?.hasChildren && activeRow.expanded) onToggle(activeRow);
        else {
          const parent = parentIndex(snapshot, activeIndex);
          if (parent !== null) moveTo(parent);
        }
        break;
      }
      default:
        return;
    }
    event.preventDefault();
  };

  const activate = useCallback(
    (index: number, row: TreeRow) => {
      setActive(index);
      if (row.hasChildren) onToggle(row);
    },
    [onToggle],
  );

  return (
    <div
      ref={scroller}
      className="tree"
      role="treegrid"
      aria-label="Billing report"
      aria-rowcount={rowCount + 1}
      aria-activedescendant={activeRow ? `${idPrefix}-${activeIndex}` : undefined}
      aria-busy={snapshot === null}
      tabIndex={0}
      onKeyDown={onKeyDown}
    >
      <HeaderRow sort={sort} onSort={onSort} />
      <div className="tree__rows" role="rowgroup" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((item) => {
          const row = snapshot?.rowAt(item.index);
          const top = item.start - HEADER_HEIGHT;
          return row ? (
            <TreeRowView key={row.key} id={`${idPrefix}-${item.index}`} row={row} index={item.index} top={top} active={item.index === activeIndex} onActivate={activate} />
          ) : (
            <PlaceholderRow key={`placeholder-${item.index}`} index={item.index} top={top} />
          );
        })}
      </div>
      {snapshot === null ? <p className="empty tree__empty">Loading rows…</p> : rowCount === 0 ? <p className="empty tree__empty">No billing lines match these filters.</p> : null}
    </div>
  );
}
