import { describe, expect, it } from 'vitest';
import { money } from '@shared/money';
import { Fuzz, FUZZ_SEED } from '@testing/fuzz';
import { useLedger } from '@testing/ledger-month';
import { shortestDecimalText } from './decimal-text';
import type { DecimalType } from './types';

const ledger = useLedger();

/**
 * Each value as DuckDB makes its shortest text (shortestDecimalText, told the column is `told`) from a column of
 * `type`, in the values' order.
 */
async function shortestInSql(values: (string | null)[], told: DecimalType, type = `DECIMAL(${told.precision}, ${told.scale})`): Promise<(string | null)[]> {
  const rows = values.map((_, index) => `(${index}, $${index + 1}::${type})`).join(', ');
  const answer = await ledger().all(`SELECT ${shortestDecimalText('v', told)} AS text FROM (VALUES ${rows}) AS t(place, v) ORDER BY place`, values);
  return answer.map((row) => (row.text === null ? null : String(row.text)));
}

/** A decimal text with `digits` integer digits (0 for none) and `decimals` decimals, seeded, maybe negative. */
function decimalText(fuzz: Fuzz, digits: number, decimals: number): string {
  const run = (length: number) => Array.from({ length }, () => String(fuzz.int(0, 9))).join('');
  const whole = digits === 0 ? '0' : String(fuzz.int(1, 9)) + run(digits - 1);
  return `${fuzz.chance(0.5) ? '-' : ''}${whole}${decimals ? `.${run(decimals)}` : ''}`;
}

describe("the shortest text of a ledger's decimal", () => {
  // The ledger's scales: amounts (6), quantities and prices (8), a change's effects (16).
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
      expect(await shortestInSql(values, { precision: 38, scale })).toEqual(values.map((value) => money(value).toFixed()));
      // A column of DECIMAL(18, scale), told so, is counted without the question whether each value fits.
      const fitting = values.filter((value) => value.replace(/^-/, '').split('.')[0]!.replace(/^0$/, '').length <= fits);
      expect(fitting.length).toBeGreaterThan(20);
      expect(await shortestInSql(fitting, { precision: 18, scale })).toEqual(fitting.map((value) => money(value).toFixed()));
    });
  }

  it('is exact for a column of a smaller scale than the type given (an effect made in the statement), and NULL for NULL', async () => {
    for (const [type, scale] of [
      ['DECIMAL(38, 2)', 16],
      ['DECIMAL(38, 2)', 6],
      ['DECIMAL(18, 2)', 8],
    ] as const) {
      // The largest of the type that the given scale holds too (38 digits in all).
      const largest = '9'.repeat(Math.min(type.startsWith('DECIMAL(18') ? 16 : 36, 38 - scale));
      const values = ['-158144.48', '0.5', '12', '-0.01', `${largest}.99`, `-${largest}.5`, null];
      expect(await shortestInSql(values, { precision: 38, scale }, type)).toEqual(values.map((value) => (value === null ? null : money(value).toFixed())));
    }
  });
});
