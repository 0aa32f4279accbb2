import type { ReportListing, ReportMeta } from '@shared/schemas/saved-report';

export interface SavedReportGroup {
  key: string;
  /** The profile's name and its service's host; "Could not be read" for damaged entries. */
  title: string;
  listings: ReportListing[];
}

/**
 * Saved reports grouped by the profile (and service host) they were fetched with, groups by name, newest month
 * first within one; damaged entries last in a group of their own. A profile renamed since keeps its reports
 * under the name they were saved with.
 */
export function groupByProfile(listings: ReportListing[]): SavedReportGroup[] {
  const groups = new Map<string, SavedReportGroup>();
  const damaged: ReportListing[] = [];
  for (const listing of listings) {
    if (listing.state === 'damaged') {
      damaged.push(listing);
      continue;
    }
    const { profileName, host } = listing.meta;
    const key = `${profileName}\u0000${host}`;
    const group = groups.get(key) ?? { key, title: host ? `${profileName} · ${host}` : profileName, listings: [] };
    group.listings.push(listing);
    groups.set(key, group);
  }
  const byPeriod = (a: ReportListing, b: ReportListing) =>
    a.state === 'ok' && b.state === 'ok'
      ? b.meta.period.startDate.localeCompare(a.meta.period.startDate) || b.meta.fetchedAt.localeCompare(a.meta.fetchedAt)
      : 0;
  const sorted = [...groups.values()].sort((a, b) => a.title.localeCompare(b.title)).map((group) => ({ ...group, listings: group.listings.sort(byPeriod) }));
  return damaged.length ? [...sorted, { key: 'damaged', title: 'Could not be read', listings: damaged }] : sorted;
}

/**
 * A group's readable reports as months: the fetches of one period together, newest first (the month's basis, then
 * the ones it supersedes), in the group's order (newest month first).
 */
export function fetchesByMonth(listings: ReportListing[]): [ReportMeta, ...ReportMeta[]][] {
  const months = new Map<string, [ReportMeta, ...ReportMeta[]]>();
  for (const listing of listings) {
    if (listing.state !== 'ok') continue;
    const key = `${listing.meta.period.startDate}|${listing.meta.period.endDate}`;
    const fetches = months.get(key);
    if (fetches) fetches.push(listing.meta);
    else months.set(key, [listing.meta]);
  }
  for (const fetches of months.values()) fetches.sort((a, b) => b.fetchedAt.localeCompare(a.fetchedAt));
  return [...months.values()];
}
