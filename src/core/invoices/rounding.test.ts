import { describe, expect, it } from 'vitest';
import { seededRandom } from '@testing/seeded-random';
import { Money, money } from '@shared/money';
import { minorUnits, roundToMinorUnit } from '@shared/currency';
import { allocateRounded } from './rounding';

/** An exact amount as the service sends them: up to 6 decimals, either sign, from cents to millions. */
function amount(next: () => number): string {
  const digits = Math.floor(next() * 10);
  const whole = Math.floor(next() * 10 ** digits);
  const fraction = String(Math.floor(next() * 1_000_000)).padStart(6, '0');
  return `${next() < 0.15 ? '-' : ''}${whole}.${fraction}`;
}

describe('allocateRounded (largest remainder)', () => {
  for (const currency of ['JPY', 'SEK', 'KWD']) {
    it(`makes the lines add up to the customer's exactly rounded total in ${currency} (${minorUnits(currency)} decimals), for 2,000 random customers`, () => {
      const next = seededRandom(minorUnits(currency) + 7);
      const unit = money(1).dividedBy(money(10).pow(minorUnits(currency)));
      for (let customer = 0; customer < 2_000; customer += 1) {
        const exact = Array.from({ length: 1 + Math.floor(next() * 30) }, () => amount(next));
        const sum = exact.reduce((total, value) => total.plus(value), money(0));
        const { amounts, total } = allocateRounded(exact, currency);
        // The total is the customer's own exact sum rounded once: no cent comes from or goes to another customer.
        expect(total).toBe(roundToMinorUnit(sum.toFixed(), currency));
        expect(amounts.reduce((running, value) => running.plus(value), money(0)).eq(total)).toBe(true);
        amounts.forEach((value, index) => {
          expect(value).toMatch(minorUnits(currency) ? new RegExp(`^-?\\d+\\.\\d{${minorUnits(currency)}}$`) : /^-?\d+$/);
          expect(
            money(value)
              .minus(exact[index] as string)
              .abs()
              .lt(unit),
          ).toBe(true);
        });
      }
    });
  }

  it('gives the units the total needs to the largest remainders, the earlier line first on a tie', () => {
    // 0.333 + 0.333 + 0.334 = 1.000: floors 0.33 × 3 = 0.99; the one cent goes to the largest remainder (0.334).
    expect(allocateRounded(['0.333', '0.333', '0.334'], 'EUR')).toEqual({ amounts: ['0.33', '0.33', '0.34'], total: '1.00' });
    // Three equal thirds of 1.00: the tie goes to the first line.
    expect(allocateRounded(['0.3333333', '0.3333333', '0.3333334'], 'EUR').amounts).toEqual(['0.33', '0.33', '0.34']);
    expect(allocateRounded(['0.005', '0.005'], 'EUR')).toEqual({ amounts: ['0.01', '0.00'], total: '0.01' });
    expect(allocateRounded(['-0.005', '-0.005'], 'EUR')).toEqual({ amounts: ['-0.01', '0.00'], total: '-0.01' }); // the mirror of the invoice
    expect(allocateRounded([], 'EUR')).toEqual({ amounts: [], total: '0.00' });
  });

  it("allocates one customer's 300,000 lines at once (a large customer of a large month)", () => {
    const exact = Array.from({ length: 300_000 }, (_, index) => `${index % 7}.${String(index % 1000).padStart(3, '0')}5`);
    const { amounts, total } = allocateRounded(exact, 'EUR');
    expect(amounts).toHaveLength(300_000);
    expect(amounts.reduce((running, value) => running.plus(value), money(0)).toFixed(2)).toBe(total);
  });

  it('refuses a total the amounts cannot reach by rounding', () => {
    expect(() => allocateRounded(['1.004', '1.004'], 'EUR', '2.05')).toThrow(RangeError);
    expect(allocateRounded(['1.004', '1.004'], 'EUR', '2.01')).toEqual({ amounts: ['1.01', '1.00'], total: '2.01' });
  });

  it('rounds half away from zero, as the Invoicing view rounds a customer', () => {
    expect(allocateRounded(['2.345'], 'EUR').total).toBe('2.35');
    expect(allocateRounded(['-2.345'], 'EUR').total).toBe('-2.35');
    expect(Money.ROUND_HALF_UP).toBeDefined();
  });
});
