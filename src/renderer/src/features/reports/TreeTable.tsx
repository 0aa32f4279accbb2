import { memo, useCallback, useEffect, useId, useState } from 'react';
import type { ReportColumn, ReportHierarchy, ReportSortInput, TreeRow } from '@shared/contract';
import { Pending } from '@renderer/components/Pending';
import { HeaderCell, type RowMetrics, useVirtualRows, VirtualGrid } from '@renderer/components/VirtualGrid';
import { type ColumnSpec, columnClass, nameHeader, PINNED_COLUMNS } from './format';
import type { TreeSnapshot } from './tree-window-cache';
import { PlaceholderRow, type SelectHow, TreeRowView } from './TreeRows';

type SortKey = ReportSortInput['key'];

/**
 * Every row is 26 px tall under a 28 px header (CSS agrees): with a fixed height the scroll height is known from the
 * row count alone. Six rows are drawn beyond the edges of the view, so a short scroll never shows a gap.
 */
const TREE_ROWS: RowMetrics = { rowHeight: 26, headerHeight: 28, overscan: 6 };
/** Rows asked for beyond the edges of the view, so windows arrive before they are scrolled into. */
const PREFETCH_ROWS = 60;

/**
 * Column widths in px, measured for the widest value each shows in bold (organization rows) at 13 px: an amount of
 * 99,999,999.99 with its currency code, a unit price of 9,999.9999 with its code, −100.00 %. The name column takes
 * the rest and shrinks (with an ellipsis) down to NAME_MIN_WIDTH, so at 1024 px the default columns all fit.
 */
const COLUMN_WIDTHS: Record<ReportColumn, number> = {
  quantity: 104,
  unitCost: 128,
  unitPrice: 128,
  cost: 168,
  sales: 168,
  margin: 134,
  marginPercent: 98,
  poNumber: 100,
  billingDate: 92,
};
const NAME_MIN_WIDTH = 200;

interface Props {
  snapshot: TreeSnapshot | null;
  /** What the wait for the first rows is, in words ("Adding up 997,613 billing lines"). */
  pendingWhat: string;
  columns: readonly ColumnSpec[];
  hierarchy: ReportHierarchy;
  /** The rows the view needs, inclusive (in view plus a margin). */
  onWanted: (start: number, end: number) => void;
  onToggle: (row: TreeRow) => void;
  sort: ReportSortInput;
  onSort: (key: SortKey) => void;
  /** Keys of the selected rows. */
  selected: ReadonlySet<string>;
  onSelect: (index: number, row: TreeRow, how: SelectHow) => void;
  /** Ctrl/⌘+C: the selected rows (or the active one) to the clipboard. */
  onCopy: (activeRow: TreeRow | undefined) => void;
  onClearSelection: () => void;
  /** Changes with the filter, the sort and the hierarchy: the view then goes back to the top. */
  resetKey: string;
  /** A row to make active and scroll into view (a new object each time it is asked for). */
  focusRow?: { index: number } | null;
}

function HeaderCells({ sort, onSort, columns, hierarchy }: Pick<Props, 'sort' | 'onSort' | 'columns' | 'hierarchy'>): React.JSX.Element {
  const heads: { key: string; label: string; sortKey: SortKey | null; numeric: boolean; className?: string }[] = [
    { key: 'label', label: nameHeader(hierarchy), sortKey: 'label', numeric: false },
    ...columns.map((column) => ({
      key: column.key,
      label: column.label,
      sortKey: column.sortKey,
      numeric: column.kind !== 'text',
      className: columnClass(column.key).trim(),
    })),
  ];
  return (
    <>
      {heads.map(({ key, label, sortKey, numeric, className }) =>
        sortKey === null ? (
          <HeaderCell key={key} label={label} numeric={numeric} className={className} />
        ) : (
          <HeaderCell
            key={key}
            label={label}
            numeric={numeric}
            className={className}
            direction={sort.key === sortKey ? sort.direction : null}
            onSort={() => onSort(sortKey)}
            title={`Sort by ${label}`}
            idleArrow="↕"
          />
        ),
      )}
    </>
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

/** The grid's column template and the width below which it scrolls sideways, for these columns. */
function columnLayout(columns: readonly ColumnSpec[]): React.CSSProperties {
  const widths = columns.map((column) => COLUMN_WIDTHS[column.key]);
  // Each pinned column sticks at the width of the pinned columns right of it.
  const pins: Record<string, string> = {};
  let right = 0;
  for (const column of [...columns].reverse()) {
    if (!PINNED_COLUMNS.has(column.key)) continue;
    pins[`--pin-${column.key}`] = `${right}px`;
    right += COLUMN_WIDTHS[column.key];
  }
  return {
    '--tree-columns': [`minmax(${NAME_MIN_WIDTH}px, 1fr)`, ...widths.map((width) => `${width}px`)].join(' '),
    '--tree-min-width': `${NAME_MIN_WIDTH + widths.reduce((sum, width) => sum + width, 0)}px`,
    ...pins,
  } as React.CSSProperties;
}

/**
 * The report tree. It scrolls inside itself (the header row stays on top), holds in the DOM only the rows in view,
 * and asks for the rows it is about to show. Keyboard: ↑/↓ move (PgUp/PgDn, Home/End), → opens, ← closes (or goes
 * to the parent), Enter toggles; Space selects, Shift+↑/↓ extends, Ctrl/⌘+C copies, Esc clears the selection.
 * Click selects a row (and opens or closes it), Ctrl/⌘+click adds, Shift+click selects a range.
 */
export const TreeTable = memo(function TreeTable({
  snapshot,
  pendingWhat,
  columns,
  hierarchy,
  onWanted,
  onToggle,
  sort,
  onSort,
  selected,
  onSelect,
  onCopy,
  onClearSelection,
  resetKey,
  focusRow,
}: Props): React.JSX.Element {
  const idPrefix = useId();
  const [active, setActive] = useState(0);
  const rowCount = snapshot?.rowCount ?? 0;
  // A new filter or sort is a new list: start at its top (the window cache asks for the top one first).
  const rows = useVirtualRows(rowCount, TREE_ROWS, resetKey);
  const { scroller, virtualizer, items } = rows;
  const firstInView = items[0]?.index ?? 0;
  const lastInView = items.at(-1)?.index ?? 0;

  useEffect(() => {
    onWanted(firstInView - PREFETCH_ROWS, lastInView + PREFETCH_ROWS);
  }, [firstInView, lastInView, onWanted]);

  // The active row goes back to the top with the list.
  const [seenResetKey, setSeenResetKey] = useState(resetKey);
  if (seenResetKey !== resetKey) {
    setSeenResetKey(resetKey);
    setActive(0);
  }

  useEffect(() => {
    if (!focusRow) return;
    setActive(focusRow.index);
    virtualizer.scrollToIndex(focusRow.index, { align: 'center' });
  }, [focusRow, virtualizer]);

  const activeIndex = Math.min(active, Math.max(0, rowCount - 1));
  const activeRow = snapshot?.rowAt(activeIndex);

  const moveTo = (index: number, extend = false) => {
    const next = Math.max(0, Math.min(rowCount - 1, index));
    setActive(next);
    virtualizer.scrollToIndex(next, { align: 'auto' });
    const row = snapshot?.rowAt(next);
    if (extend && row) onSelect(next, row, 'range');
  };

  const onKeyDown = (event: React.KeyboardEvent<HTMLDivElement>) => {
    // Keys on the header's sort buttons are theirs.
    if (event.target !== event.currentTarget || !snapshot || rowCount === 0) return;
    const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? 0) / TREE_ROWS.rowHeight) - 2);
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'c') {
      onCopy(activeRow);
      event.preventDefault();
      return;
    }
    switch (event.key) {
      case 'ArrowDown':
        // Shift+↓ starts a range at the active row when nothing is picked yet.
        if (event.shiftKey && activeRow && selected.size === 0) onSelect(activeIndex, activeRow, 'only');
        moveTo(activeIndex + 1, event.shiftKey);
        break;
      case 'ArrowUp':
        if (event.shiftKey && activeRow && selected.size === 0) onSelect(activeIndex, activeRow, 'only');
        moveTo(activeIndex - 1, event.shiftKey);
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
      case ' ':
        if (activeRow) onSelect(activeIndex, activeRow, 'toggle');
        break;
      case 'Escape':
        if (selected.size === 0) return;
        onClearSelection();
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

  const clickRow = useCallback(
    (index: number, row: TreeRow, how: SelectHow) => {
      setActive(index);
      onSelect(index, row, how);
      // A plain click opens or closes as well; with Ctrl/⌘ or Shift it only picks.
      if (how === 'only' && row.hasChildren) onToggle(row);
    },
    [onSelect, onToggle],
  );

  return (
    <VirtualGrid
      rows={rows}
      block="tree"
      role="treegrid"
      label="Billing report"
      aria-multiselectable="true"
      aria-activedescendant={activeRow ? `${idPrefix}-${activeIndex}` : undefined}
      aria-busy={snapshot === null}
      tabIndex={0}
      onKeyDown={onKeyDown}
      style={columnLayout(columns)}
      header={<HeaderCells sort={sort} onSort={onSort} columns={columns} hierarchy={hierarchy} />}
      renderRow={(item, top) => {
        const row = snapshot?.rowAt(item.index);
        return row ? (
          <TreeRowView
            key={row.key}
            id={`${idPrefix}-${item.index}`}
            row={row}
            index={item.index}
            top={top}
            active={item.index === activeIndex}
            selected={selected.has(row.key)}
            columns={columns}
            onClickRow={clickRow}
          />
        ) : (
          <PlaceholderRow key={`placeholder-${item.index}`} index={item.index} top={top} />
        );
      }}
      after={
        snapshot === null ? (
          <Pending className="empty tree__empty" what={pendingWhat} />
        ) : rowCount === 0 ? (
          <p className="empty tree__empty">No billing lines match these filters.</p>
        ) : null
      }
    />
  );
});
