import { AMOUNT, MONEY_SUM, PRICE, QUANTITY, UNIT_PRICE } from '../types';

/**
 * The scale of each kind of decimal a kept change holds, by its column's name (`q0`, `q1` … and the `…_effect`s):
 * what its shortest text is made with (queries/compare.ts).
 */
export const KEPT_CHANGE_SCALES = { q: QUANTITY.scale, p: UNIT_PRICE.scale, k: UNIT_PRICE.scale, c: AMOUNT.scale, s: AMOUNT.scale, effect: 16 } as const;

/** A sum of quantities, and an effect on sales (a unit price × a quantity): as wide as DuckDB's DECIMAL goes, exact. */
const QTY_SUM = `DECIMAL(38, ${KEPT_CHANGE_SCALES.q})`;
const EFFECT = `DECIMAL(38, ${KEPT_CHANGE_SCALES.effect})`;

/** One month's side of a change: its quantity, unit price and cost (NULL when they vary), cost and sales. */
const side = (month: 0 | 1) => `q${month} ${QTY_SUM}, p${month} ${PRICE}, k${month} ${PRICE}, c${month} ${MONEY_SUM}, s${month} ${MONEY_SUM}`;

/**
 * What the month close derives from saved months and keeps, so a million-line month is compared once:
 * - `reports.content_hash`, the SHA-256 of a report's canonical lines, taken once (a report never changes);
 * - a comparison of two months, its changes in the order shown and its sales and cost bridges, under a key made of both
 *   reports and their content hashes (kept_comparisons.comparison_key): a refetch is another report, so another key.
 *   A change keeps the month it is named in (`named_in`, 1 or 2) and that month's numbers of its organization,
 *   service, subscription and product; its organization's and service's names and ids are the month's own, joined
 *   when a change is read (queries/compare.ts withNames), not written again for each change (migration 017);
 * - a month's exceptions as the checks found them (JSON), under a key of everything the checks read (kept_checks).
 * The shapes are today's: a later migration that changes one makes its table anew (007, 015, 017).
 * Declared once: the migration creates the tables, and a read-only ledger makes temporary ones of the same shape.
 */
export const KEPT_TABLES = {
  kept_comparisons: `comparison_key VARCHAR PRIMARY KEY, before_id VARCHAR NOT NULL, after_id VARCHAR NOT NULL, made_at VARCHAR NOT NULL,
    change_count INTEGER NOT NULL`,
  kept_changes: `comparison_key VARCHAR NOT NULL, seq INTEGER NOT NULL, kind VARCHAR NOT NULL, level VARCHAR NOT NULL,
    subscription VARCHAR, subscription_id VARCHAR, product VARCHAR, product_id VARCHAR, currency VARCHAR NOT NULL, customer_currency VARCHAR NOT NULL,
    ${side(0)}, ${side(1)}, price_effect ${EFFECT} NOT NULL, quantity_effect ${EFFECT} NOT NULL, new_lost_effect ${EFFECT} NOT NULL,
    other_effect ${EFFECT} NOT NULL, named_in UTINYINT NOT NULL, org_no INTEGER NOT NULL, service_no INTEGER, subscription_no INTEGER,
    product_no INTEGER`,
  kept_bridges: `comparison_key VARCHAR NOT NULL, currency VARCHAR NOT NULL, customer_currency VARCHAR NOT NULL, price_effect ${EFFECT} NOT NULL,
    quantity_effect ${EFFECT} NOT NULL, new_lost_effect ${EFFECT} NOT NULL, other_effect ${EFFECT} NOT NULL, cost_price_effect ${EFFECT} NOT NULL,
    cost_quantity_effect ${EFFECT} NOT NULL, cost_new_lost_effect ${EFFECT} NOT NULL, cost_other_effect ${EFFECT} NOT NULL`,
  kept_checks: 'check_key VARCHAR PRIMARY KEY, made_at VARCHAR NOT NULL, exceptions VARCHAR NOT NULL',
} as const;

export const KEPT_COMPARISONS: string[] = [
  'ALTER TABLE reports ADD COLUMN content_hash VARCHAR',
  ...Object.entries(KEPT_TABLES).map(([table, columns]) => `CREATE TABLE ${table} (${columns})`),
];

/**
 * What a later migration that changes the changes' shape does (015, 017): kept comparisons are derived (made again
 * from the saved months when asked for), so they are dropped rather than converted, and the table made anew.
 */
export const KEPT_CHANGES_ANEW: readonly string[] = [
  'DELETE FROM kept_bridges',
  'DELETE FROM kept_comparisons',
  'DROP TABLE kept_changes',
  `CREATE TABLE kept_changes (${KEPT_TABLES.kept_changes})`,
];
