/**
 * The ledger's tables. Money is DECIMAL, never a binary float: amounts with 6 decimals, unit prices and quantities
 * with 8. All three fit DuckDB's 64-bit DECIMAL (width ≤ 18), whose appender takes the exact decimal text; sums come
 * back as DECIMAL(38, s), exact. A value beyond these bounds is refused at ingest naming the field, never rounded.
 */
export const AMOUNT = { precision: 18, scale: 6 } as const;
export const UNIT_PRICE = { precision: 18, scale: 8 } as const;
export const QUANTITY = { precision: 18, scale: 8 } as const;

const decimal = (type: { precision: number; scale: number }) => `DECIMAL(${type.precision}, ${type.scale})`;
const MONEY = decimal(AMOUNT);
const PRICE = decimal(UNIT_PRICE);
const QTY = decimal(QUANTITY);

/** Each migration takes the ledger one version up; applied in order inside one transaction each. */
export const MIGRATIONS: string[][] = [
  [
    `CREATE TABLE reports (
      report_id VARCHAR PRIMARY KEY,
      job_id VARCHAR UNIQUE,
      name VARCHAR NOT NULL,
      profile_id VARCHAR NOT NULL,
      profile_name VARCHAR NOT NULL,
      host VARCHAR NOT NULL,
      reseller_id VARCHAR NOT NULL,
      period_start VARCHAR NOT NULL,
      period_end VARCHAR NOT NULL,
      fetched_at VARCHAR NOT NULL,
      source VARCHAR NOT NULL,
      source_file VARCHAR,
      entry_count INTEGER NOT NULL,
      organization_count INTEGER NOT NULL,
      service_count INTEGER NOT NULL,
      subscription_count INTEGER NOT NULL,
      line_count INTEGER NOT NULL
    )`,
    `CREATE TABLE billing_entries (report_id VARCHAR NOT NULL, entry_no INTEGER NOT NULL, billing_date VARCHAR, content_start VARCHAR, content_end VARCHAR)`,
    `CREATE TABLE organizations (report_id VARCHAR NOT NULL, org_no INTEGER NOT NULL, entry_no INTEGER NOT NULL, org_id VARCHAR NOT NULL, name VARCHAR NOT NULL, customer_number VARCHAR NOT NULL, search VARCHAR NOT NULL)`,
    `CREATE TABLE organization_groups (report_id VARCHAR NOT NULL, org_no INTEGER NOT NULL, group_name VARCHAR NOT NULL)`,
    `CREATE TABLE services (
      report_id VARCHAR NOT NULL, service_no INTEGER NOT NULL, org_no INTEGER NOT NULL, service_id VARCHAR NOT NULL, service_name VARCHAR NOT NULL,
      currency VARCHAR NOT NULL, customer_currency VARCHAR NOT NULL, stated_cost ${MONEY} NOT NULL, stated_sales ${MONEY} NOT NULL, search VARCHAR NOT NULL)`,
    `CREATE TABLE subscriptions (
      report_id VARCHAR NOT NULL, subscription_no INTEGER NOT NULL, service_no INTEGER NOT NULL, org_no INTEGER NOT NULL,
      subscription_id VARCHAR NOT NULL, item_name VARCHAR NOT NULL, po_number VARCHAR NOT NULL, quantity ${QTY},
      stated_cost ${MONEY} NOT NULL, stated_sales ${MONEY} NOT NULL, cost_per_unit ${PRICE}, sales_per_unit ${PRICE}, search VARCHAR NOT NULL)`,
    `CREATE TABLE billing_lines (
      report_id VARCHAR NOT NULL, line_no INTEGER NOT NULL, subscription_no INTEGER NOT NULL, service_no INTEGER NOT NULL, org_no INTEGER NOT NULL,
      product_id VARCHAR NOT NULL, product_name VARCHAR NOT NULL, item_code VARCHAR NOT NULL, quantity ${QTY} NOT NULL,
      cost_per_unit ${PRICE} NOT NULL, sales_per_unit ${PRICE} NOT NULL, cost ${MONEY} NOT NULL, sales ${MONEY} NOT NULL, item_details VARCHAR NOT NULL,
      currency VARCHAR NOT NULL, customer_currency VARCHAR NOT NULL, product_no INTEGER NOT NULL)`,
    /** The distinct (product, id, item code, details) of a report: what a line's own text is searched in. */
    `CREATE TABLE products (report_id VARCHAR NOT NULL, product_no INTEGER NOT NULL, search VARCHAR NOT NULL)`,
    /** Per currency pair, computed from the lines at ingest (the stated totals stay in services and subscriptions). */
    `CREATE TABLE report_totals (
      report_id VARCHAR NOT NULL, currency VARCHAR NOT NULL, customer_currency VARCHAR NOT NULL, line_count INTEGER NOT NULL,
      cost DECIMAL(38, ${AMOUNT.scale}) NOT NULL, sales DECIMAL(38, ${AMOUNT.scale}) NOT NULL)`,
  ],
  /**
   * Closing a month. Reviews, sign-offs and rates belong to the month — (host, reseller id, period) — not to one
   * fetch of it, so a note survives a refetch. The review log is append-only: every change of state is a new row.
   */
  [
    `CREATE TABLE exception_reviews (
      host VARCHAR NOT NULL, reseller_id VARCHAR NOT NULL, period_start VARCHAR NOT NULL, period_end VARCHAR NOT NULL, exception_id VARCHAR NOT NULL,
      state VARCHAR NOT NULL, note VARCHAR NOT NULL, reviewed_by VARCHAR NOT NULL, reviewed_at VARCHAR NOT NULL,
      PRIMARY KEY (host, reseller_id, period_start, period_end, exception_id))`,
    `CREATE TABLE review_log (
      host VARCHAR NOT NULL, reseller_id VARCHAR NOT NULL, period_start VARCHAR NOT NULL, period_end VARCHAR NOT NULL, exception_id VARCHAR NOT NULL,
      action VARCHAR NOT NULL, note VARCHAR NOT NULL, by_name VARCHAR NOT NULL, os_user VARCHAR NOT NULL, logged_at VARCHAR NOT NULL)`,
    `CREATE TABLE sign_offs (
      host VARCHAR NOT NULL, reseller_id VARCHAR NOT NULL, period_start VARCHAR NOT NULL, period_end VARCHAR NOT NULL, report_id VARCHAR NOT NULL,
      content_hash VARCHAR NOT NULL, signed_by VARCHAR NOT NULL, os_user VARCHAR NOT NULL, signed_at VARCHAR NOT NULL,
      reopened_at VARCHAR, reopened_by VARCHAR, reopen_reason VARCHAR)`,
    `CREATE TABLE month_rates (
      host VARCHAR NOT NULL, reseller_id VARCHAR NOT NULL, period_start VARCHAR NOT NULL, period_end VARCHAR NOT NULL,
      reference_currency VARCHAR NOT NULL, currency VARCHAR NOT NULL, rate ${PRICE} NOT NULL,
      PRIMARY KEY (host, reseller_id, period_start, period_end, currency))`,
  ],
  /** The file an imported report came from (its name only), so the list can tell a copy from the original. */
  [`ALTER TABLE reports ADD COLUMN imported_from VARCHAR`],
];

/**
 * What the viewer's free-text filter searches, per level (organization, service, subscription, product): its
 * names and ids, lower-case, joined by a character no one types. A line matches a word when any level above it
 * does; the levels are small tables, so a keystroke never scans the text of a million lines.
 */
export function searchText(parts: string[]): string {
  return parts.join('\u0001').toLowerCase();
}

/** Column order of the appended tables (the appender fills columns in table order). */
export const APPENDED = {
  organizations: ['report_id', 'org_no', 'entry_no', 'org_id', 'name', 'customer_number', 'search'],
  organization_groups: ['report_id', 'org_no', 'group_name'],
  services: ['report_id', 'service_no', 'org_no', 'service_id', 'service_name', 'currency', 'customer_currency', 'stated_cost', 'stated_sales', 'search'],
  subscriptions: ['report_id', 'subscription_no', 'service_no', 'org_no', 'subscription_id', 'item_name', 'po_number', 'quantity', 'stated_cost', 'stated_sales', 'cost_per_unit', 'sales_per_unit', 'search'],
  billing_lines: ['report_id', 'line_no', 'subscription_no', 'service_no', 'org_no', 'product_id', 'product_name', 'item_code', 'quantity', 'cost_per_unit', 'sales_per_unit', 'cost', 'sales', 'item_details', 'currency', 'customer_currency', 'product_no'],
  products: ['report_id', 'product_no', 'search'],
  billing_entries: ['report_id', 'entry_no', 'billing_date', 'content_start', 'content_end'],
} as const;
export type AppendedTable = keyof typeof APPENDED;
