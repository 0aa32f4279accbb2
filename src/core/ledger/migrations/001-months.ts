import { MONEY, MONEY_SUM, PRICE, QTY } from '../types';

/**
 * The saved months: a report, its billing entries, organizations (and their groups), services, subscriptions and
 * billing lines, the distinct products, and the totals per currency pair. Each table is declared here once, its
 * columns in order: the CREATE TABLE statement and the appender's column list (ingest appends rows in table
 * order) are both made from it.
 */
// A table: one column a line reads best.
// prettier-ignore
export const MONTH_TABLES = {
  reports: {
    report_id: 'VARCHAR PRIMARY KEY', job_id: 'VARCHAR UNIQUE', name: 'VARCHAR NOT NULL', profile_id: 'VARCHAR NOT NULL', profile_name: 'VARCHAR NOT NULL',
    host: 'VARCHAR NOT NULL', reseller_id: 'VARCHAR NOT NULL', period_start: 'VARCHAR NOT NULL', period_end: 'VARCHAR NOT NULL', fetched_at: 'VARCHAR NOT NULL',
    source: 'VARCHAR NOT NULL', source_file: 'VARCHAR', entry_count: 'INTEGER NOT NULL', organization_count: 'INTEGER NOT NULL', service_count: 'INTEGER NOT NULL',
    subscription_count: 'INTEGER NOT NULL', line_count: 'INTEGER NOT NULL',
  },
  billing_entries: { report_id: 'VARCHAR NOT NULL', entry_no: 'INTEGER NOT NULL', billing_date: 'VARCHAR', content_start: 'VARCHAR', content_end: 'VARCHAR' },
  organizations: {
    report_id: 'VARCHAR NOT NULL', org_no: 'INTEGER NOT NULL', entry_no: 'INTEGER NOT NULL', org_id: 'VARCHAR NOT NULL', name: 'VARCHAR NOT NULL',
    customer_number: 'VARCHAR NOT NULL', search: 'VARCHAR NOT NULL',
  },
  organization_groups: { report_id: 'VARCHAR NOT NULL', org_no: 'INTEGER NOT NULL', group_name: 'VARCHAR NOT NULL' },
  services: {
    report_id: 'VARCHAR NOT NULL', service_no: 'INTEGER NOT NULL', org_no: 'INTEGER NOT NULL', service_id: 'VARCHAR NOT NULL', service_name: 'VARCHAR NOT NULL',
    currency: 'VARCHAR NOT NULL', customer_currency: 'VARCHAR NOT NULL', stated_cost: `${MONEY} NOT NULL`, stated_sales: `${MONEY} NOT NULL`, search: 'VARCHAR NOT NULL',
  },
  subscriptions: {
    report_id: 'VARCHAR NOT NULL', subscription_no: 'INTEGER NOT NULL', service_no: 'INTEGER NOT NULL', org_no: 'INTEGER NOT NULL',
    subscription_id: 'VARCHAR NOT NULL', item_name: 'VARCHAR NOT NULL', po_number: 'VARCHAR NOT NULL', quantity: QTY, stated_cost: `${MONEY} NOT NULL`,
    stated_sales: `${MONEY} NOT NULL`, cost_per_unit: PRICE, sales_per_unit: PRICE, search: 'VARCHAR NOT NULL',
  },
  billing_lines: {
    report_id: 'VARCHAR NOT NULL', line_no: 'INTEGER NOT NULL', subscription_no: 'INTEGER NOT NULL', service_no: 'INTEGER NOT NULL', org_no: 'INTEGER NOT NULL',
    product_id: 'VARCHAR NOT NULL', product_name: 'VARCHAR NOT NULL', item_code: 'VARCHAR NOT NULL', quantity: `${QTY} NOT NULL`, cost_per_unit: `${PRICE} NOT NULL`,
    sales_per_unit: `${PRICE} NOT NULL`, cost: `${MONEY} NOT NULL`, sales: `${MONEY} NOT NULL`, item_details: 'VARCHAR NOT NULL', currency: 'VARCHAR NOT NULL',
    customer_currency: 'VARCHAR NOT NULL', product_no: 'INTEGER NOT NULL',
  },
  /** The distinct (product, id, item code, details) of a report: what a line's own text is searched in. */
  products: { report_id: 'VARCHAR NOT NULL', product_no: 'INTEGER NOT NULL', search: 'VARCHAR NOT NULL' },
  /** Per currency pair, computed from the lines at ingest (the stated totals stay in services and subscriptions). */
  report_totals: {
    report_id: 'VARCHAR NOT NULL', currency: 'VARCHAR NOT NULL', customer_currency: 'VARCHAR NOT NULL', line_count: 'INTEGER NOT NULL',
    cost: `${MONEY_SUM} NOT NULL`, sales: `${MONEY_SUM} NOT NULL`,
  },
} as const satisfies Record<string, Record<string, string>>;

/** A table made from its declaration: its columns (name → type) in order. */
export function createTable(table: string, columns: Readonly<Record<string, string>>): string {
  return `CREATE TABLE ${table} (${Object.entries(columns)
    .map(([column, type]) => `${column} ${type}`)
    .join(', ')})`;
}

/**
 * A table made again with `columns` (DuckDB fixes a column's compression when its table is made, and a migration
 * may not alter a table an earlier one in its transaction updated), its rows copied over with `added` columns last.
 */
export function remadeTable(table: string, columns: Readonly<Record<string, string>>, added: readonly string[] = []): string[] {
  return [
    createTable(`${table}_remade`, columns),
    `INSERT INTO ${table}_remade SELECT *${added.map(() => ', NULL').join('')} FROM ${table}`,
    `DROP TABLE ${table}`,
    `ALTER TABLE ${table}_remade RENAME TO ${table}`,
  ];
}

export const MONTHS: string[] = Object.entries(MONTH_TABLES).map(([table, columns]) => createTable(table, columns));
