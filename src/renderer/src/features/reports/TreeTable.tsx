import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState } from 'react';
import { isSingleCurrency, marginOf, marginPercentOf, type SortKey, type TreeNode, type TreeSort } from '../../../../shared/report-model';
import { formatAmount, formatQuantity, formatUnits } from './format';

interface Props {
  roots: TreeNode[];
  scale: number;
  expanded: Set<string>;
  onToggle: (key: string) => void;
  sort: TreeSort;
  onSort: (key: SortKey) => void;
}

interface VisibleRow {
  node: TreeNode;
  depth: number;
}

const COLUMNS: { key: SortKey; label: string; numeric?: boolean }[] = [
  { key: 'label', label: 'Organization › service › subscription › line' },
  { key: 'quantity', label: 'Quantity', numeric: true },
  { key: 'cost', label: 'Cost', numeric: true },
  { key: 'sales', label: 'Sales', numeric: true },
  { key: 'margin', label: 'Margin', numeric: true },
  { key: 'marginPercent', label: 'Margin %', numeric: true },
];

function flatten(roots: TreeNode[], expanded: Set<string>): VisibleRow[] {
  const rows: VisibleRow[] = [];
  const walk = (nodes: TreeNode[], depth: number) => {
    for (const node of nodes) {
      rows.push({ node, depth });
      if (node.children.length && expanded.has(node.key)) walk(node.children, depth + 1);
    }
  };
  walk(roots, 0);
  return rows;
}

function MismatchFlag({ node }: { node: TreeNode }): React.JSX.Element | null {
  if (!node.mismatch) return null;
  const below = node.level === 'service' ? 'its subscriptions' : 'its billing lines';
  const text = `Stated total differs from the sum of ${below}: cost stated ${formatAmount(node.mismatch.statedCost)}, sum ${formatAmount(node.mismatch.sumCost)}; sales stated ${formatAmount(node.mismatch.statedSales)}, sum ${formatAmount(node.mismatch.sumSales)}. Closebook shows the sum of the lines.`;
  return (
    <span className="mismatch" title={text} aria-label={text} role="img" data-testid="mismatch-flag">
      ⚠
    </span>
  );
}

/**
 * The report tree, virtualized: only the rows on screen exist in the DOM, so 100,000 lines scroll smoothly.
 * Keyboard: ↑/↓ move, → opens, ← closes, Enter toggles.
 */
export function TreeTable({ roots, scale, expanded, onToggle, sort, onSort }: Props): React.JSX.Element {
  const rows = useMemo(() => flatten(roots, expanded), [roots, expanded]);
  const scroller = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState(0);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => 26, overscan: 24 });

  const onKeyDown = (event: React.KeyboardEvent) => {
    const row = rows[active];
    let next = active;
    if (event.key === 'ArrowDown') next = Math.min(rows.length - 1, active + 1);
    else if (event.key === 'ArrowUp') next = Math.max(0, active - 1);
    else if (row && (event.key === 'Enter' || (event.key === 'ArrowRight' && !expanded.has(row.node.key)) || (event.key === 'ArrowLeft' && expanded.has(row.node.key)))) {
      if (row.node.children.length) onToggle(row.node.key);
    } else return;
    event.preventDefault();
    setActive(next);
    virtualizer.scrollToIndex(next);
  };

  return (
    <div className="tree" role="treegrid" aria-label="Billing report" aria-rowcount={rows.length} tabIndex={0} onKeyDown={onKeyDown}>
      <div className="tree__row tree__row--head" role="row">
        {COLUMNS.map((column) => (
          <div key={column.key} role="columnheader" className={column.numeric ? 'num' : undefined} aria-sort={sort.key === column.key ? (sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'}>
            <button type="button" className="sort" onClick={() => onSort(column.key)}>
              {column.label}
              {sort.key === column.key ? (sort.direction === 'asc' ? ' ▲' : ' ▼') : ''}
            </button>
          </div>
        ))}
      </div>
      <div className="tree__body" ref={scroller}>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const { node, depth } = rows[item.index] as VisibleRow;
            const open = expanded.has(node.key);
            const single = isSingleCurrency(node.currencyKey);
            const [costCurrency, salesCurrency = costCurrency] = node.currencyKey.split('→') as [string, string?];
            return (
              <div
                key={node.key}
                role="row"
                aria-level={depth + 1}
                aria-expanded={node.children.length ? open : undefined}
                className={`tree__row tree__row--${node.level}${item.index === active ? ' tree__row--active' : ''}`}
                style={{ position: 'absolute', top: 0, transform: `translateY(${item.start}px)`, height: item.size, width: '100%' }}
                onClick={() => {
                  setActive(item.index);
                  if (node.children.length) onToggle(node.key);
                }}
              >
                <div role="gridcell" className="tree__name" style={{ paddingLeft: 8 + depth * 18 }}>
                  <span className="tree__toggle" aria-hidden="true">{node.children.length ? (open ? '▾' : '▸') : ''}</span>
                  <span className="tree__label">{node.label || '(no name)'}</span>
                  {node.detail ? <span className="tree__detail">{node.detail}</span> : null}
                  {node.level === 'organization' ? <span className="tag">{node.currencyKey}</span> : null}
                  <MismatchFlag node={node} />
                </div>
                <div role="gridcell" className="num">{formatQuantity(node.quantity)}</div>
                <div role="gridcell" className="num">
                  {formatUnits(node.cost, scale)} <span className="ccy">{costCurrency}</span>
                </div>
                <div role="gridcell" className="num">
                  {formatUnits(node.sales, scale)} <span className="ccy">{salesCurrency}</span>
                </div>
                <div role="gridcell" className="num">{single ? formatAmount(marginOf(node, node.currencyKey, scale)) : <span className="muted" title="Cost and sales are in different currencies">n/a</span>}</div>
                <div role="gridcell" className="num">{single ? marginPercentOf(node, node.currencyKey, scale) : ''}</div>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
