import { describe, expect, it } from 'vitest';
import type { RatesView, TrendSeries } from '@shared/schemas/month-close';
import { draftOf, ratesToSave } from './rates-form';
import { chartRows, matchingChoices, periodLabel, scopeLabel } from './trends-chart';

const months = [
  { reportId: 'a', period: { startDate: '2026-09-01', endDate: '2026-09-30' }, fetchedAt: '' },
  { reportId: 'b', period: { startDate: '2026-10-01', endDate: '2026-10-15' }, fetchedAt: '' },
];

describe('what the trend charts draw', () => {
  it('names a calendar month short and any other period by its days', () => {
    expect(months.map((month) => periodLabel(month.period, 'en-GB'))).toEqual(['Sept 2026', '2026-10-01 – 2026-10-15']);
  });

  it('keeps the exact figures beside the plotted numbers, and no margin between two currencies', () => {
    const series: TrendSeries = {
      currencyKey: 'USD→SEK',
      costCurrency: 'USD',
      salesCurrency: 'SEK',
      points: [
        { lines: 1, cost: '0.1', sales: '1234567890.123456789', margin: null, marginPercent: null },
        { lines: 0, cost: '0', sales: '0', margin: null, marginPercent: null },
      ],
    };
    const rows = chartRows(months, series, 'en-GB');
    expect(rows[0]).toMatchObject({ month: 'Sept 2026', cost: 0.1, margin: null, point: { sales: '1234567890.123456789' } });
    expect(rows[1]?.sales).toBe(0);
  });

  it('finds a customer by every word typed, in its name or customer number', () => {
    const choices = [
      { key: 'a', label: 'Alpha AB', detail: 'C-100' },
      { key: 'b', label: 'Beta Alpha GmbH', detail: 'C-200' },
    ];
    expect(matchingChoices(choices, 'alpha c-2').map((choice) => choice.key)).toEqual(['b']);
    expect(matchingChoices(choices, '  ').map((choice) => choice.key)).toEqual(['a', 'b']);
    expect(scopeLabel({ kind: 'organization', key: 'b' }, { organizations: choices, services: [], groups: [] })).toBe('Customer: Beta Alpha GmbH (C-200)');
  });
});

describe('the rates form', () => {
  const view = {
    referenceCurrency: null,
    currencies: [
      { currency: 'SEK', rate: null },
      { currency: 'USD', rate: null },
      { currency: 'EUR', rate: null },
    ],
    rates: [],
  } as unknown as RatesView;

  it('suggests EUR as the reference, and sends only the rates typed, never the reference', () => {
    const draft = draftOf(view);
    expect(draft.referenceCurrency).toBe('EUR');
    expect(ratesToSave({ ...draft, rates: { ...draft.rates, SEK: ' 0.0874 ', EUR: '1' } })).toEqual([{ currency: 'SEK', rate: '0.0874' }]);
  });
});
