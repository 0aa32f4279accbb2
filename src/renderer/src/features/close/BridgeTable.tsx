import type { CurrencyBridge } from '@shared/schemas/month-close';
import { money } from '@shared/money';
import { amountText, formatCount } from '@renderer/components/format-number';
import { NumberValue } from '@renderer/components/NumberValue';
import { type BridgeMeasure, bridgeAddsUp, bridgeSide } from './change-list';

/** Each effect's column, worded for the sales (unit price) or the cost (unit cost). */
function effectsOf(measure: BridgeMeasure): { key: keyof CurrencyBridge['effects']; label: string; hint: string }[] {
  const unit = measure === 'sales' ? 'unit price' : 'unit cost';
  return [
    { key: 'price', label: 'Price', hint: `${measure === 'sales' ? 'Unit price' : 'Unit cost'} changes: (new ${unit} − old) × new quantity, per product line` },
    { key: 'quantity', label: 'Quantity', hint: `Quantity changes: (new quantity − old) × old ${unit}, per product line` },
    {
      key: 'newLost',
      label: 'New / lost',
      hint: `${measure === 'sales' ? 'Sales' : 'Cost'} of what is new this month, less what was billed last month and is gone`,
    },
    { key: 'other', label: 'Other', hint: `Rounding, and lines whose ${unit} is not one number: what makes the split add up exactly` },
  ];
}

/**
 * The change in sales (or in cost) per currency, split so it adds up exactly: before + price + quantity + new/lost +
 * other = after (sales in the customer currency, cost in the purchase currency; currencies are never added together).
 */
export function BridgeTable({
  bridges,
  label,
  beforeLabel,
  afterLabel,
  measure = 'sales',
  onlyChanged = false,
}: {
  bridges: CurrencyBridge[];
  label: string;
  beforeLabel: string;
  afterLabel: string;
  measure?: BridgeMeasure;
  onlyChanged?: boolean;
}): React.JSX.Element {
  const EFFECTS = effectsOf(measure);
  const word = measure === 'sales' ? 'Sales' : 'Cost';
  // A restatement usually touches one or two currencies: the untouched ones are counted, not listed.
  const sides = bridges.map((bridge) => ({ key: bridge.currencyKey, side: bridgeSide(bridge, measure) }));
  const shown = onlyChanged
    ? sides.filter(({ side }) => !money(side.change).isZero() || Object.values(side.effects).some((effect) => !money(effect).isZero()))
    : sides;
  const same = bridges.length - shown.length;
  return (
    <>
      <div className="bridge">
        <table className="grid bridge__table" aria-label={label}>
          <thead>
            <tr>
              <th scope="col">Currency</th>
              <th scope="col" className="num" title={`${word} in ${beforeLabel}`}>
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
              <th scope="col" className="num" title={`${word} in ${afterLabel}`}>
                After
              </th>
              <th scope="col">
                <span className="visually-hidden">Adds up</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map(({ key, side }) => {
              const { currency } = side;
              const addsUp = bridgeAddsUp(side);
              return (
                <tr key={key} data-testid="bridge-row">
                  <th scope="row">{key}</th>
                  <td className="num">
                    <NumberValue value={amountText(side.before, currency)} />
                    <span className="ccy">{currency}</span>
                  </td>
                  {EFFECTS.map((effect) => (
                    <td key={effect.key} className="num">
                      <NumberValue value={amountText(side.effects[effect.key], currency)} />
                    </td>
                  ))}
                  <td className="num bridge__change">
                    <NumberValue value={amountText(side.change, currency)} />
                  </td>
                  <td className="num">
                    <NumberValue value={amountText(side.after, currency)} />
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

/**
 * The margin (sales − cost) per currency before and after, where a pair's cost and sales are in one currency; a
 * pair bought in one currency and sold in another has no margin in one currency, and says so.
 */
export function MarginTable({ bridges, beforeLabel, afterLabel }: { bridges: CurrencyBridge[]; beforeLabel: string; afterLabel: string }): React.JSX.Element {
  return (
    <div className="bridge">
      <table className="grid bridge__table" aria-label="Margin per currency">
        <thead>
          <tr>
            <th scope="col">Currency</th>
            <th scope="col" className="num" title={`Sales − cost in ${beforeLabel}`}>
              Before
            </th>
            <th scope="col" className="num">
              Change
            </th>
            <th scope="col" className="num" title={`Sales − cost in ${afterLabel}`}>
              After
            </th>
          </tr>
        </thead>
        <tbody>
          {bridges.map((bridge) => {
            const currency = bridgeSide(bridge, 'sales').currency;
            const { margin } = bridge;
            return (
              <tr key={bridge.currencyKey} data-testid="margin-row">
                <th scope="row">{bridge.currencyKey}</th>
                {margin ? (
                  <>
                    <td className="num">
                      <NumberValue value={amountText(margin.before, currency)} />
                      <span className="ccy">{currency}</span>
                    </td>
                    <td className="num bridge__change">
                      <NumberValue value={amountText(margin.change, currency)} />
                    </td>
                    <td className="num">
                      <NumberValue value={amountText(margin.after, currency)} />
                      <span className="ccy">{currency}</span>
                    </td>
                  </>
                ) : (
                  <td colSpan={3} className="muted">
                    Bought in one currency and sold in another: no margin across currencies (see the reference currency).
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
