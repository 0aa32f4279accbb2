import { marginPercent, money, type Money } from '../money';

/** A margin as exact text and its percentage of sales to two places; both null where they do not exist. */
export interface Margin {
  margin: string | null;
  marginPercent: string | null;
}

/**
 * The margin of amounts in one currency: sales − cost, exactly, and its share of sales (null without sales). Where
 * cost and sales are in two currencies (`oneCurrency` false) there is none: amounts of two currencies are never
 * subtracted. Every margin Closebook reports is this one.
 */
export function marginOf(cost: string | Money, sales: string | Money): Margin & { margin: string };
export function marginOf(cost: string | Money, sales: string | Money, oneCurrency: boolean): Margin;
export function marginOf(cost: string | Money, sales: string | Money, oneCurrency = true): Margin {
  if (!oneCurrency) return { margin: null, marginPercent: null };
  const [costAmount, salesAmount] = [money(cost), money(sales)];
  const percent = marginPercent(costAmount, salesAmount);
  return { margin: salesAmount.minus(costAmount).toFixed(), marginPercent: percent === null ? null : percent.toFixed(2) };
}
