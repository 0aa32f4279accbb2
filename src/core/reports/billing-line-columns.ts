import type { CellKind } from '@core/xlsx';
import { AMOUNT, type DecimalType, QUANTITY, UNIT_PRICE } from '@core/ledger/types';

/**
 * How a workbook formats a column: the amount or unit price in the line's purchase currency (`cost`, `unit-cost`)
 * or its sales currency (`sales`, `unit-sales`, and margin, which exists only where the two are one), a quantity,
 * a date — or as text.
 */
export type LineFormat = 'quantity' | 'unit-cost' | 'unit-sales' | 'cost' | 'sales' | 'date' | 'text';

export interface BillingLineColumn {
  /** The value's name: its place in an exported line, and its name in SQL. */
  field: string;
  /**
   * Its SQL. `l.` is the line itself; everything else is what the line belongs to, looked up once per subscription
   * (o organization, s service, u subscription, e billing entry, g the organization's groups as one text).
   */
  sql: string;
  kind: CellKind;
  /** A number's type: the DECIMAL the ledger keeps it in (ledger/types.ts), so its text can be made in SQL. */
  decimal?: DecimalType;
  /** The `Billing lines` sheet: header (exactly, for ERP import), width, number format. */
  sheet: { header: string; width: number; format: LineFormat };
  /** Its header in the CSV and Parquet files; null where those leave it out. */
  file: string | null;
}

/** Sales less cost: one digit wider than an amount, as DuckDB makes a difference. */
const MARGIN = { precision: AMOUNT.precision + 1, scale: AMOUNT.scale };

/**
 * The billing-line table of every export, in its column order: the workbook's `Billing lines` sheet, the CSV and
 * Parquet files (the columns with a `file` header, in the same order), and the lines the viewer's export streams.
 * Each header is written here and nowhere else. Amounts and quantities are exact decimals; margin exists only where
 * cost and sales share a currency (amounts in two currencies are never subtracted).
 */
// A table: one column a line reads best.
// prettier-ignore
export const BILLING_LINE_COLUMNS = [
  { field: 'org_name', sql: 'o.name', kind: 'text', sheet: { header: 'Organization', width: 34, format: 'text' }, file: 'Organization' },
  { field: 'customer_number', sql: 'o.customer_number', kind: 'text', sheet: { header: 'Customer number', width: 16, format: 'text' }, file: 'Customer number' },
  { field: 'org_id', sql: 'o.org_id', kind: 'text', sheet: { header: 'Org ID', width: 38, format: 'text' }, file: 'Org ID' },
  { field: 'organization_groups', sql: "coalesce(g.names, '')", kind: 'text', sheet: { header: 'Organization groups', width: 34, format: 'text' }, file: null },
  { field: 'service_name', sql: 's.service_name', kind: 'text', sheet: { header: 'Service', width: 30, format: 'text' }, file: 'Service' },
  { field: 'service_id', sql: 's.service_id', kind: 'text', sheet: { header: 'Service ID', width: 38, format: 'text' }, file: 'Service ID' },
  { field: 'item_name', sql: 'u.item_name', kind: 'text', sheet: { header: 'Subscription', width: 40, format: 'text' }, file: 'Subscription' },
  { field: 'subscription_id', sql: 'u.subscription_id', kind: 'text', sheet: { header: 'Subscription ID', width: 38, format: 'text' }, file: 'Subscription ID' },
  { field: 'po_number', sql: 'u.po_number', kind: 'text', sheet: { header: 'PO number', width: 14, format: 'text' }, file: 'PO number' },
  { field: 'product_name', sql: 'l.product_name', kind: 'text', sheet: { header: 'Product', width: 38, format: 'text' }, file: 'Product' },
  { field: 'product_id', sql: 'l.product_id', kind: 'text', sheet: { header: 'Product ID', width: 38, format: 'text' }, file: 'Product ID' },
  { field: 'item_code', sql: 'l.item_code', kind: 'text', sheet: { header: 'Item code', width: 20, format: 'text' }, file: 'Item code' },
  { field: 'quantity', sql: 'l.quantity', kind: 'number', decimal: QUANTITY, sheet: { header: 'Quantity', width: 10, format: 'quantity' }, file: 'Quantity' },
  { field: 'cost_per_unit', sql: 'l.cost_per_unit', kind: 'number', decimal: UNIT_PRICE, sheet: { header: 'Reseller price per unit', width: 16, format: 'unit-cost' }, file: 'Reseller price per unit' },
  { field: 'sales_per_unit', sql: 'l.sales_per_unit', kind: 'number', decimal: UNIT_PRICE, sheet: { header: 'Customer price per unit', width: 16, format: 'unit-sales' }, file: 'Customer price per unit' },
  { field: 'cost', sql: 'l.cost', kind: 'number', decimal: AMOUNT, sheet: { header: 'Total reseller price', width: 18, format: 'cost' }, file: 'Cost' },
  { field: 'sales', sql: 'l.sales', kind: 'number', decimal: AMOUNT, sheet: { header: 'Total customer price', width: 18, format: 'sales' }, file: 'Sales' },
  { field: 'margin', sql: 'CASE WHEN l.currency = l.customer_currency THEN l.sales - l.cost END', kind: 'number', decimal: MARGIN, sheet: { header: 'Margin', width: 16, format: 'sales' }, file: null },
  // A line's currencies are its service's (the service states them; ingest copies them onto each line for the viewer's
  // sums): taken from the service, a CSV escapes 60,000 services' instead of 1,000,000 lines' (median 2.86 s against
  // 3.31 s, sixteen runs each alternating, the ranges 2.75–3.78 s and 2.37–3.92 s; the same bytes).
  { field: 'currency', sql: 's.currency', kind: 'text', sheet: { header: 'Currency', width: 9, format: 'text' }, file: 'Currency' },
  { field: 'customer_currency', sql: 's.customer_currency', kind: 'text', sheet: { header: 'Customer currency', width: 9, format: 'text' }, file: 'Customer currency' },
  { field: 'billing_date', sql: 'e.billing_date', kind: 'date', sheet: { header: 'Billing date', width: 12, format: 'date' }, file: 'Billing date' },
  { field: 'item_details', sql: 'l.item_details', kind: 'text', sheet: { header: 'Item details', width: 30, format: 'text' }, file: 'Item details' },
] as const satisfies readonly BillingLineColumn[];

export type LineField = (typeof BILLING_LINE_COLUMNS)[number]['field'];

/** The fields in column order: an exported line's values are in this order. */
export const LINE_FIELDS: readonly LineField[] = BILLING_LINE_COLUMNS.map((column) => column.field);

/** The columns of the CSV and Parquet files, in their order. */
export const FILE_COLUMNS = BILLING_LINE_COLUMNS.flatMap((column) => (column.file === null ? [] : [{ ...column, file: column.file }]));
