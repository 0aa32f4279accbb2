import { minorUnits } from '@shared/currency';
import { atCommonScale, dividedDown, dividedHalfUp, fixed, fixedText, tenTo, unitsAt } from './fixed-point';

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
  const { units, scale } = atCommonScale(exact, minorUnits(currency));
  return allocateUnits(units, scale, currency, total);
}

/**
 * allocateRounded of amounts given as whole units of 10^-scale (scale at least the currency's minor unit): the
 * amounts and the total at the minor unit, as text.
 */
export function allocateUnits(exact: readonly bigint[], scale: number, currency: string, total?: string): { amounts: string[]; total: string } {
  const places = minorUnits(currency);
  const step = tenTo(scale - places); // one minor unit, in units of the exact amounts
  const sum = exact.reduce((running, amount) => running + amount, 0n);
  const rounded = total === undefined ? dividedHalfUp(sum, step) : minorUnitsOf(total, places);
  // A sum below zero that rounds to zero is allocated as a credit, as is a total written "-0.00".
  const negative = total === undefined ? sum < 0n : rounded < 0n || total.trim().startsWith('-');
  const sign = negative ? -1n : 1n;
  const amounts = allocatePositive(
    exact.map((amount) => amount * sign),
    step,
    rounded * sign,
    places,
  );
  return { amounts: amounts.map((amount) => fixedText(amount * sign, places)), total: fixedText(rounded, places) };
}

/** A total's text in minor units; one the minor unit cannot hold exactly cannot be reached by rounding. */
function minorUnitsOf(total: string, places: number): bigint {
  const value = fixed(total);
  if (value.scale <= places) return unitsAt(value, places);
  const step = tenTo(value.scale - places);
  if (value.units % step !== 0n) throw new RangeError(`A total of ${total} cannot be reached by rounding amounts to ${places} decimals.`);
  return value.units / step;
}

function allocatePositive(exact: readonly bigint[], step: bigint, rounded: bigint, places: number): bigint[] {
  const floors = exact.map((amount) => dividedDown(amount, step));
  const needed = rounded - floors.reduce((running, value) => running + value, 0n);
  if (needed < 0n || needed > BigInt(exact.length))
    throw new RangeError(`A total of ${fixedText(rounded, places)} cannot be reached by rounding these ${exact.length} amounts.`);
  const byRemainder = exact
    .map((amount, index) => ({ index, remainder: amount - (floors[index] as bigint) * step }))
    .sort((a, b) => (a.remainder === b.remainder ? a.index - b.index : a.remainder > b.remainder ? -1 : 1));
  const amounts = [...floors];
  for (const { index } of byRemainder.slice(0, Number(needed))) amounts[index] = (amounts[index] as bigint) + 1n;
  return amounts;
}
