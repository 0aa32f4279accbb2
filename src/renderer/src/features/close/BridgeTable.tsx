import type { CurrencyBridge } from '@shared/schemas/month-close';
import { money } from '@shared/money';
import { currenciesOf } from '@shared/model/currency-pair';
import { amountText, formatCount } from '@renderer/components/format-number';
import { NumberValue } from '@renderer/components/NumberValue';
import { bridgeAddsUp } from './change-list';

const EFFECTS: { key: keyof CurrencyBridge['effects']; label: string; hint: string }[] = [
  { key: 'price', label: 'Price', hint: 'Unit price changes: (new unit price − old) × new quantity, per product line' },
  { key: 'quantity', label: 'Quantity', hint: 'Quantity changes: (new quantity − old) × old unit price, per product line' },
  { key: 'newLost', label: 'New / lost', hint: 'Sales of what is new this month, less what was billed last month and is gone' },
  { key: 'other', label: 'Other', hint: 'Rounding, and lines whose unit price is not one number: what makes the split add up exactly' },
];

/**
 * The change in sales per currency, split so it adds up exactly: sales before + price + quantity + new/lost +
 * other = sales after (in the customer currency; currencies are never added together).
 */
export function BridgeTable({
  bridges,
  label,
  beforeLabel,
  afterLabel,
  onlyChanged = false,
}: {
  bridges: CurrencyBridge[];
  label: string;
  beforeLabel: string;
  afterLabel: string;
  onlyChanged?: boolean;
}): React.JSX.Element {
  // A restatement usually touches one or two currencies: the untouched ones are counted, not listed.
  const shown = onlyChanged
    ? bridges.filter((bridge) => !money(bridge.change).isZero() || Object.values(bridge.effects).some((effect) => !money(effect).isZero()))
    : bridges;
  const same = bridges.length - shown.length;
  return (
    <>
      <div className="bridge">
        <table className="grid bridge__table" aria-label={label}>
          <thead>
            <tr>
              <th scope="col">Currency</th>
              <th scope="col" className="num" title={`Sales in ${beforeLabel}`}>
                Before
              </th>
              {EFFECTS.map((effect) => (
                <th key={effect.key} scope="col" className="num" title={effect.hint}>
                  {effect.label}
                </th>
              ))}
              <th scope="col" className="num">
                Change
              </th>
              <th scope="col" className="num" title={`Sales in ${afterLabel}`}>
                After
              </th>
              <th scope="col">
                <span className="visually-hidden">Adds up</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((bridge) => {
              const currency = currenciesOf(bridge.currencyKey).sales;
              const addsUp = bridgeAddsUp(bridge);
              return (
                <tr key={bridge.currencyKey} data-testid="bridge-row">
                  <th scope="row">{bridge.currencyKey}</th>
                  <td className="num">
                    <NumberValue value={amountText(bridge.salesBefore, currency)} />
                    <span className="ccy">{currency}</span>
                  </td>
                  {EFFECTS.map((effect) => (
                    <td key={effect.key} className="num">
                      <NumberValue value={amountText(bridge.effects[effect.key], currency)} />
                    </td>
                  ))}
                  <td className="num bridge__change">
                    <NumberValue value={amountText(bridge.change, currency)} />
                  </td>
                  <td className="num">
                    <NumberValue value={amountText(bridge.salesAfter, currency)} />
                    <span className="ccy">{currency}</span>
                  </td>
                  <td
                    className={addsUp ? 'bridge__check' : 'bridge__check bridge__check--off'}
                    title={addsUp ? 'Before + every effect = after, to the last decimal' : 'The parts do not add up to the change'}
                  >
                    {addsUp ? '✓' : '≠'}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {same > 0 ? <p className="muted bridge__same">{same === 1 ? 'One other currency is' : `${formatCount(same)} other currencies are`} unchanged.</p> : null}
    </>
  );
}
