import { describe, expect, it } from 'vitest';
import { useLedger } from '@testing/ledger-month';
import { compareAsLedger } from './text-order';

const ledger = useLedger();

// PO numbers and currencies as they come: cases, accents, a private-use character (U+E000), the replacement
// character (U+FFFD) and characters past U+FFFF (which JavaScript's own < puts before those two), prefixes, spaces.
const TEXTS = ['PO-a', 'po-a', 'PO-a ', 'PO-', '', 'Z', 'Ä-1', 'A-1', '\uE000', '\uFFFD-x', '😀-y', '𝔘', 'ﬀ', '~', ' PO', '10', '9', 'PO-a\u0000'];

describe('text in the ledger’s order', () => {
  it('compares as DuckDB orders text, NULL last, where JavaScript’s own < does not', async () => {
    const values = [...TEXTS, null];
    const ordered = (await ledger().all(`SELECT t FROM (SELECT unnest(from_json($1, '["VARCHAR"]')) AS t) ORDER BY t`, [JSON.stringify(values)])) as {
      t: string | null;
    }[];
    const expected = ordered.map((row) => row.t);
    // Every order of the texts sorts to DuckDB's: from the list as written, reversed, and rotated.
    for (const start of [values, [...values].reverse(), [...values.slice(7), ...values.slice(0, 7)]])
      expect([...start].sort(compareAsLedger)).toEqual(expected);
    expect(values.every((value) => compareAsLedger(value, value) === 0)).toBe(true);
    // The case a plain comparison gets wrong: a character past U+FFFF against U+FFFD.
    expect('😀-y' < '\uFFFD-x').toBe(true);
    expect(expected.indexOf('😀-y')).toBeGreaterThan(expected.indexOf('\uFFFD-x'));
  });
});
