import { useEffect, useRef, useState } from 'react';
import type { CurrencyTotalRow } from '@shared/contract';
import { AmountHeaderCells } from '@renderer/components/AmountHeaderCells';
import { currenciesOf } from '@shared/model/currency-pair';
import { amountText, formatCount, percentText } from '@renderer/components/format-number';
import { NumberValue } from '@renderer/components/NumberValue';

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

const DIFFERENT_CURRENCIES = 'Cost and sales are in different currencies';

/** Totals per currency group of what the filters keep (never added across currencies), and a button to copy them. */
export function CurrencyTotalsTable({
  totals,
  onCopy,
  copying,
}: {
  totals: CurrencyTotalRow[] | null;
  onCopy: () => void;
  copying: boolean;
}): React.JSX.Element {
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
              <AmountHeaderCells linesLabel="Lines" />
            </tr>
          </thead>
          <tbody>
            {(totals ?? []).map((total) => {
              const { cost, sales } = currenciesOf(total.currencyKey);
              return (
                <tr key={total.currencyKey} data-testid="currency-total">
                  <td>{total.currencyKey}</td>
                  <td className="num">{formatCount(total.lines)}</td>
                  <td className="num">
                    <NumberValue value={amountText(total.cost, cost)} />
                  </td>
                  <td className="num">
                    <NumberValue value={amountText(total.sales, sales)} />
                  </td>
                  <td className="num">
                    {total.margin === null ? (
                      <span className="muted" title={DIFFERENT_CURRENCIES}>
                        n/a
                      </span>
                    ) : (
                      <NumberValue value={amountText(total.margin, sales)} />
                    )}
                  </td>
                  <td className="num">{total.marginPercent === null ? '' : <NumberValue value={percentText(total.marginPercent)} />}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <div className="totals__side">
        <button type="button" onClick={onCopy} disabled={!totals?.length || copying} title="The totals as exact values, to paste into a spreadsheet">
          Copy totals
        </button>
        {overflowing && totals ? <p className="totals__more muted">{totals.length} currency groups: scroll the totals for the rest.</p> : null}
      </div>
    </div>
  );
}
