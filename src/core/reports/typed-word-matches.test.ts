import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { ledgerWithMonth } from '@testing/ledger-month';
import { foldForSearch } from '@shared/search-fold';
import type { LedgerValue } from '../ledger/ledger';
import { levelNumbers, type WordMatches, wordMatches } from './queries/lines';
import { TypedWordMatches } from './typed-word-matches';

const REPORT = '00000000-0000-4000-8000-000000000001';
const cleanups = cleanupsAfterEach();

async function setup() {
  const month = await ledgerWithMonth({ reportId: REPORT, seed: 21, organizations: 12, linesPerOrganization: 5 });
  cleanups.push(month.close);
  const { ledger } = month;
  // Every statement that looks for words, as it went to DuckDB.
  const asked: { sql: string; params: LedgerValue[] }[] = [];
  const bitSets = ledger.bitSets.bind(ledger);
  ledger.bitSets = (sql, params = []) => {
    asked.push({ sql, params });
    return bitSets(sql, params);
  };
  const numbers = await levelNumbers(ledger, REPORT);
  const [named] = await ledger.all("SELECT lower(name) AS name FROM organizations WHERE report_id = $1 AND name LIKE '% %' ORDER BY org_no LIMIT 1", [REPORT]);
  // Folded as a typed word is (typedWords): "älv" is typed and looked for as "alv".
  return { ledger, asked, numbers, name: foldForSearch(String(named!.name)) };
}

/** Sets of bits as text, to compare: '0110…' per level, or null. */
const asText = (matches: WordMatches) => matches.map((sets) => sets.map((set) => (set === null ? null : set.value.toString())));

describe('typed words matched', () => {
  it('finds what each word looked for afresh finds, typed on a character at a time, back again, anew and several at once', async () => {
    const { ledger, numbers, name } = await setup();
    const typed = new TypedWordMatches();
    const word = name.split(' ')[0]!;
    const steps = [
      ...[...word].map((_, index) => [word.slice(0, index + 1)]),
      [word.slice(0, 2)], // back to two characters
      [word.slice(0, 1)],
      ['zq'],
      ['zqx'], // nothing holds either: nothing anywhere
      ['se', 'sek'],
      [word, 'c-1'],
      ['1'],
      ['10'],
    ];
    for (const words of steps) {
      const fresh = await wordMatches(ledger, REPORT, words, numbers);
      expect(asText(await typed.of(ledger, REPORT, words, numbers)), words.join(' ')).toEqual(asText(fresh));
    }
    // Some words matched at some levels and not at others: the steps try both.
    const all = await wordMatches(ledger, REPORT, steps.flat(), numbers);
    expect(all.flat().some((set) => set === null)).toBe(true);
    expect(all.flat().some((set) => set !== null)).toBe(true);
  });

  it('looks for a word once, and for a word typed on only among what the word before it matched', async () => {
    const { ledger, asked, numbers, name } = await setup();
    const typed = new TypedWordMatches();
    const word = name.split(' ')[0]!;
    await typed.of(ledger, REPORT, [word.slice(0, 2)], numbers);
    expect(asked.at(-1)!.sql).not.toContain('get_bit');
    await typed.of(ledger, REPORT, [word.slice(0, 3)], numbers);
    // The two-letter word's sets bound the three-letter one's: each level it matched is read among those only.
    const narrowed = asked.at(-1)!;
    expect(narrowed.params.slice(0, 2)).toEqual([REPORT, word.slice(0, 3)]);
    expect(narrowed.sql.match(/get_bit\(/g)?.length).toBe(narrowed.params.length - 2);
    expect(narrowed.params.length).toBeGreaterThan(2);
    // Typed again (after a backspace): not looked for again.
    const before = asked.length;
    await typed.of(ledger, REPORT, [word.slice(0, 2)], numbers);
    await typed.of(ledger, REPORT, [word.slice(0, 3)], numbers);
    expect(asked.length).toBe(before);
    // A word nothing holds: a word typed on from it is known to match nothing, and no statement is run for it.
    expect((await typed.of(ledger, REPORT, ['zq'], numbers)).flat()).toEqual([null, null, null, null]);
    expect(asked.length).toBe(before + 1);
    expect((await typed.of(ledger, REPORT, ['zqx'], numbers)).flat()).toEqual([null, null, null, null]);
    expect(asked.length).toBe(before + 1);
    // Forgotten with its report: looked for again.
    typed.forget(REPORT);
    await typed.of(ledger, REPORT, [word.slice(0, 3)], numbers);
    expect(asked.length).toBe(before + 2);
  });

  it('keeps the words of the last three reports searched', async () => {
    const { ledger, asked, numbers } = await setup();
    const typed = new TypedWordMatches();
    const others = ['00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000003', '00000000-0000-4000-8000-000000000004'];
    await typed.of(ledger, REPORT, ['se'], numbers);
    for (const other of others.slice(0, 2)) await typed.of(ledger, other, ['se'], numbers);
    let before = asked.length;
    await typed.of(ledger, REPORT, ['se'], numbers);
    expect(asked.length).toBe(before); // still kept, and now the last searched
    for (const other of others) await typed.of(ledger, other, ['se'], numbers);
    before = asked.length;
    await typed.of(ledger, REPORT, ['se'], numbers);
    expect(asked.length).toBe(before + 1); // three others searched since: looked for again
  });
});
