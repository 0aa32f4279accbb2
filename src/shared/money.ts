import Decimal from 'decimal.js';

/**
 * Money stays exact: the service sends decimal strings, we add them as decimals and turn them into JS numbers
 * only at the edges (an Excel cell, a formatted label). Never add amounts of two currencies together.
 */
export const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_EVEN });
export type Money = InstanceType<typeof Money>;

const DECIMAL_PATTERN = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

export function isDecimalString(value: string): boolean {
  return DECIMAL_PATTERN.test(value.trim());
}

export function money(value: string | number | Money): Money {
  return new Money(value);
}

export function sumMoney(values: Iterable<string | Money>): Money {
  let total = new Money(0);
  for (const value of values) total = total.plus(value);
  return total;
}

/** Margin % of sales; null when there are no sales to divide by. */
export function marginPercent(cost: Money, sales: Money): Money | null {
  if (sales.isZero()) return null;
  return sales.minus(cost).dividedBy(sales).times(100);
}
