import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatDuration, isoDay } from './format-time';

describe('formatDateTime', () => {
  it('shows a stored UTC timestamp in local time with the zone named, in the order of the locale', () => {
    expect(formatDateTime('2026-11-23T19:15:00.000Z', { locale: 'sv-SE', timeZone: 'Europe/Stockholm' })).toBe('2026-11-23 20:15 CET');
    expect(formatDateTime('2026-11-23T19:15:00.000Z', { locale: 'en-GB', timeZone: 'Europe/Stockholm' })).toBe('23/11/2026, 20:15 CET');
    // Summer time is named as such, and another zone moves the day.
    expect(formatDateTime('2026-07-01T22:30:00Z', { locale: 'sv-SE', timeZone: 'Europe/Stockholm' })).toBe('2026-07-02 00:30 CEST');
    expect(formatDateTime('2026-11-23T19:15:00.000Z', { locale: 'en-US', timeZone: 'America/New_York' })).toBe('11/23/2026, 2:15 PM EST');
  });

  it('gives the seconds when asked (two fetches of a month a minute apart)', () => {
    expect(formatDateTime('2026-11-23T19:15:07.000Z', { locale: 'sv-SE', timeZone: 'Europe/Stockholm', seconds: true })).toBe('2026-11-23 20:15:07 CET');
    expect(formatDateTime('2026-11-23T19:15:07.000Z', { locale: 'en-GB', timeZone: 'Europe/Stockholm', seconds: true })).toBe('23/11/2026, 20:15:07 CET');
  });

  it('shows a text that is no timestamp as it is', () => {
    expect(formatDateTime('not yet')).toBe('not yet');
  });
});

describe('the other helpers', () => {
  it('keep their meaning', () => {
    expect(isoDay(new Date(Date.UTC(2026, 9, 31)))).toBe('2026-10-31');
    expect(formatDuration(42_000)).toBe('42 s');
    expect(formatDuration(185_000)).toBe('3 min 05 s');
    expect(formatDuration(-5)).toBe('0 s');
  });
});

describe('formatDate', () => {
  it('shows a calendar day with its weekday in the locale, the same day in every time zone', () => {
    expect(formatDate('2026-12-10', { locale: 'en-GB' })).toBe('Thu, 10 Dec 2026');
    expect(formatDate('2026-12-10', { locale: 'sv-SE' })).toBe('tors 10 dec. 2026');
    expect(formatDate('not a day')).toBe('not a day');
  });
});
