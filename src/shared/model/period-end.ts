/**
 * A report fetched on or before the last day of its period holds what was billed so far, not the period: a month
 * whose billing is not over cannot be closed. The service's dates carry no time zone, so a day is read in UTC: a
 * period is over from the day after its end date.
 */
export function endedBefore(endDate: string, at: Date | string): boolean {
  const time = typeof at === 'string' ? Date.parse(at) : at.getTime();
  // A time that cannot be read (a hand-made import) is not refused on: the month's other checks still apply.
  if (Number.isNaN(time)) return true;
  return new Date(time).toISOString().slice(0, 10) > endDate;
}

/** A fetch made before its period was over, with what the words need; null for a whole period, or no fetch at all. */
export function partialFetch(endDate: string | undefined, fetchedAt: string | null | undefined): { endDate: string; fetchedAt: string } | null {
  return endDate && fetchedAt && !endedBefore(endDate, fetchedAt) ? { endDate, fetchedAt } : null;
}

/** Why a fetch made before its period was over cannot be prepared, in the words the screens and refusals share. */
export const fetchedBeforeEndText = (endDate: string, fetchedAt: string) =>
  `This fetch was made on ${fetchedAt.slice(0, 10)}, before its period ended on ${endDate}: it holds what was billed so far, not the whole period`;

export const fetchedBeforeEndAdvice = (endDate: string, fetchedAt: string) =>
  `${fetchedBeforeEndText(endDate, fetchedAt)}. Fetch the month again once it is over, and prepare that fetch.`;

/** What the checks against last month compare with when that month (`label`) was fetched before it was over. */
export const comparedWithPartialText = (label: string, endDate: string, fetchedAt: string) =>
  `${label} was fetched on ${fetchedAt.slice(0, 10)}, before it was over on ${endDate}: the checks against last month compare with what was billed by then. Fetch it again to check against the whole month.`;

/** Said before such a fetch is requested (the request form, `report fetch`). */
export const periodNotOverText = (endDate: string) =>
  `This period ends on ${endDate}: a report fetched by that day holds what was billed so far, and cannot be prepared. Fetch it again once the period is over to close the month.`;
