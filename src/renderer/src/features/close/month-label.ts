import { userLocale } from '@renderer/components/format-time';

const monthFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * A report period as a person names it: "October 2026" when it is one whole calendar month, else its first and
 * last day as the service gives them. The days are calendar days (no time zone moves them).
 */
export function monthLabel(period: { startDate: string; endDate: string }, locale = userLocale): string {
  const start = /^(\d{4})-(\d{2})-01$/.exec(period.startDate);
  if (start) {
    const [year, month] = [Number(start[1]), Number(start[2])];
    const lastDay = new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
    if (period.endDate === lastDay) {
      let format = monthFormats.get(locale);
      if (!format) {
        format = new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' });
        monthFormats.set(locale, format);
      }
      return format.format(Date.UTC(year, month - 1, 1));
    }
  }
  return `${period.startDate} – ${period.endDate}`;
}
