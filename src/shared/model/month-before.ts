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
