import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { ledgerWithMonth, testIdentity } from '@testing/ledger-month';
import { buildBillingReport, generateOrganizations } from '@testing/test-support';
import type { ReportFilter } from '@shared/report-filter';
import { foldForSearch } from '@shared/search-fold';
import type { Ledger, LedgerValue } from '@core/ledger/ledger';
import { rowShape } from '@core/ledger/rows';
import { ingestReport } from '../report-ingest';
import { levelNumbers, lineFilter, reportLineFilter } from './lines';

const OCTOBER = '00000000-0000-4000-8000-0000000000a1';
const BIGGER = '00000000-0000-4000-8000-0000000000a2';
const cleanups = cleanupsAfterEach();
const LINE = rowShape({ line_no: 'int' });
const TEXT = rowShape({ search: 'text' });

/** October, and a bigger month beside it in the same ledger: its numbers go past October's. */
async function twoMonths() {
  const month = await ledgerWithMonth({ reportId: OCTOBER, seed: 7, organizations: 12, linesPerOrganization: 5 });
  cleanups.push(month.close);
  const bigger = buildBillingReport(generateOrganizations({ seed: 8, organizations: 30, linesPerOrganization: 6 }), '2026-11-01', '2026-11-30', { seed: 8 });
  async function* body() {
    yield JSON.stringify({ status: 5, data: bigger });
  }
  await ingestReport(month.ledger, testIdentity(BIGGER), body());
  return month.ledger;
}

/** The lines a text filter keeps by the definition itself: a word matches a line when its product, subscription, service or organization holds it. */
async function linesByDefinition(ledger: Ledger, reportId: string, text: string): Promise<number[]> {
  const params: LedgerValue[] = [reportId];
  const where = foldForSearch(text)
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => {
      params.push(word);
      const level = (table: string, column: string) =>
        `l.${column} IN (SELECT ${column} FROM ${table} WHERE report_id = $1 AND contains(search, $${params.length}))`;
      return `(${level('products', 'product_no')} OR ${level('subscriptions', 'subscription_no')} OR ${level('services', 'service_no')} OR ${level('organizations', 'org_no')})`;
    });
  const sql = `SELECT line_no FROM billing_lines l WHERE l.report_id = $1 ${where.map((condition) => `AND ${condition}`).join(' ')} ORDER BY line_no`;
  return LINE.all(await ledger.all(sql, params)).map((row) => row.line_no);
}

async function linesKept(ledger: Ledger, reportId: string, filter: ReportFilter): Promise<number[]> {
  const { where, params } = await reportLineFilter(ledger, reportId, filter);
  return LINE.all(await ledger.all(`SELECT line_no FROM billing_lines l WHERE ${where} ORDER BY line_no`, params)).map((row) => row.line_no);
}

/** Pieces of every level's search text (its first, middle and last characters), the words a person types. */
async function typedWords(ledger: Ledger, reportId: string): Promise<string[]> {
  const words = new Set<string>();
  for (const table of ['products', 'subscriptions', 'services', 'organizations']) {
    const texts = TEXT.all(await ledger.all(`SELECT search FROM ${table} WHERE report_id = $1 ORDER BY search LIMIT 6`, [reportId]));
    for (const { search } of texts)
      for (const part of search.split('\u0001')) {
        const word = part.split(/\s+/).find((piece) => piece.length >= 4);
        if (!word) continue;
        words.add(word.slice(0, 1));
        words.add(word.slice(0, 3));
        words.add(word.slice(1, 4));
        words.add(word);
      }
  }
  return [...words];
}

describe('the viewer filter on the lines (lineFilter)', () => {
  it("keeps exactly the lines whose product, subscription, service or organization holds every typed word, with another month's numbers beside it", async () => {
    const ledger = await twoMonths();
    const words = await typedWords(ledger, OCTOBER);
    expect(words.length).toBeGreaterThan(40);
    const texts = [
      ...words,
      'nothing-holds-this',
      `${words[3]} ${words[9]}`,
      `${words[0]} nothing-holds-this`,
      `  ${words[5]}   ${words[6]}  `,
      '%',
      '_',
      "o'",
    ];
    let matchedSome = 0;
    for (const text of texts) {
      const expected = await linesByDefinition(ledger, OCTOBER, text);
      expect(await linesKept(ledger, OCTOBER, { text }), text).toEqual(expected);
      if (expected.length > 0) matchedSome++;
    }
    expect(matchedSome).toBeGreaterThan(40);
    // A filter without typed words needs no matches; one with them is never built without.
    expect(await linesKept(ledger, OCTOBER, { text: '   ' })).toEqual(await linesByDefinition(ledger, OCTOBER, ''));
    expect(() => lineFilter(OCTOBER, { text: 'a' }, undefined)).toThrow(/no matches made/);
    // The bigger month is filtered within its own numbers too.
    for (const text of words.slice(0, 12)) expect(await linesKept(ledger, BIGGER, { text }), text).toEqual(await linesByDefinition(ledger, BIGGER, text));
  });

  it('bounds each level by the highest number its table or its lines use, each month its own', async () => {
    const ledger = await twoMonths();
    const numbers = await levelNumbers(ledger, OCTOBER);
    const counts = rowShape({ products: 'int', subscriptions: 'int', services: 'int', organizations: 'int' }).all(
      await ledger.all(
        `SELECT (SELECT count(*) FROM products WHERE report_id = $1) AS products, (SELECT count(*) FROM subscriptions WHERE report_id = $1) AS subscriptions,
           (SELECT count(*) FROM services WHERE report_id = $1) AS services, (SELECT count(*) FROM organizations WHERE report_id = $1) AS organizations`,
        [OCTOBER],
      ),
    )[0];
    expect(numbers).toEqual(counts); // numbered from 1 at ingest
    expect((await levelNumbers(ledger, BIGGER)).subscriptions).toBeGreaterThan(numbers.subscriptions);
    expect(await levelNumbers(ledger, '00000000-0000-4000-8000-0000000000ff')).toEqual({ products: 0, subscriptions: 0, services: 0, organizations: 0 });
  });
});
