import type { ReportFilter } from '../../../shared/report-filter';
import type { Ledger, LedgerValue } from '../ledger/ledger';
import { lineFilter } from './report-query';

/**
 * One billing line as the workbook and the CSV write it, in the workbook's column order: text as sent, amounts
 * and quantities as exact decimal text, `margin` null where cost and sales are in different currencies.
 */
export const LINE_FIELDS = [
  'org_name', 'customer_number', 'org_id', 'organization_groups', 'service_name', 'service_id', 'item_name', 'subscription_id',
  'po_number', 'product_name', 'product_id', 'item_code', 'quantity', 'cost_per_unit', 'sales_per_unit', 'cost', 'sales', 'margin',
  'currency', 'customer_currency', 'billing_date', 'item_details',
] as const;
export type LineField = (typeof LINE_FIELDS)[number];
/** Values by position in LINE_FIELDS. */
export type ExportLine = (string | null)[];

const SQL_OF: Record<LineField, string> = {
  org_name: 'o.name',
  customer_number: 'o.customer_number',
  org_id: 'o.org_id',
  organization_groups: "coalesce(g.names, '')",
  service_name: 's.service_name',
  service_id: 's.service_id',
  item_name: 'u.item_name',
  subscription_id: 'u.subscription_id',
  po_number: 'u.po_number',
  product_name: 'l.product_name',
  product_id: 'l.product_id',
  item_code: 'l.item_code',
  quantity: 'l.quantity::VARCHAR',
  cost_per_unit: 'l.cost_per_unit::VARCHAR',
  sales_per_unit: 'l.sales_per_unit::VARCHAR',
  cost: 'l.cost::VARCHAR',
  sales: 'l.sales::VARCHAR',
  margin: 'CASE WHEN l.currency = l.customer_currency THEN (l.sales - l.cost)::VARCHAR END',
  currency: 'l.currency',
  customer_currency: 'l.customer_currency',
  billing_date: 'e.billing_date',
  item_details: 'l.item_details',
};

/** Lines per query: each window is sorted on its own, so DuckDB's memory stays the same for any report size. */
export const LINE_WINDOW = 50_000;

/**
 * Streams the lines of a report that pass the filter, in report order, in batches. Two things keep a million
 * lines fast and flat: the lines are read in windows of line numbers (each window joins only the organizations,
 * services and subscriptions its lines use, found by their number ranges — never a sort of the whole month), and
 * each line crosses from DuckDB as one JSON text (node-api reads every value separately, and 22 values a line cost
 * more than the whole workbook).
 */
export async function* exportLines(ledger: Ledger, reportId: string, filter: ReportFilter = {}, window = LINE_WINDOW): AsyncGenerator<ExportLine[]> {
  const { where, params } = lineFilter(reportId, filter);
  const windows = await ledger.all(
    `SELECT min(line_no) AS first_line, max(line_no) AS last_line, min(org_no) AS first_org, max(org_no) AS last_org,
       min(service_no) AS first_service, max(service_no) AS last_service, min(subscription_no) AS first_subscription, max(subscription_no) AS last_subscription
     FROM billing_lines l WHERE ${where} GROUP BY (line_no - 1) // ${Math.max(1, Math.floor(window))} ORDER BY first_line`,
    params,
  );
  const at = params.length;
  const range = (column: string, index: number) => `l.${column} BETWEEN $${at + index} AND $${at + index + 1}`;
  const sql = `
    WITH g AS (
      SELECT org_no, string_agg(group_name, ', ' ORDER BY group_name) AS names FROM organization_groups
      WHERE report_id = $1 AND org_no BETWEEN $${at + 3} AND $${at + 4} GROUP BY org_no)
    SELECT to_json([${LINE_FIELDS.map((field) => SQL_OF[field]).join(', ')}]) AS line
    FROM billing_lines l
    JOIN organizations o ON o.report_id = l.report_id AND o.org_no = l.org_no
    JOIN services s ON s.report_id = l.report_id AND s.service_no = l.service_no
    JOIN subscriptions u ON u.report_id = l.report_id AND u.subscription_no = l.subscription_no
    LEFT JOIN billing_entries e ON e.report_id = l.report_id AND e.entry_no = o.entry_no
    LEFT JOIN g ON g.org_no = l.org_no
    WHERE ${where} AND ${range('line_no', 1)} AND ${range('org_no', 3)} AND ${range('service_no', 5)} AND ${range('subscription_no', 7)}
    ORDER BY l.line_no`;
  async function* batches() {
    for (const bounds of windows) {
      const values: LedgerValue[] = ['line', 'org', 'service', 'subscription'].flatMap((name) => [Number(bounds[`first_${name}`]), Number(bounds[`last_${name}`])]);
      for await (const rows of ledger.stream(sql, [...params, ...values])) yield rows;
    }
  }
  for await (const rows of oneAhead(batches())) yield rows.map((row) => JSON.parse(String(row.line)) as ExportLine);
}

/**
 * Asks for the next item before handing out the current one, so DuckDB works on the next batch (on its own
 * threads) while the caller writes this one.
 */
async function* oneAhead<T>(source: AsyncGenerator<T>): AsyncGenerator<T> {
  let next = source.next();
  try {
    for (;;) {
      const current = await next;
      if (current.done) return;
      next = source.next();
      next.catch(() => undefined); // seen by the await above; a caller that stops early must not leave it unhandled
      yield current.value;
    }
  } finally {
    // The caller stopped early (or failed): let the pending read settle, then close the source and its connection.
    await next.catch(() => undefined);
    await source.return(undefined);
  }
}
