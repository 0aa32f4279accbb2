import type { Ledger } from '@core/ledger/ledger';
import { type Row, rowShape } from '@core/ledger/rows';

const GROUP_ROW = rowShape({ org_no: 'int', group_name: 'text' });
const ENTRY_ROW = rowShape({ entry_no: 'int', billing_date: 'text?', content_start: 'text?', content_end: 'text?' });
/** A billing line with the organization, service and subscription it belongs to (their own fields, as the file nests them). */
const SHARE_ROW = rowShape({
  org_no: 'int',
  name: 'text?',
  customer_number: 'text?',
  org_id: 'text?',
  service_no: 'int',
  service_name: 'text?',
  service_id: 'text?',
  s_cost: 'decimal?',
  s_sales: 'decimal?',
  currency: 'text?',
  customer_currency: 'text?',
  subscription_no: 'int',
  item_name: 'text?',
  subscription_id: 'text?',
  po_number: 'text?',
  u_quantity: 'decimal?',
  u_cost: 'decimal?',
  u_sales: 'decimal?',
  u_cost_per_unit: 'decimal?',
  u_sales_per_unit: 'decimal?',
  product_name: 'text?',
  product_id: 'text?',
  item_code: 'text?',
  quantity: 'decimal?',
  cost_per_unit: 'decimal?',
  sales_per_unit: 'decimal?',
  cost: 'decimal?',
  sales: 'decimal?',
  item_details: 'text?',
});

export type ShareRow = Row<typeof SHARE_ROW.columns>;

/** Each organization's groups, by organization number, A→Z. */
export async function groupsByOrganization(ledger: Ledger, reportId: string): Promise<Map<number, string[]>> {
  const groups = new Map<number, string[]>();
  for (const row of GROUP_ROW.all(
    await ledger.all('SELECT org_no, group_name FROM organization_groups WHERE report_id = $1 ORDER BY org_no, group_name', [reportId]),
  )) {
    groups.set(row.org_no, [...(groups.get(row.org_no) ?? []), row.group_name]);
  }
  return groups;
}

/** The report's billing entries in their order. */
export async function billingEntries(ledger: Ledger, reportId: string) {
  return ENTRY_ROW.all(
    await ledger.all('SELECT entry_no, billing_date, content_start, content_end FROM billing_entries WHERE report_id = $1 ORDER BY entry_no', [reportId]),
  );
}

/** The lines of one billing entry with what they belong to, in the file's nesting order, a batch at a time. */
export async function* linesOfEntry(ledger: Ledger, reportId: string, entryNo: number): AsyncGenerator<ShareRow[]> {
  for await (const rows of ledger.stream(
    `SELECT o.org_no, o.name, o.customer_number, o.org_id, s.service_no, s.service_name, s.service_id, s.stated_cost AS s_cost, s.stated_sales AS s_sales, s.currency,
       s.customer_currency, u.subscription_no, u.item_name, u.subscription_id, u.po_number, u.quantity AS u_quantity, u.stated_cost AS u_cost, u.stated_sales AS u_sales,
       u.cost_per_unit AS u_cost_per_unit, u.sales_per_unit AS u_sales_per_unit, l.product_name, l.product_id, l.item_code, l.quantity, l.cost_per_unit, l.sales_per_unit,
       l.cost, l.sales, l.item_details
     FROM billing_lines l
     JOIN organizations o ON o.report_id = l.report_id AND o.org_no = l.org_no
     JOIN services s ON s.report_id = l.report_id AND s.service_no = l.service_no
     JOIN subscriptions u ON u.report_id = l.report_id AND u.subscription_no = l.subscription_no
     WHERE l.report_id = $1 AND o.entry_no = $2 ORDER BY l.org_no, l.service_no, l.subscription_no, l.line_no`,
    [reportId, entryNo],
  )) {
    yield SHARE_ROW.all(rows);
  }
}
