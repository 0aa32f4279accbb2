import { type VirtualItem, type Virtualizer, useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import './virtual-grid.css';

/*
 * The virtual grid every long table uses (the report tree, Invoicing, the month's changes): one scroller whose
 * header row sticks to its top, rows of one fixed height placed absolutely, and in the DOM only the rows in view and a
 * few around them, so the layout holds at 100,000 rows. What they share is the `vgrid` block (virtual-grid.css); each
 * table adds a block of its own (`tree`, `inv`, `chg`): the grid is `<block>`, its rows `<block>__row`, the header
 * `<block>__row--head`, the rows' box `<block>__rows`.
 */

/** Every row is `rowHeight` tall under a header `headerHeight` tall (the table's CSS agrees); `overscan` rows are drawn beyond the view each way. */
export interface RowMetrics {
  rowHeight: number;
  headerHeight: number;
  overscan: number;
}

/** The tables whose rows hold two short lines (Invoicing, the month's changes). */
export const TWO_LINE_ROWS: RowMetrics = { rowHeight: 36, headerHeight: 40, overscan: 8 };

export interface VirtualRows {
  scroller: React.RefObject<HTMLDivElement | null>;
  virtualizer: Virtualizer<HTMLDivElement, Element>;
  /** The rows to draw now (in view and the overscan). */
  items: VirtualItem[];
  metrics: RowMetrics;
}

/** The virtual rows of a grid of `count` rows; a new `resetKey` (another filter, sort or answer) is a new list, shown from its top. */
export function useVirtualRows(count: number, metrics: RowMetrics, resetKey: unknown): VirtualRows {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => metrics.rowHeight,
    overscan: metrics.overscan,
    // The header row sits above the rows inside the same scroller (sticky), so rows start below it.
    scrollMargin: metrics.headerHeight,
    scrollPaddingStart: metrics.headerHeight,
  });
  useEffect(() => {
    // Only when scrolled (the virtualizer follows the scroll): scrollTo lays the page out at once, before the new rows'
    // frame would. In braces: newer Chromium returns a promise from scrollTo, and an effect may return only its cleanup.
    if (virtualizer.scrollOffset) scroller.current?.scrollTo({ top: 0 });
  }, [resetKey]);
  return { scroller, virtualizer, items: virtualizer.getVirtualItems(), metrics };
}

interface GridProps extends Omit<React.HTMLAttributes<HTMLDivElement>, 'role' | 'className' | 'children'> {
  rows: VirtualRows;
  /** The table's CSS block. */
  block: string;
  role?: 'grid' | 'treegrid';
  label: string;
  /** The header row's cells. */
  header: React.ReactNode;
  /** One row (a GridRow, or a row of its own with the same role, index and place). */
  renderRow: (item: VirtualItem, top: number) => React.ReactNode;
  /** Below the rows: what the first rows wait for, or why there are none. */
  after?: React.ReactNode;
}

/** A virtual grid: the header row, the rows in view, and `after`; `aria-rowcount` counts every row and the header. */
export function VirtualGrid({ rows, block, role = 'grid', label, header, renderRow, after, ...attributes }: GridProps): React.JSX.Element {
  const { scroller, virtualizer, items, metrics } = rows;
  return (
    <div ref={scroller} className={`vgrid ${block}`} role={role} aria-label={label} aria-rowcount={virtualizer.options.count + 1} {...attributes}>
      <div className={`vgrid__row vgrid__row--head ${block}__row ${block}__row--head`} role="row" aria-rowindex={1}>
        {header}
      </div>
      <div className={`vgrid__rows ${block}__rows`} role="rowgroup" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((item) => renderRow(item, item.start - metrics.headerHeight))}
      </div>
      {after}
    </div>
  );
}

interface GridRowProps extends Omit<React.HTMLAttributes<HTMLDivElement>, 'role' | 'style'> {
  /** The row's place in the list (0: the first row under the header). */
  index: number;
  /** Where it stands in the rows' box, in px. */
  top: number;
}

/** One row of a virtual grid, in its place. */
export function GridRow({ index, top, children, className, ...attributes }: GridRowProps): React.JSX.Element {
  return (
    <div role="row" aria-rowindex={index + 2} style={{ transform: `translateY(${top}px)` }} className={`vgrid__row ${className ?? ''}`} {...attributes}>
      {children}
    </div>
  );
}

export type SortDirection = 'asc' | 'desc';

interface HeaderCellProps {
  label: string;
  numeric?: boolean | undefined;
  /** How the column sorts the rows now (null: it does not); without `onSort` the column does not sort. */
  direction?: SortDirection | null;
  onSort?: () => void;
  /** The sort button's tooltip. */
  title?: string;
  /** What an unsorted column's arrow slot shows, dimmed ('' leaves it empty). */
  idleArrow?: string;
  /** The label as plain text in the button, not in a box of its own that cuts it off (Invoicing's wrap beside their arrow). */
  plainLabel?: boolean;
  /** More classes for the header cell (e.g. a column pinned in view). */
  className?: string | undefined;
}

/**
 * A column header; a sortable one is a button (click, Enter and Space sort, and the grid's own keys stay off it)
 * with its arrow in a slot of its own, always there, so the arrow never pushes the label or gets cut off.
 */
export function HeaderCell({
  label,
  numeric,
  direction = null,
  onSort,
  title,
  idleArrow = '',
  plainLabel = false,
  className: more,
}: HeaderCellProps): React.JSX.Element {
  const className = [numeric ? 'num' : '', more ?? ''].filter(Boolean).join(' ') || undefined;
  if (!onSort) {
    return (
      <div role="columnheader" className={className}>
        <span className="head__label" title={label}>
          {label}
        </span>
      </div>
    );
  }
  return (
    <div role="columnheader" className={className} aria-sort={direction === null ? 'none' : direction === 'asc' ? 'ascending' : 'descending'}>
      <button type="button" className="sort" onClick={onSort} title={title}>
        {plainLabel ? label : <span className="head__label">{label}</span>}
        <span className={`sort__arrow${direction === null && idleArrow ? ' sort__arrow--off' : ''}`} aria-hidden="true">
          {direction === null ? idleArrow : direction === 'asc' ? '▲' : '▼'}
        </span>
      </button>
    </div>
  );
}
