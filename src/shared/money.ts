import Decimal from 'decimal.js';

/**
 * Money stays exact: the service sends decimal strings, we add them as decimals and turn them into JS numbers
 * only at the edges (an Excel cell, a formatted label). Never add amounts of two currencies together.
 */
export const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_EVEN });
export type Money = InstanceType<typeof Money>;

export function money(value: string | number | Money): Money {
  return new Money(value);
}

/** Margin % of sales; null when there are no sales to divide by. */
export function marginPercent(cost: Money, sales: Money): Money | null {
  if (sales.isZero()) return null;
  return sales.minus(cost).dividedBy(sales).times(100);
}
