import { describe, expect, it } from 'vitest';
import { endsTheDayBefore } from './month-before';

describe('endsTheDayBefore', () => {
  it('is true only for the period that ends the day before the next starts, across months, years and leap days', () => {
    expect(endsTheDayBefore({ endDate: '2026-09-30' }, { startDate: '2026-10-01' })).toBe(true);
    expect(endsTheDayBefore({ endDate: '2026-12-31' }, { startDate: '2027-01-01' })).toBe(true);
    expect(endsTheDayBefore({ endDate: '2028-02-29' }, { startDate: '2028-03-01' })).toBe(true);
    expect(endsTheDayBefore({ endDate: '2026-11-14' }, { startDate: '2026-11-15' })).toBe(true); // a period that is not a calendar month
    expect(endsTheDayBefore({ endDate: '2026-08-31' }, { startDate: '2026-10-01' })).toBe(false); // September missing
    expect(endsTheDayBefore({ endDate: '2027-02-28' }, { startDate: '2027-02-28' })).toBe(false);
    expect(endsTheDayBefore({ endDate: 'not a date' }, { startDate: '2026-10-01' })).toBe(false);
  });
});
