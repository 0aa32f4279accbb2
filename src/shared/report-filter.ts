import { z } from 'zod';

/** The viewer's filter, as the renderer sends it and the ledger's queries and exports apply it. */
export const ReportFilterInput = z.object({
  group: z.string().max(200).optional(),
  /** Organization name or customer number (substring, any case). */
  organization: z.string().max(200).optional(),
  service: z.string().max(200).optional(),
  currency: z.string().max(20).optional(),
  text: z.string().max(200).optional(),
  /** Only organizations that belong to no organization group (the "Ungrouped" pack, the viewer's "No group"). */
  ungrouped: z.boolean().optional(),
});
export type ReportFilter = z.input<typeof ReportFilterInput>;

/** What a filter keeps, as its parts the queries read: text trimmed, absent and empty alike. */
function normalized(filter: ReportFilter) {
  return [
    filter.group ?? '',
    filter.organization?.trim() ?? '',
    filter.service ?? '',
    filter.currency ?? '',
    filter.text?.trim() ?? '',
    filter.ungrouped === true,
  ] as const;
}

export function isEmptyFilter(filter: ReportFilter): boolean {
  return normalized(filter).every((part) => !part);
}

/**
 * One text per filter, whatever the order or absence of its fields: the key under which its answers are kept (a
 * cache that keyed on the object as sent kept two answers for one filter).
 */
export function filterIdentity(filter: ReportFilter): string {
  return JSON.stringify(normalized(filter));
}
