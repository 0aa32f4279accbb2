import { describe, expect, it } from 'vitest';
import { Fuzz, FUZZ_SEED } from '@testing/fuzz';
import { useLedger } from '@testing/ledger-month';
import { csvCell } from './csv';
import { csvCellSql } from './csv-sql';

const ledger = useLedger();

/** Each value's cell as DuckDB makes it with csvCellSql, in the values' order (a number column holds DECIMAL(38, 6)). */
async function cellsInSql(values: (string | null)[], kind: 'text' | 'number'): Promise<string[]> {
  const type = kind === 'number' ? 'DECIMAL(38, 6)' : 'VARCHAR';
  const cell = csvCellSql('v', kind === 'number' ? { decimal: { precision: 38, scale: 6 } } : 'text');
  // Each value a parameter of its own: a list bound as one parameter would have its items trimmed on the way in.
  const rows = values.map((_, index) => `(${index}, $${index + 1}::${type})`).join(', ');
  // With a character in front: DuckDB's Node client drops a leading byte-order mark from the text it reads.
  const answer = await ledger().all(`SELECT '|' || ${cell} AS cell FROM (VALUES ${rows}) AS t(place, v) ORDER BY place`, values);
  return answer.map((row) => String(row.cell).slice(1));
}

/** Half of a surrogate pair without its other half: not text UTF-8 can hold. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What the CSV writer in JavaScript makes of a number column's value: the decimal text without its scale's trailing zeros. */
const jsNumberCell = (value: string | null) =>
  csvCell(value === null ? '' : value.includes('.') ? value.replace(/0+$/, '').replace(/\.$/, '') : value, 'number');

describe('CSV cells made in SQL', () => {
  it('are the very cells csvCell makes, for seeded hostile text, formulas after every separator, quotes and line breaks', async () => {
    const fuzz = new Fuzz(FUZZ_SEED);
    const written = [
      '=HYPERLINK("http://evil.example","Click")',
      "Acme;=cmd|' /C calc'!A0;",
      'Acme,+SUM(A1)',
      'two\n@SUM(1)',
      'a\t-2+3',
      'x;  =1',
      '\r=1+1',
      '\t=1',
      '-credit, "quoted"',
      'Smith; Jones - Partners',
      '==1',
      ',=,=,',
      'Åkerberg Ø',
      '',
      null,
    ];
    // The ledger holds UTF-8 text: a lone surrogate half cannot reach it, so none is asked of SQL.
    const values = [...written, ...Array.from({ length: 2000 }, () => fuzz.string()).filter((text) => !LONE_SURROGATE.test(text))];
    const sql = await cellsInSql(values, 'text');
    const js = values.map((value) => csvCell(value));
    const differing = values.flatMap((value, at) => (sql[at] === js[at] ? [] : [{ value, sql: sql[at], js: js[at] }]));
    expect(differing).toEqual([]);
    expect(values.length).toBeGreaterThan(1500);
  });

  it('write amounts and quantities as the ledger holds them, without the trailing zeros of the scale', async () => {
    const values = ['0', '-0.5', '12.500000', '100', '10.000000', '-1234567.123456', '0.000001', '99999999999999999999.999999', null];
    expect(await cellsInSql(values, 'number')).toEqual(values.map(jsNumberCell));
    expect(await cellsInSql(['12.5', '-0.5', '10', '0'], 'number')).toEqual(['12.5', '-0.5', '10', '0']);
  });
});
