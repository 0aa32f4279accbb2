import { useEffect, useRef, useState } from 'react';
import type { CurrencyTotalRow } from '../../../../shared/contract';
import { formatAmount } from './format';

/** Whether the element's content is taller than the element (it scrolls), kept true to size as the window resizes. */
function useOverflowing(ref: React.RefObject<HTMLElement | null>): boolean {
  const [overflowing, setOverflowing] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    // A hidden row is 24 px; a pixel or two is only a border.
    const measure = () => setOverflowing(element.scrollHeight > element.clientHeight + 4);
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    if (element.firstElementChild) observer.observe(element.firstElementChild);
    return () => observer.disconnect();
  }, [ref]);
  return overflowing;
}

/** Totals per currency group of what the filters keep (never added across currencies). */
export function CurrencyTotalsTable({ totals }: { totals: CurrencyTotalRow[] | null }): React.JSX.Element {
  const scroller = useRef<HTMLDivElement>(null);
  // The box holds a few rows so the tree keeps its room; say so when more groups are below.
  const overflowing = useOverflowing(scroller);
  return (
    <div className="totals">
      <div className="totals__scroll" ref={scroller}>
        <table className="grid totals__table" aria-label="Totals per currency" aria-busy={totals === null}>
          <thead>
            <tr>
              <th>Currency</th>
              <th className="num">Lines</th>
              <th className="num">Cost</th>
              <th className="num">Sales</th>
              <th className="num">Margin</th>
              <th className="num">Margin %</th>
            </tr>
          </thead>
          <tbody>
            {(totals ?? []).map((total) => (
              <tr key={total.currencyKey} data-testid="currency-total">
                <td>{total.currencyKey}</td>
                <td className="num">{total.lines.toLocaleString()}</td>
                <td className="num">{formatAmount(total.cost)}</td>
                <td className="num">{formatAmount(total.sales)}</td>
                <td className="num">{total.margin === null ? <span className="muted" title="Cost and sales are in different currencies">n/a</span> : formatAmount(total.margin)}</td>
                <td className="num">{total.marginPercent ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {overflowing && totals ? <p className="totals__more muted">{totals.length} currency groups: scroll the totals for the rest.</p> : null}
    </div>
  );
}
