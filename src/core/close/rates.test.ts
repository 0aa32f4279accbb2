import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { AppError } from '@shared/errors';
import { ledgerWithMonth, testIdentity } from '@testing/ledger-month';
import { ingestReport } from '../reports/report-ingest';
import type { Ledger } from '../ledger/ledger';
import { memoryCalendar } from './calendar';
import { MonthClose } from './month-close';
import { MonthReview } from './month-review';
import { convertTotals, importRates, parseRatesCsv, ratesView, setRates, validateRates } from './rates';

/** The message of the validation error `work` throws (fails the test when it does not throw one). */
function refusal(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('validation');
    return (error as AppError).message;
  }
  throw new Error('expected a validation error');
}

describe('reading a rates file', () => {
  it('takes a header, a byte-order mark, CRLF, blank lines, quotes, semicolons and lower-case codes', () => {
    const csv = '\uFEFFCurrency;Rate\r\n\r\n"usd";"0.9214"\r\nSEK ; 0.08741234 \r\n\r\n';
    expect(parseRatesCsv(csv, 'EUR')).toEqual([
      { currency: 'SEK', rate: '0.08741234' },
      { currency: 'USD', rate: '0.9214' },
    ]);
  });

  it('takes a file without a header, comma separated, and the reference currency at 1 (left out)', () => {
    expect(parseRatesCsv('\uFEFFUSD,0.92', 'EUR')).toEqual([{ currency: 'USD', rate: '0.92' }]);
    expect(parseRatesCsv('NOK,0.0850\nEUR,1.000\nJPY,.0061', 'EUR')).toEqual([
      { currency: 'JPY', rate: '0.0061' },
      { currency: 'NOK', rate: '0.085' },
    ]);
  });

  it('reads a decimal comma as people type it (the rule every typed number follows), and names the line of an ambiguous one', () => {
    expect(parseRatesCsv('currency;rate\nUSD;0.92\nSEK;0,0874\nNOK;1 234,5', 'EUR')).toEqual([
      { currency: 'NOK', rate: '1234.5' },
      { currency: 'SEK', rate: '0.0874' },
      { currency: 'USD', rate: '0.92' },
    ]);
    expect(validateRates([{ currency: 'USD', rate: '10,9214', where: 'USD' }], 'SEK')).toEqual([{ currency: 'USD', rate: '10.9214' }]);
    expect(parseRatesCsv('USD,"10,9214"\nNOK,0.95', 'SEK')).toEqual([
      { currency: 'NOK', rate: '0.95' },
      { currency: 'USD', rate: '10.9214' },
    ]);
    expect(refusal(() => validateRates([{ currency: 'USD', rate: '1,092', where: 'USD' }], 'SEK'))).toContain(
      'USD has the rate "1,092", which could be a thousand or a decimal: write 1092 for a whole number, or 1.092 with a decimal point',
    );
    expect(refusal(() => parseRatesCsv('USD,0.92\n\nSEK,0,0874', 'EUR'))).toContain(
      'line 3 has 3 fields; a line is currency,rate (if 0,0874 is one rate, write it in quotes, "0,0874", or with a decimal point: 0.0874)',
    );
  });

  it('refuses codes that are not ISO 4217, rates that are not positive decimals, and says how many problems there are', () => {
    const message = refusal(() => parseRatesCsv('USD,0.92\nEURO,1\nXQZ,2\nSEK,-0.08\nNOK,0\nDKK,abc\nGBP,1.123456789\nCHF,', 'EUR'));
    expect(message).toMatch(/^7 rates are not usable, so nothing was saved: /);
    expect(message).toContain('line 2 has "EURO", which is not a three-letter ISO 4217 currency code');
    expect(message).toContain('line 3 has "XQZ", which is not an ISO 4217 currency code');
    expect(message).toContain('line 4 has the rate -0.08; a rate must be more than 0');
    expect(message).toContain('line 5 has the rate 0; a rate must be more than 0');
    expect(message).toContain('line 6 has the rate "abc", which is not a decimal number like 1.0934');
    expect(message).toContain('line 7 has the rate 1.123456789 with more than 8 decimal places; Closebook keeps 8 and does not round');
    expect(message).toContain('line 8 has no rate');
  });

  it('refuses a currency twice, naming both lines, and a reference currency at another rate than 1', () => {
    expect(refusal(() => parseRatesCsv('USD,0.92\nSEK,0.087\nusd,0.93', 'EUR'))).toContain('line 3 repeats USD, already given on line 1');
    expect(refusal(() => parseRatesCsv('USD,0.92\nEUR,1.1', 'EUR'))).toContain(
      'line 2 gives EUR the rate 1.1, but EUR is the reference currency: its rate is 1',
    );
  });

  it('refuses an empty file, and a line with one field', () => {
    expect(refusal(() => parseRatesCsv('currency,rate\n\n', 'EUR'))).toBe('The rates file has no rates: write one currency,rate per line, e.g. USD,0.9214.');
    expect(refusal(() => parseRatesCsv('USD 0.92', 'EUR'))).toContain('line 1 has one field ("USD 0.92")');
  });

  it('accepts a code the runtime does not know when the month bills in it', () => {
    expect(validateRates([{ currency: 'XQZ', rate: '2', where: 'row 1' }], 'EUR', new Set(['XQZ']))).toEqual([{ currency: 'XQZ', rate: '2' }]);
    expect(refusal(() => validateRates([], 'EURO'))).toBe('The reference currency is "EURO", which is not a three-letter ISO 4217 currency code.');
  });
});

describe('the converted total', () => {
  const totals = [
    { currency: 'EUR', customerCurrency: 'EUR', lines: 2, cost: '100.000000', sales: '120.500000' },
    { currency: 'SEK', customerCurrency: 'SEK', lines: 3, cost: '1000.10', sales: '1234.57' },
    { currency: 'USD', customerCurrency: 'SEK', lines: 1, cost: '10.01', sales: '130' },
    { currency: 'NOK', customerCurrency: 'NOK', lines: 4, cost: '500', sales: '600' },
  ];

  it('converts each pair whose currencies have rates, exactly, and sums them exactly', () => {
    const view = convertTotals(totals, {
      referenceCurrency: 'EUR',
      rates: [
        { currency: 'SEK', rate: '0.08741234' },
        { currency: 'USD', rate: '0.92140001' },
      ],
    });
    // SEK: 1000.10 × 0.08741234 = 87.421081234, 1234.57 × 0.08741234 = 107.9166525938; USD 10.01 × 0.92140001 = 9.2232141001; 130 SEK = 11.3636042
    expect(view.pairs.map((pair) => [pair.currencyKey, pair.convertedCost, pair.convertedSales])).toEqual([
      ['EUR', '100', '120.5'],
      ['SEK', '87.421081234', '107.9166525938'],
      ['USD→SEK', '9.2232141001', '11.3636042'],
      ['NOK', null, null],
    ]);
    expect(view.converted).toEqual({
      cost: '196.6442953341',
      sales: '239.7802567938',
      margin: '43.1359614597',
      marginPercent: '17.99',
      pairsIncluded: 3,
      pairsLeftOut: 1,
    });
  });

  it('lists a currency without a rate, leaves its pairs out and keeps the native amounts', () => {
    const view = convertTotals(totals, { referenceCurrency: 'EUR', rates: [{ currency: 'SEK', rate: '0.0874' }] });
    expect(view.missing).toEqual(['NOK', 'USD']);
    expect(view.pairs.find((pair) => pair.currencyKey === 'USD→SEK')).toEqual({
      currencyKey: 'USD→SEK',
      lines: 1,
      cost: '10.01',
      sales: '130',
      convertedCost: null,
      convertedSales: null,
      missing: ['USD'],
    });
    expect(view.converted).toMatchObject({ cost: '187.40874', sales: '228.401418', pairsIncluded: 2, pairsLeftOut: 2 });
    expect(view.currencies).toEqual([
      { currency: 'EUR', rate: '1' },
      { currency: 'NOK', rate: null },
      { currency: 'SEK', rate: '0.0874' },
      { currency: 'USD', rate: null },
    ]);
  });

  it('converts nothing without a reference currency', () => {
    const view = convertTotals(totals, { referenceCurrency: null, rates: [] });
    expect(view.converted).toBeNull();
    expect(view.missing).toEqual([]);
    expect(view.pairs.every((pair) => pair.convertedSales === null)).toBe(true);
  });
});

describe('rates kept with the month', () => {
  const OCTOBER = '33333333-3333-4333-8333-000000000010';
  const REFETCH = '33333333-3333-4333-8333-000000000011';
  const cleanups = cleanupsAfterEach();

  /** The rates kept in the workstation's ledger (the record the close uses without a team ledger). */
  const kept = (ledger: Ledger) => new MonthReview(async () => ledger, memoryCalendar());

  async function month() {
    const opened = await ledgerWithMonth({ reportId: OCTOBER, seed: 3, organizations: 6, linesPerOrganization: 4 });
    cleanups.push(opened.close);
    return opened;
  }

  it('saves the rates of a month, shows them on a later fetch of it, and replaces or removes them', async () => {
    const { ledger, entries } = await month();
    const currencies = (await ratesView(ledger, kept(ledger), OCTOBER)).currencies.map((entry) => entry.currency);
    expect(currencies.length).toBeGreaterThan(1);
    const [reference, ...others] = currencies as [string, ...string[]];
    const csv = `currency;rate\n${others.map((currency, index) => `${currency};1.${index}5`).join('\n')}\n`;
    const imported = await importRates(ledger, kept(ledger), OCTOBER, reference, csv);
    expect(imported.referenceCurrency).toBe(reference);
    expect(imported.rates).toEqual(others.map((currency, index) => ({ currency, rate: `1.${index}5` })).sort((a, b) => (a.currency < b.currency ? -1 : 1)));
    expect(imported.missing).toEqual([]);
    expect(imported.converted?.pairsLeftOut).toBe(0);

    // The same period fetched again: the rates belong to the month, not to one fetch of it.
    async function* body() {
      yield JSON.stringify({ status: 5, data: entries });
    }
    await ingestReport(ledger, testIdentity(REFETCH, { fetchedAt: '2026-11-20T08:00:00.000Z' }), body());
    expect((await ratesView(ledger, kept(ledger), REFETCH)).rates).toEqual(imported.rates);

    const replaced = await setRates(ledger, kept(ledger), REFETCH, reference, [{ currency: others[0] as string, rate: '2' }]);
    expect(replaced.rates).toEqual([{ currency: others[0], rate: '2' }]);
    expect(replaced.missing).toEqual(others.slice(1).sort());
    expect((await setRates(ledger, kept(ledger), OCTOBER, null, [])).referenceCurrency).toBeNull();
    expect(await ledger.all('SELECT * FROM month_rates')).toEqual([]);
  });

  it('saves nothing when a line of the file is not usable', async () => {
    const { ledger } = await month();
    const [reference, other] = (await ratesView(ledger, kept(ledger), OCTOBER)).currencies.map((entry) => entry.currency) as [string, string];
    await setRates(ledger, kept(ledger), OCTOBER, reference, [{ currency: other, rate: '3' }]);
    await expect(importRates(ledger, kept(ledger), OCTOBER, reference, `${other},1.5\nXX,2`)).rejects.toThrow('line 2 has "XX"');
    expect((await ratesView(ledger, kept(ledger), OCTOBER)).rates).toEqual([{ currency: other, rate: '3' }]);
  });

  it('locks the rates while the month is prepared, in the write itself', async () => {
    const { ledger } = await month();
    const close = new MonthClose(async () => ledger);
    const ids = (await close.state(OCTOBER)).exceptions.map((exception) => exception.id);
    if (ids.length) await close.setReview(OCTOBER, ids, 'accepted', 'Checked.');
    await close.prepare(OCTOBER);
    expect((await ratesView(ledger, kept(ledger), OCTOBER)).signedOff).toBe(true);
    await expect(setRates(ledger, kept(ledger), OCTOBER, 'EUR', [])).rejects.toMatchObject({
      code: 'control',
      message: expect.stringMatching(/This month is Prepared, so its rates are locked/),
    });
  });
});
