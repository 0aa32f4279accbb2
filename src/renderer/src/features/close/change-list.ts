import { currenciesOf } from '@shared/model/currency-pair';
import { type Money, money } from '@shared/money';
import type { ChangeKind, ChangeSortKey, ChangeView, CurrencyBridge, MonthChange } from '@shared/schemas/month-close';

export const KIND_LABELS: Record<ChangeKind, string> = { new: 'New', lost: 'Lost', quantity: 'Quantity', price: 'Unit price', amount: 'Amount' };
export const LEVEL_LABELS: Record<MonthChange['level'], string> = {
  organization: 'Organization',
  service: 'Service',
  subscription: 'Subscription',
  line: 'Product',
};

/** How a view of the changes is sorted: a column, and its direction. */
export type ChangeSort = Pick<ChangeView, 'sort' | 'direction'>;

/** The change in sales a change makes: its price, quantity, new/lost and other effects together (after − before). */
export function effectOf(change: Pick<MonthChange, 'effects'>): Money {
  const { price, quantity, newLost, other } = change.effects;
  return money(price).plus(quantity).plus(newLost).plus(other);
}

/** Money columns sort within their currency pair, biggest first when first clicked (the main process sorts: change-views.ts). */
const MONEY_KEYS = new Set<ChangeSortKey>(['before', 'after', 'effect']);

/** The next sort when a header is clicked: the same column flips; a new one starts A→Z for text, biggest first for money. */
export function nextChangeSort(current: ChangeSort, key: ChangeSortKey): ChangeSort {
  if (current.sort === key) return { sort: key, direction: current.direction === 'asc' ? 'desc' : 'asc' };
  return { sort: key, direction: MONEY_KEYS.has(key) ? 'desc' : 'asc' };
}

/** What a bridge splits: a currency pair's sales (in the customer currency) or its cost (in the purchase currency). */
export type BridgeMeasure = 'sales' | 'cost';

/** One side of a currency pair's bridge: before, after, the change and its effects, in one currency. */
export interface BridgeSide {
  currency: string;
  before: string;
  after: string;
  change: string;
  effects: CurrencyBridge['effects'];
}

export function bridgeSide(bridge: CurrencyBridge, measure: BridgeMeasure): BridgeSide {
  const { cost, sales } = currenciesOf(bridge.currencyKey);
  return measure === 'sales'
    ? { currency: sales, before: bridge.salesBefore, after: bridge.salesAfter, change: bridge.change, effects: bridge.effects }
    : { currency: cost, ...bridge.cost };
}

/** Before + price + quantity + new/lost + other = after, exactly: the bridge's promise, checked on screen. */
export function bridgeAddsUp(side: BridgeSide): boolean {
  const { price, quantity, newLost, other } = side.effects;
  return money(side.before).plus(price).plus(quantity).plus(newLost).plus(other).equals(side.after) && money(side.after).minus(side.before).equals(side.change);
}
