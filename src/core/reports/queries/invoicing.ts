import { isEmptyFilter, type ReportFilter } from '@shared/report-filter';
import type { Ledger } from '@core/ledger/ledger';
import { type Row, rowShape } from '@core/ledger/rows';
import { ORGANIZATION_ORDER } from './export-lines';
import { reportLineFilter } from './lines';

const INVOICE = rowShape({
  org_key: 'text',
  name: 'text',
  customer_number: 'text',
  org_id: 'text',
  org_rank: 'int',
  groups: 'text',
  currency: 'text',
  lines: 'int',
  sales: 'decimal',
  margin: 'decimal?',
  margin_partial: 'bool',
  differs: 'bool',
  costs: 'text',
});
export type InvoiceQueryRow = Row<typeof INVOICE.columns>;

/**
 * One row per organization and customer currency for the lines the filter keeps: the exact sum of its sales over
 * every service, cost per purchase currency (JSON), the margin of the part bought in the invoice currency (and whether
 * more was bought in another, which has none in one currency), and whether a stated total differs.
 * One pass over the lines, grouped by subscription, gives both the filtered sums and whether each subscription's
 * stated total differs from its whole sum (as the viewer checks it).
 */
export async function invoiceRows(ledger: Ledger, reportId: string, filter: ReportFilter): Promise<InvoiceQueryRow[]> {
  const { where, params } = await reportLineFilter(ledger, reportId, filter);
  // Grouped by subscription number alone (one integer key), then joined to its subscription's stated totals.
  const perSubscription = isEmptyFilter(filter)
    ? `SELECT subscription_no, count(*) AS lines, sum(cost) AS cost, sum(sales) AS sales, sum(cost) AS all_cost, sum(sales) AS all_sales
       FROM billing_lines l WHERE ${where} GROUP BY subscription_no`
    : `SELECT subscription_no, count(*) FILTER (WHERE kept) AS lines, sum(cost) FILTER (WHERE kept) AS cost, sum(sales) FILTER (WHERE kept) AS sales,
         sum(cost) AS all_cost, sum(sales) AS all_sales
       FROM (SELECT subscription_no, cost, sales, (${where}) AS kept FROM billing_lines l WHERE l.report_id = $1)
       GROUP BY subscription_no HAVING bool_or(kept)`;
  return INVOICE.all(
    await ledger.all(
      `WITH per_subscription AS (${perSubscription}),
     per_service AS (
       SELECT u.service_no, sum(p.lines) AS lines, sum(p.cost) AS cost, sum(p.sales) AS sales,
         bool_or(u.stated_cost <> p.all_cost OR u.stated_sales <> p.all_sales) AS subscription_differs
       FROM per_subscription p JOIN subscriptions u ON u.report_id = $1 AND u.subscription_no = p.subscription_no
       GROUP BY u.service_no),
     stated_by_subscriptions AS (
       SELECT service_no, sum(stated_cost) AS cost, sum(stated_sales) AS sales FROM subscriptions WHERE report_id = $1 GROUP BY service_no),
     organization AS MATERIALIZED (${ORGANIZATION_ORDER}),
     per_cost AS (
       SELECT s.org_no, s.customer_currency, s.currency, sum(p.lines) AS lines, sum(p.cost) AS cost, sum(p.sales) AS sales,
         bool_or(p.subscription_differs OR s.stated_cost <> t.cost OR s.stated_sales <> t.sales) AS differs
       FROM per_service p
       JOIN services s ON s.report_id = $1 AND s.service_no = p.service_no
       JOIN stated_by_subscriptions t ON t.service_no = p.service_no
       GROUP BY ALL),
     per_currency AS (
       SELECT o.org_key, c.customer_currency, c.currency, sum(c.lines) AS lines, sum(c.cost) AS cost, sum(c.sales) AS sales, bool_or(c.differs) AS differs
       FROM per_cost c JOIN organization o ON o.org_no = c.org_no GROUP BY ALL),
     per_invoice AS (
       SELECT org_key, customer_currency, sum(lines) AS lines, sum(sales) AS sales, bool_or(differs) AS differs,
         sum(sales - cost) FILTER (WHERE currency = customer_currency) AS margin, count(*) > 1 AND bool_or(currency = customer_currency) AS margin_partial,
         list({'currency': currency, 'amount': cost::VARCHAR} ORDER BY currency) AS costs
       FROM per_currency GROUP BY ALL),
     organization_info AS (
       SELECT o.org_key, any_value(o.name) AS name, any_value(o.customer_number) AS customer_number, any_value(o.org_id) AS org_id,
         any_value(o.org_rank) AS org_rank, coalesce(list_sort(list(DISTINCT g.group_name) FILTER (WHERE g.group_name IS NOT NULL)), []) AS groups
       FROM organization o LEFT JOIN organization_groups g ON g.report_id = $1 AND g.org_no = o.org_no
       GROUP BY o.org_key)
     SELECT i.org_key, n.name, n.customer_number, n.org_id, n.org_rank, to_json(n.groups)::VARCHAR AS groups, i.customer_currency AS currency,
       i.lines, i.sales::VARCHAR AS sales, i.margin::VARCHAR AS margin, i.margin_partial, i.differs,
       to_json(i.costs)::VARCHAR AS costs
     FROM per_invoice i JOIN organization_info n ON n.org_key = i.org_key
     ORDER BY n.org_rank, i.customer_currency`,
      params,
    ),
  );
}
