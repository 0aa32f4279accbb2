import { money } from '@shared/money';

/**
 * Exact decimals as whole numbers of 10^-scale (BigInt), for the invoice run's per-line arithmetic. A month's
 * 601,268 invoice lines made some 30 million decimal.js objects there: 15–19 s of a 1,000,000-line run, the main
 * process's event loop held all along; on whole numbers, about 5 s. The sums, products and roundings are as exact.
 */
export interface Fixed {
  units: bigint;
  scale: number;
}

const PLAIN = /^(-?)(\d+)(?:\.(\d+))?$/;

/** A decimal's text as whole units of its own scale ("12.50" → 1250n at 2). Any other notation is read by decimal.js first. */
export function fixed(text: string): Fixed {
  const match = PLAIN.exec(text) ?? PLAIN.exec(money(text).toFixed());
  if (!match) throw new RangeError(`"${text}" is not a decimal number.`);
  const [, sign, whole, fraction = ''] = match;
  const units = BigInt(`${whole}${fraction}`);
  return { units: sign ? -units : units, scale: fraction.length };
}

const POWERS: bigint[] = [];
/** 10^n as a BigInt. */
export function tenTo(n: number): bigint {
  return (POWERS[n] ??= 10n ** BigInt(n));
}

/** `value`'s units at a scale at least its own. */
export function unitsAt(value: Fixed, scale: number): bigint {
  if (scale < value.scale) throw new RangeError(`A decimal of ${value.scale} places cannot be held at ${scale}.`);
  return value.units * tenTo(scale - value.scale);
}

/**
 * Decimals' texts as units of one scale: the widest of theirs, and at least `least`. A reduce, not a spread into
 * Math.max: one customer may have 300,000 lines.
 */
export function atCommonScale(texts: readonly string[], least = 0): { units: bigint[]; scale: number } {
  const values = texts.map(fixed);
  const scale = values.reduce((widest, value) => Math.max(widest, value.scale), least);
  return { units: values.map((value) => unitsAt(value, scale)), scale };
}

/** The whole number nearest to numerator / denominator, a half away from zero (denominator > 0). */
export function dividedHalfUp(numerator: bigint, denominator: bigint): bigint {
  const magnitude = numerator < 0n ? -numerator : numerator;
  const quotient = (magnitude * 2n + denominator) / (denominator * 2n);
  return numerator < 0n ? -quotient : quotient;
}

/** The whole number at or below numerator / denominator (denominator > 0). */
export function dividedDown(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator; // toward zero
  return numerator < 0n && quotient * denominator !== numerator ? quotient - 1n : quotient;
}

/** Units as text with exactly `scale` decimals ("-0.05", "120.00", "7" at 0); a zero carries no sign. */
export function fixedText(units: bigint, scale: number): string {
  const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
  const text = scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return units < 0n ? `-${text}` : text;
}

/** Units as their shortest text, as decimal.js's toFixed() gives it ("1.500" → "1.5", "-0.000" → "0"). */
export function shortestText(value: Fixed): string {
  let { units, scale } = value;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  return fixedText(units, scale);
}
