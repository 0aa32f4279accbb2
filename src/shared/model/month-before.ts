/** A period as the service gives it: its first and last day (calendar days, YYYY-MM-DD). */
interface Period {
  startDate: string;
  endDate: string;
}

/**
 * Whether `earlier` ends the day before `later` starts. The checks compare a month with the newest earlier one in the
 * ledger, which is not the month before when the months between were never fetched: then it is said, never implied.
 */
export function endsTheDayBefore(earlier: Pick<Period, 'endDate'>, later: Pick<Period, 'startDate'>): boolean {
  const next = new Date(`${earlier.endDate}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return !Number.isNaN(next.getTime()) && next.toISOString().slice(0, 10) === later.startDate;
}

/**
 * The calendar month before `period`, when `period` is one whole calendar month (what the checks compare it with);
 * null for any other period, whose "month before" nobody could name.
 */
export function calendarMonthBefore(period: Period): Period | null {
  const start = /^(\d{4})-(\d{2})-01$/.exec(period.startDate);
  if (!start) return null;
  const [year, month] = [Number(start[1]), Number(start[2])];
  const day = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d)).toISOString().slice(0, 10);
  if (month < 1 || month > 12 || period.endDate !== day(year, month + 1, 0)) return null;
  return { startDate: day(year, month - 1, 1), endDate: day(year, month, 0) };
}
