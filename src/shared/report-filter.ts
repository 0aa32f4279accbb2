/** The viewer's filter, as the renderer sends it and the ledger's queries and exports apply it. */
export interface ReportFilter {
  group?: string | undefined;
  /** Organization name or customer number (substring, any case). */
  organization?: string | undefined;
  service?: string | undefined;
  currency?: string | undefined;
  text?: string | undefined;
  /** Only organizations in no organization group. */
  ungrouped?: boolean | undefined;
}

export function isEmptyFilter(filter: ReportFilter): boolean {
  return !filter.group && !filter.organization?.trim() && !filter.service && !filter.currency && !filter.text?.trim() && !filter.ungrouped;
}
