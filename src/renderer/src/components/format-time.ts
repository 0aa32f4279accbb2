/**
 * Every date and time the renderer shows or sends is formatted here, so the same moment reads the same on every
 * screen.
 */

/**
 * The one Intl locale every number, date and time on screen is formatted in (the user's, as the OS and Chromium
 * report it): two formatters asked separately could disagree, and a Swedish user would see decimal commas in one
 * column and points in the next.
 */
export const userLocale: string = new Intl.NumberFormat().resolvedOptions().locale;

/** For tests (a fixed locale and zone); the screens leave both to the user's. */
export interface TimeFormatOptions {
  locale?: string;
  timeZone?: string;
  /** With the seconds (telling apart two fetches of one month a minute apart). */
  seconds?: boolean;
}

const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();

function dateTimeFormat({ locale = userLocale, timeZone, seconds = false }: TimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}|${timeZone ?? ''}|${seconds}`;
  let format = dateTimeFormats.get(key);
  if (!format) {
    // Numeric day, hour and minute, and the zone by name: "2026-11-23 20:15 CET" (sv-SE), "23/11/2026, 20:15 CET" (en-GB).
    format = new Intl.DateTimeFormat(locale, {
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: 'numeric',
      minute: '2-digit',
      ...(seconds ? { second: '2-digit' as const } : {}),
      timeZoneName: 'short',
      ...(timeZone ? { timeZone } : {}),
    });
    dateTimeFormats.set(key, format);
  }
  return format;
}

/**
 * One of Closebook's own timestamps (ISO 8601 with its offset, e.g. `2026-10-31T09:15:00.000Z`) in the user's local
 * time and locale, with the zone named: `2026-10-31 10:15 CET`. A text that is no timestamp is shown as it is.
 */
export function formatDateTime(iso: string, options: TimeFormatOptions = {}): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return iso;
  return dateTimeFormat(options).format(time);
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** A calendar day (YYYY-MM-DD, no time and no zone) in the user's locale with its weekday: `Thu 10 Dec 2026`. */
export function formatDate(day: string, options: Pick<TimeFormatOptions, 'locale'> = {}): string {
  const time = Date.parse(`${day}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(time)) return day;
  const locale = options.locale ?? userLocale;
  let format = dayFormats.get(locale);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
    dayFormats.set(locale, format);
  }
  return format.format(time);
}

const clockFormats = new Map<string, Intl.DateTimeFormat>();

/** Only the time of day, for "when" beside a live status: `14:02` (the day and zone are in its tooltip). */
export function formatClock(iso: string, options: TimeFormatOptions = {}): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return iso;
  const key = `${options.locale ?? userLocale}|${options.timeZone ?? ''}`;
  let format = clockFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(options.locale ?? userLocale, {
      hour: 'numeric',
      minute: '2-digit',
      ...(options.timeZone ? { timeZone: options.timeZone } : {}),
    });
    clockFormats.set(key, format);
  }
  return format.format(time);
}

/** A calendar day as the service takes it, YYYY-MM-DD (of a date built with Date.UTC). */
export function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export { formatDuration } from '@shared/report-progress';
