import type { ReportFilter } from '@shared/report-filter';
import { currenciesOf } from '@shared/model/currency-pair';
import { currencyPairSql, ORG_KEY } from '@core/ledger/keys';
import { foldForSearch } from '@shared/search-fold';
import type { LedgerValue } from '@core/ledger/ledger';

/**
 * The billing lines of one report with what the viewer and the exports show beside them, as one SQL source.
 * `org_key` is the organization as the tree knows it (its id, or name and number when the id is missing);
 * `currency_key` is "SEK", or "USD→SEK" when bought and sold in different currencies (never added together).
 */
export const REPORT_LINES = `
  SELECT l.*, o.name AS org_name, o.customer_number, o.org_id, o.entry_no,
    ${ORG_KEY} AS org_key,
    ${currencyPairSql('l')} AS currency_key,
    s.service_name, s.service_id, u.item_name, u.subscription_id, u.po_number, e.billing_date
  FROM billing_lines l
  JOIN organizations o ON o.report_id = l.report_id AND o.org_no = l.org_no
  JOIN services s ON s.report_id = l.report_id AND s.service_no = l.service_no
  JOIN subscriptions u ON u.report_id = l.report_id AND u.subscription_no = l.subscription_no
  LEFT JOIN billing_entries e ON e.report_id = l.report_id AND e.entry_no = o.entry_no`;

/**
 * The condition on `billing_lines l` for the viewer's filter, with bound parameters only: nothing the user typed
 * ever becomes SQL text ($1 is the report id). It touches the lines table alone — organizations, groups and
 * services are matched in their own small tables first — so a keystroke scans one table once.
 */
export function lineFilter(reportId: string, filter: ReportFilter = {}): { where: string; params: LedgerValue[] } {
  const params: LedgerValue[] = [reportId];
  const bind = (value: LedgerValue) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = ['l.report_id = $1'];
  if (filter.ungrouped) where.push('l.org_no NOT IN (SELECT org_no FROM organization_groups WHERE report_id = $1)');
  if (filter.group) where.push(`l.org_no IN (SELECT org_no FROM organization_groups WHERE report_id = $1 AND group_name = ${bind(filter.group)})`);
  if (filter.service) where.push(`l.service_no IN (SELECT service_no FROM services WHERE report_id = $1 AND service_name = ${bind(filter.service)})`);
  if (filter.currency) {
    const { cost, sales } = currenciesOf(filter.currency);
    where.push(`l.currency = ${bind(cost)} AND l.customer_currency = ${bind(sales)}`);
  }
  // Both filters ignore case and diacritics ("akerberg" finds Åkerberg): they read the organizations' search text,
  // folded at ingest (name, customer number and id), so a keystroke folds nothing row by row.
  const organization = foldForSearch(filter.organization?.trim() ?? '');
  if (organization) where.push(`l.org_no IN (SELECT org_no FROM organizations WHERE report_id = $1 AND contains(search, ${bind(organization)}))`);
  for (const word of foldForSearch(filter.text?.trim() ?? '')
    .split(/\s+/)
    .filter(Boolean)) {
    const value = bind(word);
    const matching = (table: string, column: string) => `l.${column} IN (SELECT ${column} FROM ${table} WHERE report_id = $1 AND contains(search, ${value}))`;
    where.push(
      `(${matching('products', 'product_no')} OR ${matching('subscriptions', 'subscription_no')} OR ${matching('services', 'service_no')} OR ${matching('organizations', 'org_no')})`,
    );
  }
  return { where: where.join(' AND '), params };
}

/** A report's lines that pass the viewer's filter, with every column REPORT_LINES gives ($1 is the report id). */
export function filteredLines(reportId: string, filter: ReportFilter = {}): { sql: string; params: LedgerValue[] } {
  const { where, params } = lineFilter(reportId, filter);
  return { sql: `${REPORT_LINES} WHERE ${where}`, params };
}
