import { describe, expect, it } from 'vitest';
import { useLedger } from '@testing/ledger-month';
import { keyHashSql, PRODUCT_LINE_KEY } from './product-lines';

const ledger = useLedger();

/** keyHashSql of each key (six columns, null for an absent id), as DuckDB makes it, in the keys' order. */
async function hashes(keys: (string | null)[][]): Promise<string[]> {
  const columns = PRODUCT_LINE_KEY.map((_, index) => `c${index}`);
  const rows = keys.map((key, row) => `(${row}, ${key.map((_, column) => `$${row * 6 + column + 1}::VARCHAR`).join(', ')})`).join(', ');
  const answer = await ledger().all(
    `SELECT (${keyHashSql(columns)})::VARCHAR AS hash FROM (VALUES ${rows}) AS t(place, ${columns.join(', ')}) ORDER BY place`,
    keys.flat(),
  );
  return answer.map((row) => String(row.hash));
}

describe("a product line's key hash", () => {
  it('is one number for one key, and another for any other key — however its texts could be joined or an id be absent', async () => {
    const key = (...first: (string | null)[]) => [...first, ...['subscription', 'product', 'EUR', 'SEK'].slice(first.length - 2)];
    const keys = [
      key('org', 'service'),
      key('org', 'service'), // the same key
      key('or', 'gservice'), // the same texts, cut elsewhere
      key('org|service', ''),
      key('a|b', 'c'),
      key('a', 'b|c'),
      key('org', null), // an absent service id …
      key(null, 'org'),
      key('org', ''), // … is not an empty one …
      key('org', 'null'), // … nor the text "null"
      key('org"', 'service'), // quotes and separators in a name
      key('org', '"service'),
      key('org', 'service\u0000'),
    ];
    const found = await hashes(keys);
    expect(found[0]).toBe(found[1]);
    expect(new Set(found).size).toBe(keys.length - 1);
    // 128 bits, and the same on another read.
    expect(BigInt(found[0] as string)).toBeGreaterThan(2n ** 64n);
    expect(await hashes([keys[0] as (string | null)[]])).toEqual([found[0]]);
  });
});
