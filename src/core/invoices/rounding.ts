import { minorUnits } from '@shared/currency';
import { Money, money } from '@shared/money';

/**
 * Exact amounts rounded to a currency's minor unit so that they add up to a total exactly: each is rounded down,
 * and the units the total still needs go one each to the amounts with the largest remainders (ties: the earlier
 * amount first, so a run made again rounds the same). No amount moves by a whole unit or more, and none moves
 * between the groups allocated separately (customers, invoices): each is allocated on its own.
 *
 * `total` defaults to the exact sum rounded once, half away from zero (as the Invoicing view rounds a customer).
 * A negative total is allocated as the mirror of the positive one, so a credit rounds as the invoice it reverses.
 */
export function allocateRounded(exact: readonly string[], currency: string, total?: string): { amounts: string[]; total: string } {
  const sum = exact.reduce((running, amount) => running.plus(amount), money(0));
  const places = minorUnits(currency);
  const rounded = money(total ?? sum.toDecimalPlaces(places, Money.ROUND_HALF_UP));
  if (rounded.isNegative()) {
    const mirrored = allocatePositive(
      exact.map((amount) => money(amount).negated().toFixed()),
      places,
      rounded.negated(),
    );
    return { amounts: mirrored.map((amount) => money(amount).negated().toFixed(places)), total: rounded.toFixed(places) };
  }
  return { amounts: allocatePositive(exact, places, rounded), total: rounded.toFixed(places) };
}

function allocatePositive(exact: readonly string[], places: number, rounded: Money): string[] {
  const scale = money(10).pow(places);
  const units = exact.map((amount) => money(amount).times(scale));
  const floors = units.map((value) => value.floor());
  const needed = rounded
    .times(scale)
    .minus(floors.reduce((running, value) => running.plus(value), money(0)))
    .toNumber();
  if (!Number.isInteger(needed) || needed < 0 || needed > exact.length)
    throw new RangeError(`A total of ${rounded.toFixed(places)} cannot be reached by rounding these ${exact.length} amounts.`);
  const byRemainder = units
    .map((value, index) => ({ index, remainder: value.minus(floors[index] as Money) }))
    .sort((a, b) => b.remainder.comparedTo(a.remainder) || a.index - b.index);
  const amounts = floors.map((value) => value);
  for (const { index } of byRemainder.slice(0, needed)) amounts[index] = (amounts[index] as Money).plus(1);
  return amounts.map((value) => value.dividedBy(scale).toFixed(places));
}
