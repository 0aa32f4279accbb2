import { foldForSearch } from '@shared/search-fold';
import { currenciesOf } from '@shared/model/currency-pair';
import { type Money, money } from '@shared/money';
import type { CurrencyBridge, MonthChange } from '@shared/schemas/month-close';
import { userLocale } from '@renderer/components/format-time';

export type ChangeKind = MonthChange['kind'];
export const CHANGE_KINDS: readonly ChangeKind[] = ['new', 'lost', 'quantity', 'price', 'amount'];
export const KIND_LABELS: Record<ChangeKind, string> = { new: 'New', lost: 'Lost', quantity: 'Quantity', price: 'Unit price', amount: 'Amount' };
export const LEVEL_LABELS: Record<MonthChange['level'], string> = {
  organization: 'Organization',
  service: 'Service',
  subscription: 'Subscription',
  line: 'Product',
};

export interface ChangeFilter {
  kind?: ChangeKind | undefined;
  /** Organization, customer number, service, subscription or product (any case). */
  text?: string | undefined;
}

export type ChangeSortKey = 'kind' | 'level' | 'organization' | 'place' | 'currency' | 'before' | 'after' | 'effect';
export interface ChangeSort {
  key: ChangeSortKey;
  direction: 'asc' | 'desc';
}

/** The change in sales a change makes: its price, quantity, new/lost and other effects together (after − before). */
export function effectOf(change: Pick<MonthChange, 'effects'>): Money {
  const { price, quantity, newLost, other } = change.effects;
  return money(price).plus(quantity).plus(newLost).plus(other);
}

/** How many changes there are of each kind. */
export function kindCounts(changes: readonly MonthChange[]): Record<ChangeKind, number> {
  const counts: Record<ChangeKind, number> = { new: 0, lost: 0, quantity: 0, price: 0, amount: 0 };
  for (const change of changes) counts[change.kind] += 1;
  return counts;
}

export function filterChanges(changes: readonly MonthChange[], filter: ChangeFilter): MonthChange[] {
  const text = foldForSearch(filter.text?.trim() ?? '');
  return changes.filter((change) => {
    if (filter.kind && change.kind !== filter.kind) return false;
    if (!text) return true;
    return [change.organization, change.customerNumber, change.service, change.subscription, change.product].some((value) =>
      value ? foldForSearch(value).includes(text) : false,
    );
  });
}

const collator = new Intl.Collator(userLocale, { numeric: true, sensitivity: 'base' });

/** Money columns compare within one currency pair, never across: the pair orders first, then the amount. */
const MONEY_KEYS = new Set<ChangeSortKey>(['before', 'after', 'effect']);

function amountOf(change: MonthChange, key: ChangeSortKey): Money | null {
  if (key === 'effect') return effectOf(change);
  const values = key === 'before' ? change.before : change.after;
  return values ? money(values.sales) : null;
}

function textOf(change: MonthChange, key: ChangeSortKey): string {
  switch (key) {
    case 'kind':
      return String(CHANGE_KINDS.indexOf(change.kind));
    case 'level':
      return String(Object.keys(LEVEL_LABELS).indexOf(change.level));
    case 'place':
      return [change.service, change.subscription, change.product].filter(Boolean).join(' › ');
    case 'currency':
      return change.currencyKey;
    default:
      return change.organization;
  }
}

/**
 * The changes in a stable order: amounts within their currency pair (a missing side last in either direction),
 * text A→Z by the user's locale, organizations in the order the comparison lists them (the month's name order, its
 * profile's, as every other list of the month); ties by organization, so equal keys keep a readable order.
 */
export function sortChanges(changes: readonly MonthChange[], sort: ChangeSort): MonthChange[] {
  const sign = sort.direction === 'asc' ? 1 : -1;
  const keyed = changes.map((change, index) => ({
    change,
    index,
    amount: MONEY_KEYS.has(sort.key) ? amountOf(change, sort.key) : null,
    text: textOf(change, sort.key),
  }));
  keyed.sort((a, b) => {
    if (MONEY_KEYS.has(sort.key)) {
      const pair = collator.compare(a.change.currencyKey, b.change.currencyKey);
      if (pair !== 0) return pair;
      if (a.amount === null || b.amount === null) {
        if (a.amount !== b.amount) return a.amount === null ? 1 : -1;
      } else {
        const order = a.amount.comparedTo(b.amount);
        if (order !== 0) return order * sign;
      }
    } else {
      const order = sort.key === 'organization' ? a.index - b.index : collator.compare(a.text, b.text);
      if (order !== 0) return order * sign;
    }
    return a.index - b.index;
  });
  return keyed.map((entry) => entry.change);
}

/** The next sort when a header is clicked: the same column flips; a new one starts A→Z for text, biggest first for money. */
export function nextChangeSort(current: ChangeSort, key: ChangeSortKey): ChangeSort {
  if (current.key === key) return { key, direction: current.direction === 'asc' ? 'desc' : 'asc' };
  return { key, direction: MONEY_KEYS.has(key) ? 'desc' : 'asc' };
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
