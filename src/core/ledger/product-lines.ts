import type { Ledger, LedgerStatements } from './ledger';
import { ORG_KEY } from './keys';

/**
 * A month's product lines: its billing lines summed per organization (ORG_KEY), service id, subscription id, product
 * id and currency pair — what two months are compared on (close/queries/compare.ts). Summed once per month, just
 * after it is saved (a month saved before they existed: at its first comparison), so a comparison joins two such
 * tables instead of grouping two million lines each time. `unit_price` and `unit_cost` are those all the product
 * line's lines share (NULL when they differ); `first_line` is its first line, which names it; `key_hash` is its key
 * (PRODUCT_LINE_KEY) as one number, what the months are joined on (keyHashSql).
 */
export const PRODUCT_LINE_TABLES = {
  product_lines: `report_id VARCHAR NOT NULL, org_key VARCHAR, service_id VARCHAR, subscription_id VARCHAR, product_id VARCHAR,
    currency VARCHAR, customer_currency VARCHAR, quantity DECIMAL(38, 8), cost DECIMAL(38, 6), sales DECIMAL(38, 6),
    unit_price DECIMAL(18, 8), unit_cost DECIMAL(18, 8), first_line INTEGER, key_hash UHUGEINT NOT NULL`,
};

/** The columns a product line is known by in every month (hashed as one list, keyHashSql: an absent id is one key). */
export const PRODUCT_LINE_KEY = ['org_key', 'service_id', 'subscription_id', 'product_id', 'currency', 'customer_currency'] as const;

/**
 * A product line's key (PRODUCT_LINE_KEY, over the columns as named in `columns`) as one 128-bit number: the first half
 * of the SHA-256 of the key's columns as a JSON list, which tells an absent id (null) from any text and cannot be made
 * ambiguous by a name. Two months joined on it take 0.4 s at 1,000,000 lines, against 1.7 s on the six columns of
 * text; taken when the month's product lines are summed (0.4–0.9 s more a month). SHA-256 rather than a faster hash so
 * that no name or id, however chosen, can give two keys one number: a collision would pair two different products.
 */
export const keyHashSql = (columns: readonly string[]) => {
  const hex = `sha256(to_json([${columns.join(', ')}])::VARCHAR)`;
  // DuckDB reads hexadecimal text into 64 bits at most: the two halves are read apart and joined.
  return `((('0x' || ${hex}[1:16])::UBIGINT::UHUGEINT << 64) | ('0x' || ${hex}[17:32])::UBIGINT)`;
};

/** One value all of a product line's lines share, or NULL when they differ. */
const shared = (column: string) => `CASE WHEN min(${column}) = max(${column}) THEN min(${column}) END`;

/** One table's rows of the month ($1). */
const ofMonth = (table: string) => `(SELECT * FROM ${table} WHERE report_id = $1)`;

/**
 * Sums the product lines of one report ($1). Each table is cut to the month first and joined on its numbers alone,
 * so the planner never pairs two tables on the month alone: without statistics (rows not yet committed) it did, a
 * product of thousands of rows each, and 8,000 lines took 47 s.
 */
const SUM_PRODUCT_LINES = `INSERT INTO product_lines
  SELECT *, ${keyHashSql(PRODUCT_LINE_KEY)} FROM (
    SELECT l.report_id, ${ORG_KEY} AS org_key, s.service_id, u.subscription_id, l.product_id, l.currency, l.customer_currency,
      sum(l.quantity), sum(l.cost), sum(l.sales), ${shared('l.sales_per_unit')}, ${shared('l.cost_per_unit')}, min(l.line_no)
    FROM ${ofMonth('billing_lines')} l
    JOIN ${ofMonth('organizations')} o ON o.org_no = l.org_no
    JOIN ${ofMonth('services')} s ON s.service_no = l.service_no
    JOIN ${ofMonth('subscriptions')} u ON u.subscription_no = l.subscription_no
    GROUP BY ALL)`;

/**
 * Sums the product lines of one report unless it has them, in a derivation's transaction (Ledger.derive):
 * derivations run one at a time, so a month's lines are never summed twice.
 */
export async function sumProductLinesOnce(transaction: LedgerStatements, reportId: string): Promise<void> {
  const [summed] = await transaction.all('SELECT count(*) > 0 AS summed FROM (SELECT 1 FROM product_lines WHERE report_id = $1 LIMIT 1)', [reportId]);
  if (!summed?.summed) await transaction.run(SUM_PRODUCT_LINES, [reportId]);
}

/**
 * Sums a month's product lines once it is saved: apart from the save's transaction, whose uncommitted million lines
 * would be held in memory beside the sums (a fetch's peak rose from about 800 to 906 MB). Should it fail, the month's
 * first comparison sums them.
 */
export function sumSavedProductLines(ledger: Ledger, reportId: string): Promise<void> {
  return ledger.derive(PRODUCT_LINE_TABLES, (transaction) => sumProductLinesOnce(transaction, reportId));
}
