import { describe, expect, it } from 'vitest';
import { money } from '@shared/money';
import { Fuzz, FUZZ_SEED } from '@testing/fuzz';
import { useLedger } from '@testing/ledger-month';
import { shortest } from './compare';

const ledger = useLedger();

/** Each value as DuckDB's `shortest` makes it from a DECIMAL(38, scale), in the values' order. */
async function shortestInSql(values: string[], scale: number): Promise<string[]> {
  const rows = values.map((_, index) => `(${index}, $${index + 1}::DECIMAL(38, ${scale}))`).join(', ');
  const answer = await ledger().all(`SELECT ${shortest('v', scale)} AS text FROM (VALUES ${rows}) AS t(place, v) ORDER BY place`, values);
  return answer.map((row) => String(row.text));
}

/** A decimal text with `digits` integer digits (0 for none) and `decimals` decimals, seeded, maybe negative. */
function decimalText(fuzz: Fuzz, digits: number, decimals: number): string {
  const run = (length: number) => Array.from({ length }, () => String(fuzz.int(0, 9))).join('');
  const whole = digits === 0 ? '0' : String(fuzz.int(1, 9)) + run(digits - 1);
  return `${fuzz.chance(0.5) ? '-' : ''}${whole}${decimals ? `.${run(decimals)}` : ''}`;
}

describe('the shortest text of a kept decimal', () => {
  // The kept comparisons' scales: amounts (6), quantities and prices (8), effects (16).
  for (const scale of [6, 8, 16]) {
    it(`is the exact decimal without its scale's trailing zeros, on either side of the 64-bit bound (scale ${scale})`, async () => {
      const fits = 18 - scale; // integer digits that DECIMAL(18, scale) holds
      const nines = (count: number) => '9'.repeat(count);
      const edges = [
        '0',
        '1',
        '-1',
        '100',
        '12.5',
        '-0.5',
        `0.${'0'.repeat(scale - 1)}1`, // the smallest step
        `-0.${'0'.repeat(scale - 1)}1`,
        `${nines(fits)}.${nines(scale)}`, // the largest that fits 64 bits
        `-${nines(fits)}.${nines(scale)}`,
        `1${'0'.repeat(fits)}`, // the smallest that does not
        `-1${'0'.repeat(fits)}.${'0'.repeat(scale - 1)}1`,
        `${nines(38 - scale)}.${nines(scale)}`, // the largest DECIMAL(38, scale)
        `-${nines(38 - scale)}.${nines(scale)}`,
      ];
      const fuzz = new Fuzz(FUZZ_SEED + scale);
      const seeded = Array.from({ length: 400 }, () => decimalText(fuzz, fuzz.int(0, 38 - scale), fuzz.int(0, scale)));
      const values = [...edges, ...seeded];
      expect(await shortestInSql(values, scale)).toEqual(values.map((value) => money(value).toFixed()));
    });
  }
});
