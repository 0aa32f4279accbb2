import type { ReportFilter } from '../../../shared/report-model';
import type { LedgerValue } from '../ledger/ledger';

/**
 * The billing lines of one report with what the viewer and the exports show beside them, as one SQL source.
 * `org_key` is the organization as the tree knows it (its id, or name and number when the id is missing);
 * `currency_key` is "SEK", or "USD→SEK" when bought and sold in different currencies (never added together).
 */
export const REPORT_LINES = `
  SELECT l.*, o.name AS org_name, o.customer_number, o.org_id, o.entry_no,
    CASE WHEN o.org_id <> '' THEN o.org_id ELSE o.name || '|' || o.customer_number END AS org_key,
    CASE WHEN l.currency = l.customer_currency THEN l.currency ELSE l.currency || '→' || l.customer_currency END AS currency_key,
    s.service_name, s.service_id, u.item_name, u.subscription_id, u.po_number, e.billing_date
  FROM billing_lines l
  JOIN organizations o ON o.report_id = l.report_id AND o.org_no = l.org_no
  JOIN services s ON s.report_id = l.report_id AND s.service_no = l.service_no
  JOIN subscriptions u ON u.report_id = l.report_id AND u.subscription_no = l.subscription_no
  LEFT JOIN billing_entries e ON e.report_id = l.report_id AND e.entry_no = o.entry_no`;

/**
 * A report's lines that pass the viewer's filter, as SQL with bound parameters only: nothing the user typed ever
 * becomes SQL text. Returns the statement and its parameters ($1 is the report id).
 */
export function filteredLines(reportId: string, filter: ReportFilter = {}): { sql: string; params: LedgerValue[] } {
  const params: LedgerValue[] = [reportId];
  const bind = (value: LedgerValue) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = ['l.report_id = $1'];
  if (filter.group) where.push(`EXISTS (SELECT 1 FROM organization_groups g WHERE g.report_id = l.report_id AND g.org_no = l.org_no AND g.group_name = ${bind(filter.group)})`);
  if (filter.service) where.push(`s.service_name = ${bind(filter.service)}`);
  if (filter.currency) where.push(`(CASE WHEN l.currency = l.customer_currency THEN l.currency ELSE l.currency || '→' || l.customer_currency END) = ${bind(filter.currency)}`);
  const organization = filter.organization?.trim().toLowerCase();
  if (organization) {
    const value = bind(organization);
    where.push(`(contains(lower(o.name), ${value}) OR contains(lower(o.customer_number), ${value}))`);
  }
  for (const word of filter.text?.trim().toLowerCase().split(/\s+/).filter(Boolean) ?? []) where.push(`contains(l.search_text, ${bind(word)})`);
  return { sql: `${REPORT_LINES} WHERE ${where.join(' AND ')}`, params };
}
