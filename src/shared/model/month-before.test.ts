import { describe, expect, it } from 'vitest';
import { calendarMonthBefore, endsTheDayBefore } from './month-before';

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

describe('calendarMonthBefore', () => {
  it('names the calendar month before a whole calendar month, across years and leap years', () => {
    expect(calendarMonthBefore({ startDate: '2026-11-01', endDate: '2026-11-30' })).toEqual({ startDate: '2026-10-01', endDate: '2026-10-31' });
    expect(calendarMonthBefore({ startDate: '2027-01-01', endDate: '2027-01-31' })).toEqual({ startDate: '2026-12-01', endDate: '2026-12-31' });
    expect(calendarMonthBefore({ startDate: '2028-03-01', endDate: '2028-03-31' })).toEqual({ startDate: '2028-02-01', endDate: '2028-02-29' });
    expect(calendarMonthBefore({ startDate: '2027-03-01', endDate: '2027-03-31' })).toEqual({ startDate: '2027-02-01', endDate: '2027-02-28' });
  });

  it('names none for a period that is not one whole calendar month', () => {
    expect(calendarMonthBefore({ startDate: '2026-11-01', endDate: '2026-11-29' })).toBeNull();
    expect(calendarMonthBefore({ startDate: '2026-11-15', endDate: '2026-12-14' })).toBeNull();
    expect(calendarMonthBefore({ startDate: '2026-10-01', endDate: '2026-11-30' })).toBeNull();
    expect(calendarMonthBefore({ startDate: '2026-13-01', endDate: '2027-01-31' })).toBeNull();
    expect(calendarMonthBefore({ startDate: 'not a date', endDate: '2026-11-30' })).toBeNull();
  });
});
