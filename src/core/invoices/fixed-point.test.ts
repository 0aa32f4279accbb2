import { describe, expect, it } from 'vitest';
import { seededRandom } from '@testing/seeded-random';
import { Money, money } from '@shared/money';
import { dividedDown, dividedHalfUp, fixed, fixedText, shortestText, unitsAt } from './fixed-point';

/** A decimal as DuckDB writes one: either sign, up to 12 whole digits, up to 8 decimals (trailing zeros kept), zeros too. */
function decimal(next: () => number): string {
  const whole = String(Math.floor(next() * 10 ** Math.floor(next() * 13)));
  const places = Math.floor(next() * 9);
  const fraction = places ? `.${String(Math.floor(next() * 10 ** places)).padStart(places, '0')}` : '';
  return `${next() < 0.3 ? '-' : ''}${whole}${fraction}`;
}

describe("fixed-point decimals (the invoice run's arithmetic), against decimal.js", () => {
  it('reads and writes 20,000 decimals as decimal.js does: shortest, and at any scale at least their own', () => {
    const next = seededRandom(11);
    for (let case_ = 0; case_ < 20_000; case_ += 1) {
      const text = decimal(next);
      const value = fixed(text);
      expect(shortestText(value)).toBe(money(text).toFixed());
      const scale = value.scale + Math.floor(next() * 4);
      expect(fixedText(unitsAt(value, scale), scale)).toBe(money(text).toFixed(scale));
    }
  });

  it('divides 20,000 pairs to whole numbers: half away from zero, and down', () => {
    const next = seededRandom(12);
    for (let case_ = 0; case_ < 20_000; case_ += 1) {
      const numerator = fixed(decimal(next)).units;
      const denominator = fixed(decimal(next).replace('-', '')).units || 1n;
      const exact = money(numerator.toString()).dividedBy(denominator.toString());
      expect(dividedHalfUp(numerator, denominator).toString()).toBe(exact.toDecimalPlaces(0, Money.ROUND_HALF_UP).toFixed());
      expect(dividedDown(numerator, denominator).toString()).toBe(exact.floor().toFixed());
    }
    expect([dividedHalfUp(5n, 2n), dividedHalfUp(-5n, 2n), dividedHalfUp(-4n, 3n), dividedDown(-1n, 3n), dividedDown(-3n, 3n)]).toEqual([
      3n,
      -3n,
      -1n,
      -1n,
      -1n,
    ]);
  });

  it('writes a zero without a sign, pads small amounts, and reads other notations through decimal.js', () => {
    expect([fixedText(-5n, 2), fixedText(0n, 2), fixedText(-0n, 3), fixedText(7n, 0), fixedText(-1205n, 2)]).toEqual(['-0.05', '0.00', '0.000', '7', '-12.05']);
    expect(shortestText(fixed('-0.000'))).toBe('0');
    expect(fixed('1e-7')).toEqual({ units: 1n, scale: 7 });
    expect(() => fixed('twelve')).toThrow();
    expect(() => unitsAt(fixed('1.25'), 1)).toThrow(RangeError);
  });
});
