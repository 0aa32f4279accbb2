import type { CurrencyBridge } from '../schemas/month-close';
import { currenciesOf } from './currency-pair';

/** A change with its sign always shown ("+12.5", "-3"), as a bridge reads. */
export const signed = (value: string) => (value.startsWith('-') ? value : `+${value}`);

/**
 * A currency pair's bridges in words, exact decimals, as the command line and the auditor's evidence print them:
 * sales and cost, each before → after (change) = price + quantity + new/lost + other, to the last decimal; then the
 * margin before → after where cost and sales share one currency.
 */
export function bridgeLines(bridge: CurrencyBridge): string[] {
  const split = (name: string, before: string, after: string, change: string, { price, quantity, newLost, other }: CurrencyBridge['effects']) =>
    `${name} ${before} → ${after} (${signed(change)}) = price ${signed(price)}, quantity ${signed(quantity)}, new/lost ${signed(newLost)}, other ${signed(other)}`;
  const { cost } = bridge;
  return [
    `${bridge.currencyKey}  ${split('sales', bridge.salesBefore, bridge.salesAfter, bridge.change, bridge.effects)}`,
    `${bridge.currencyKey}  ${split(`cost (${currenciesOf(bridge.currencyKey).cost})`, cost.before, cost.after, cost.change, cost.effects)}`,
    `${bridge.currencyKey}  ${bridge.margin ? `margin ${bridge.margin.before} → ${bridge.margin.after} (${signed(bridge.margin.change)})` : 'margin: none across two currencies'}`,
  ];
}
