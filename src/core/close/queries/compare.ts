import type { Ledger, LedgerStatements, LedgerTransaction } from '@core/ledger/ledger';
import { currencyPairSql, ORG_KEY } from '@core/ledger/keys';
import { type Row, rowShape } from '@core/ledger/rows';
import { nameKeySql } from '@core/ledger/name-ranks';
import { sumProductLinesOnce } from '@core/ledger/product-lines';
import type { NameOrder } from '@shared/model/name-order';
import { AMOUNT } from '@core/ledger/types';
import { KEPT_CHANGE_SCALES } from '@core/ledger/migrations/004-kept-comparisons';
import { shortestDecimalText } from '@core/ledger/decimal-text';

/*
 * Two saved months compared (month-compare.ts) in SQL, kept in the ledger (migration 4): the month before is bound
 * as $1, the month after as $2. Only the rows a reader asks for are read back into JavaScript.
 */

/**
 * A change the rules against last month look at (billing-checks.ts), over a change's columns: what is lost (`lost`:
 * how the columns say so), a unit price or cost that moved, and a quantity that rose by more than `jumpFactor` (a
 * parameter: 1.5 for 50 %). The same for a changed key (lost: no line after) and for a kept change, rolled up or not.
 */
const ruleChange = (lost: string, jumpFactor: string) =>
  `((${lost}) OR (q0 IS NOT NULL AND q1 IS NOT NULL AND (p0 IS DISTINCT FROM p1 OR k0 IS DISTINCT FROM k1 OR (q0 > 0 AND q1 > q0 * ${jumpFactor}::DECIMAL(18, 10)))))`;

/** A kept change that is lost (the whole of a subscription, service or organization, or one line). */
const KEPT_LOST = "kind = 'lost'";

/** One month's side of a product line, as q0, c0, s0, p0, k0, line0 (the month before: `b`) or q1 … line1 (after: `a`). */
const side = (alias: 'a' | 'b') =>
  [
    ['quantity', 'q'],
    ['cost', 'c'],
    ['sales', 's'],
    ['unit_price', 'p'],
    ['unit_cost', 'k'],
    ['first_line', 'line'],
  ]
    .map(([column, name]) => `${alias}.${column} AS ${name}${alias === 'b' ? 0 : 1}`)
    .join(', ');

/**
 * The compare keys — product lines (ledger/product-lines.ts): subscription key, product, currency pair — whose sums
 * differ between the months, with both months' exact sums: several lines of one product count as one, so splitting
 * a product's usage over two lines is not a change. A key is kept as one of its lines per month (`line0`, `line1`;
 * NULL when the month has none), and known by `id` until it is placed: its line after, or (lost) −1 − its line
 * before. The months are joined on each key's hash (ledger/product-lines.ts: keyHashSql). `rulesOnly` keeps only the
 * keys the rules against last month look at ($3: their jump factor).
 */
const keepChangedKeys = (rulesOnly: boolean) => `
  CREATE OR REPLACE TEMP TABLE compare_changed AS
  SELECT coalesce(line1, -1 - line0) AS id, * FROM (
    SELECT ${side('b')}, ${side('a')}
    FROM (SELECT * FROM product_lines WHERE report_id = $1) b
    FULL JOIN (SELECT * FROM product_lines WHERE report_id = $2) a ON a.key_hash = b.key_hash)
  WHERE (line0 IS NULL OR line1 IS NULL OR q0 <> q1 OR c0 <> c1 OR s0 <> s1 OR p0 IS DISTINCT FROM p1 OR k0 IS DISTINCT FROM k1)
    ${rulesOnly ? `AND ${ruleChange('q0 IS NOT NULL AND q1 IS NULL', '$3')}` : ''}`;

/**
 * The changed keys named by their line in month `$month` (the after month, or the month before for a lost key): the
 * names they are placed by and the ids they are rolled up by, the sums left behind until the changes are placed — a
 * join carrying them took twice as long — and the month's numbers of what it names (`named_in` the month, 1 or 2):
 * what a kept change is named by when read (withNames), and a search finds it by (change-views.ts).
 */
const namedIn = (month: 1 | 2) => `
  SELECT c.id, ${ORG_KEY} AS org_key, o.name AS organization, s.service_name AS service, s.service_id,
    u.item_name AS subscription, u.subscription_id, l.product_name AS product, l.product_id, l.currency, l.customer_currency,
    ${month}::UTINYINT AS named_in, l.org_no, l.service_no, l.subscription_no, l.product_no
  FROM compare_changed c
  JOIN billing_lines l ON l.report_id = $${month} AND l.line_no = c.line${month - 1}
  JOIN organizations o ON o.report_id = $${month} AND o.org_no = l.org_no
  JOIN services s ON s.report_id = $${month} AND s.service_no = l.service_no
  JOIN subscriptions u ON u.report_id = $${month} AND u.subscription_no = l.subscription_no`;

/**
 * The changed keys named (namedIn: the after month, or the month before for a lost key), as a table of their own.
 * Naming, placing and adding the effects are three statements, each on the table the one before kept: written as
 * one statement, DuckDB sorted every named column along with the place (the window carried the rows) or, placed on
 * ids and joined back, hashed the named rows again — 2.3–3.2 s of a million-line comparison against 1.1–1.6 s.
 */
const KEEP_NAMES = `CREATE OR REPLACE TEMP TABLE compare_names AS ${namedIn(2)} UNION ALL ${namedIn(1)} WHERE c.line1 IS NULL`;

/**
 * Each named change's place in the order shown (`ord`), by its id: organization, service and subscription by name in
 * the after month's name order (each distinct name collated once and ranked; ids apart same-named ones), then
 * product and currencies. Only the keys are sorted: the names stay behind in compare_names.
 */
const keepPlaces = (order: NameOrder) => `
  CREATE OR REPLACE TEMP TABLE compare_places AS
  WITH ranked AS (
    SELECT name, dense_rank() OVER (ORDER BY ${nameKeySql('name', order)}, name) AS name_rank
    FROM (SELECT organization AS name FROM compare_names UNION SELECT service FROM compare_names UNION SELECT subscription FROM compare_names))
  SELECT n.id, row_number() OVER (ORDER BY o.name_rank, n.org_key, v.name_rank, n.service_id, u.name_rank, n.subscription_id, n.product_id, n.currency, n.customer_currency) AS ord
  FROM compare_names n JOIN ranked o ON o.name = n.organization JOIN ranked v ON v.name = n.service JOIN ranked u ON u.name = n.subscription`;

/**
 * Each changed key named and placed, with its kind and its sales effects, exact in DECIMAL: price ((p₁ − p₀) × q₁),
 * quantity ((q₁ − q₀) × p₀), new/lost, and "other" (the rest of the change), so that per currency they add up to the
 * total change to the last decimal. The same split of the cost (`cost_…`, by the unit cost k) feeds the cost bridge;
 * only the bridges keep it. The names were placed without their sums; the sums are joined here, by `id`.
 */
const KEEP_NAMED_CHANGES = `
  CREATE OR REPLACE TEMP TABLE compare_named AS
  WITH effects AS (
    SELECT n.* EXCLUDE (id), p.ord, c.* EXCLUDE (id, line0, line1),
      CASE WHEN q0 IS NULL THEN 'new' WHEN q1 IS NULL THEN 'lost' WHEN q0 <> q1 THEN 'quantity'
        WHEN p0 IS DISTINCT FROM p1 OR k0 IS DISTINCT FROM k1 THEN 'price' ELSE 'amount' END AS kind,
      CASE WHEN q0 IS NOT NULL AND q1 IS NOT NULL AND p0 IS NOT NULL AND p1 IS NOT NULL THEN (p1 - p0) * q1 ELSE 0 END AS price_effect,
      CASE WHEN q0 IS NOT NULL AND q1 IS NOT NULL AND p0 IS NOT NULL AND p1 IS NOT NULL THEN (q1 - q0) * p0 ELSE 0 END AS quantity_effect,
      CASE WHEN q0 IS NULL THEN s1 WHEN q1 IS NULL THEN -s0 ELSE 0 END AS new_lost_effect,
      CASE WHEN q0 IS NOT NULL AND q1 IS NOT NULL AND k0 IS NOT NULL AND k1 IS NOT NULL THEN (k1 - k0) * q1 ELSE 0 END AS cost_price_effect,
      CASE WHEN q0 IS NOT NULL AND q1 IS NOT NULL AND k0 IS NOT NULL AND k1 IS NOT NULL THEN (q1 - q0) * k0 ELSE 0 END AS cost_quantity_effect,
      CASE WHEN q0 IS NULL THEN c1 WHEN q1 IS NULL THEN -c0 ELSE 0 END AS cost_new_lost_effect
    FROM compare_names n JOIN compare_places p ON p.id = n.id JOIN compare_changed c ON c.id = n.id)
  SELECT *,
    CASE WHEN kind IN ('new', 'lost') THEN 0 ELSE (s1 - s0) - price_effect - quantity_effect END AS other_effect,
    CASE WHEN kind IN ('new', 'lost') THEN 0 ELSE (c1 - c0) - cost_price_effect - cost_quantity_effect END AS cost_other_effect
  FROM effects`;

/**
 * A new or lost line whose whole subscription, service or organization is new or lost is reported once, at the
 * highest level that is: "Acme is a new customer", not each of its forty lines. This is the level of each new or
 * lost key: whether the other month has its organization, its service (in its currency pair) or its subscription
 * (in its currency pair) at all. An organization is new or lost as a whole; a service or subscription that moved
 * to another currency pair is lost in the old pair and new in the other (amounts in two currencies are never compared).
 */
const KEEP_LEVELS = `
  CREATE OR REPLACE TEMP TABLE compare_levels AS
  WITH moved AS (SELECT ord, kind = 'new' AS new, org_key, service_id, subscription_id, currency, customer_currency FROM compare_named WHERE kind IN ('new', 'lost')),
  present AS (
    SELECT DISTINCT report_id = $2 AS after, org_key, service_id, subscription_id, currency, customer_currency
    FROM product_lines
    WHERE report_id IN ($1, $2) AND (org_key IN (SELECT org_key FROM moved) OR subscription_id IN (SELECT subscription_id FROM moved)))
  SELECT m.ord,
    CASE
      WHEN NOT EXISTS (SELECT 1 FROM present p WHERE p.after <> m.new AND p.org_key = m.org_key) THEN 'organization'
      WHEN NOT EXISTS (SELECT 1 FROM present p WHERE p.after <> m.new AND p.org_key = m.org_key AND p.service_id = m.service_id
        AND p.currency = m.currency AND p.customer_currency = m.customer_currency) THEN 'service'
      WHEN NOT EXISTS (SELECT 1 FROM present p WHERE p.after <> m.new AND p.subscription_id = m.subscription_id
        AND p.currency = m.currency AND p.customer_currency = m.customer_currency) THEN 'subscription'
      ELSE 'line' END AS level
  FROM moved m`;

/** What a rolled-up change stands for: an organization, a service or a subscription, each in its currency pair. */
const ROLL_KEY = `CASE level WHEN 'organization' THEN [org_key, currency, customer_currency]
  WHEN 'service' THEN [org_key, service_id, currency, customer_currency] ELSE [subscription_id, currency, customer_currency] END`;

/**
 * The changes as shown, in order (`ord`): line changes as they are, and the new and lost lines of a whole
 * subscription, service or organization summed into one change, placed where its first line was (kept, numbered
 * `seq`). A roll-up names its organization, its service unless it is the organization's, its subscription when it
 * covers one, and its product when it covers one product of one subscription; a subscription's quantities add up, a
 * service's or organization's are not summed. It keeps the month's numbers of what it names (NULL for what it does
 * not), and the names and ids of its subscription and product (the organization's and service's are joined when it
 * is read: withNames): the columns of kept_changes after its key and number, in order.
 */
const ROLLED_CHANGES = `
  SELECT ord, kind, 'line' AS level, subscription, subscription_id, product, product_id, currency, customer_currency, q0, p0, k0, c0, s0, q1, p1, k1, c1, s1,
    price_effect, quantity_effect, new_lost_effect, other_effect, named_in, org_no, service_no, subscription_no, product_no
  FROM compare_named n WHERE NOT EXISTS (SELECT 1 FROM compare_levels v WHERE v.ord = n.ord AND v.level <> 'line')
  UNION ALL
  SELECT min(ord), kind, level,
    CASE WHEN count(DISTINCT subscription_id) = 1 THEN arg_max(subscription, ord) END,
    CASE WHEN count(DISTINCT subscription_id) = 1 THEN min(subscription_id) END,
    CASE WHEN count(DISTINCT subscription_id) = 1 AND count(DISTINCT product_id) = 1 THEN arg_max(product, ord) END,
    CASE WHEN count(DISTINCT subscription_id) = 1 AND count(DISTINCT product_id) = 1 THEN min(product_id) END,
    min(currency), min(customer_currency),
    CASE WHEN level = 'subscription' THEN sum(q0) END, NULL, NULL, sum(c0), sum(s0),
    CASE WHEN level = 'subscription' THEN sum(q1) END, NULL, NULL, sum(c1), sum(s1),
    sum(price_effect), sum(quantity_effect), sum(new_lost_effect), sum(other_effect),
    min(named_in), arg_min(org_no, ord), CASE WHEN level <> 'organization' THEN arg_min(service_no, ord) END,
    CASE WHEN count(DISTINCT subscription_id) = 1 THEN arg_max(subscription_no, ord) END,
    CASE WHEN count(DISTINCT subscription_id) = 1 AND count(DISTINCT product_id) = 1 THEN arg_max(product_no, ord) END
  FROM compare_named JOIN compare_levels USING (ord) WHERE level <> 'line' GROUP BY kind, level, ${ROLL_KEY}`;

/**
 * The changes kept under the comparison's key ($1), numbered in order (see ROLLED_CHANGES): on their `ord` alone, then
 * joined — numbered with every column, and stored in that order, they took 1.9 s more of a million-line comparison
 * (a part is read by its range of `seq`, in any order it is stored).
 */
const KEEP_CHANGES = `
  INSERT INTO kept_changes
  SELECT $1, n.seq, r.* EXCLUDE (ord)
  FROM (${ROLLED_CHANGES}) r JOIN (SELECT ord, row_number() OVER (ORDER BY ord) AS seq FROM (${ROLLED_CHANGES})) n ON n.ord = r.ord`;

/**
 * Changes as kept (`changes`: a statement giving kept_changes' columns, or ROLLED_CHANGES') with the names and ids of
 * their organization and service, from the month each is named in (`named_in`: 1 the month before, 2 the month
 * after; `months` are the parameters of their report ids). Joined when read, on the month's numbers: written out with
 * each of 345,774 changes, those five texts (a few thousand distinct) took 1.1–1.3 s to keep against 0.6 s without
 * them. The subscription's are kept: joined, the names of 1,200,000 subscriptions are read for each window (30 ms).
 * `few` (a window, a batch): the changes are read first, and only their organizations and services looked up —
 * a window of 60 in 21–31 ms against 29–51 ms, where every change and its names are read whole otherwise.
 * An organization's roll-up names no service (an empty name, as listed).
 */
export function withNames(changes: string, [before, after]: [string, string], few = false): string {
  const ofMonths = (columns: string, table: string, no: string) =>
    `(SELECT (CASE WHEN report_id = ${before} THEN 1 ELSE 2 END)::UTINYINT AS named_in, ${no}, ${columns} FROM ${table}
      WHERE report_id IN (${before}, ${after})${few ? ` AND ${no} IN (SELECT ${no} FROM unnamed)` : ''})`;
  return `
  WITH unnamed AS ${few ? 'MATERIALIZED ' : ''}(${changes})
  SELECT c.*, o.name AS organization, o.customer_number, o.org_id, coalesce(s.service_name, '') AS service, s.service_id
  FROM unnamed c
  JOIN ${ofMonths('name, customer_number, org_id', 'organizations', 'org_no')} o ON o.named_in = c.named_in AND o.org_no = c.org_no
  LEFT JOIN ${ofMonths('service_name, service_id', 'services', 'service_no')} s ON s.named_in = c.named_in AND s.service_no = c.service_no`;
}

/** Per currency pair, the sum of each sales and cost effect over the changed lines (their bridges; the amounts come from the totals). */
const KEEP_BRIDGES = `
  INSERT INTO kept_bridges
  SELECT $1, currency, customer_currency, sum(price_effect), sum(quantity_effect), sum(new_lost_effect), sum(other_effect),
    sum(cost_price_effect), sum(cost_quantity_effect), sum(cost_new_lost_effect), sum(cost_other_effect)
  FROM compare_named GROUP BY ALL`;

/** Each step's table is let go once the next has read it: they are held in memory. */
const dropping = (statements: LedgerStatements) => (table: string) => statements.run(`DROP TABLE temp.${table}`);

/**
 * The months compared up to the named changes and their levels (temporary tables compare_named and compare_levels),
 * in steps that each stay within the ledger's memory, from their product lines (summed first for a month saved before
 * they existed); `jumpFactor` (not null) keeps only the keys the rules against last month look at. What a derivation
 * prepares before its transaction (Ledger.derive), on the connection that then keeps or reads the result.
 */
export async function compareInSteps(
  steps: LedgerStatements,
  months: { beforeId: string; afterId: string; order: NameOrder },
  jumpFactor: string | null,
): Promise<void> {
  const ids = [months.beforeId, months.afterId];
  for (const month of ids) await sumProductLinesOnce(steps, month);
  await steps.run(keepChangedKeys(jumpFactor !== null), jumpFactor === null ? ids : [...ids, jumpFactor]);
  const drop = dropping(steps);
  await steps.run(KEEP_NAMES, ids);
  await steps.run(keepPlaces(months.order));
  await steps.run(KEEP_NAMED_CHANGES);
  for (const table of ['compare_places', 'compare_names', 'compare_changed']) await drop(table);
  await steps.run(KEEP_LEVELS, ids);
}

/**
 * The changes the rules against last month look at (as ruleChangeRows reads them from a kept comparison), found
 * without keeping a comparison, from the steps compareInSteps took with the same `jumpFactor`: only those keys are
 * named and rolled up, so a month's checks need not wait for the hundreds of thousands of changes a whole comparison
 * of a million lines can have.
 */
export async function unkeptRuleChangeRows(reader: LedgerStatements, months: Omit<ComparedMonths, 'key'>, jumpFactor: string): Promise<KeptChangeRow[]> {
  const drop = dropping(reader);
  const rules = `SELECT * FROM (${ROLLED_CHANGES}) WHERE ${ruleChange(KEPT_LOST, '$3')}`;
  const rows = await keptChanges(reader, `SELECT ${CHANGE_JSON} FROM (${withNames(rules, ['$1', '$2'])}) ORDER BY ord`, [
    months.beforeId,
    months.afterId,
    jumpFactor,
  ]);
  await drop('compare_levels');
  await drop('compare_named');
  return rows;
}

/**
 * The share of the ledger's memory limit DuckDB is held to while a whole comparison is made (Ledger.derive's
 * memoryShare). Naming and keeping the 345,774 changes of two 1,000,000-line months, the process grew about 500 MB
 * past DuckDB's limit (memory it holds outside it): at the ledger's 512 MB it peaked at 995–1,057 MiB, over the 1 GB
 * goal; held to 320 MB, at 509–617 MiB (four runs each). Since naming is three statements, the hold costs no time
 * (4.0–4.5 s held to 320, 400 or 512 MB alike).
 */
export const COMPARISON_MEMORY_SHARE = 0.625;

/**
 * Keeps the comparison compareInSteps prepared (of `months`, whole) under `key`, in the derivation's transaction;
 * the number of changes.
 */
export async function keepComparison(
  transaction: LedgerTransaction,
  months: { beforeId: string; afterId: string },
  keepAs: { key: string; madeAt: string },
): Promise<number> {
  const { key, madeAt } = keepAs;
  const drop = dropping(transaction);
  await transaction.run(KEEP_CHANGES, [key]);
  await drop('compare_levels');
  await transaction.run(KEEP_BRIDGES, [key]);
  await drop('compare_named');
  const [kept] = COUNT.all(await transaction.all('SELECT count(*) AS changes FROM kept_changes WHERE comparison_key = $1', [key]));
  const changes = kept?.changes ?? 0;
  await transaction.run('INSERT INTO kept_comparisons VALUES ($1, $2, $3, $4, $5)', [key, months.beforeId, months.afterId, madeAt, changes]);
  return changes;
}

const COUNT = rowShape({ changes: 'int' });

/** Forgets kept comparisons but the `keep` most recently made, and those of a report that is gone. */
export async function forgetOldComparisons(transaction: LedgerTransaction, keep: number): Promise<void> {
  const gone = `SELECT comparison_key FROM kept_comparisons
    WHERE before_id NOT IN (SELECT report_id FROM reports) OR after_id NOT IN (SELECT report_id FROM reports)
    UNION SELECT comparison_key FROM (SELECT comparison_key FROM kept_comparisons ORDER BY made_at DESC OFFSET $1)`;
  for (const table of ['kept_changes', 'kept_bridges', 'kept_comparisons'])
    await transaction.run(`DELETE FROM ${table} WHERE comparison_key IN (${gone})`, [keep]);
}

const KEPT = rowShape({ change_count: 'int' });

/** The number of changes of a kept comparison, or undefined when none is kept under `key`. */
export async function keptChangeCount(ledger: Ledger, key: string): Promise<number | undefined> {
  return KEPT.all(await ledger.all('SELECT change_count FROM kept_comparisons WHERE comparison_key = $1', [key]))[0]?.change_count;
}

/** A kept change's decimal or a kept bridge's sum, as wide as DuckDB's DECIMAL goes (migration 4), of its scale. */
const kept = (scale: number) => ({ precision: 38, scale });

/** A decimal column of kept_changes with its scale (KEPT_CHANGE_SCALES: by the side's first letter, or an effect). */
const scaled = (column: string) =>
  shortestDecimalText(column, kept(column.endsWith('_effect') ? KEPT_CHANGE_SCALES.effect : KEPT_CHANGE_SCALES[column[0] as keyof typeof KEPT_CHANGE_SCALES]));

/** A kept change as read: its decimals as their shortest exact text, NULL where a month has none of its lines. */
export interface KeptChangeRow {
  kind: string;
  level: string;
  organization: string;
  customer_number: string;
  org_id: string;
  service: string;
  service_id: string | null;
  subscription: string | null;
  subscription_id: string | null;
  product: string | null;
  product_id: string | null;
  currency: string;
  customer_currency: string;
  q0: string | null;
  p0: string | null;
  k0: string | null;
  c0: string | null;
  s0: string | null;
  q1: string | null;
  p1: string | null;
  k1: string | null;
  c1: string | null;
  s1: string | null;
  price_effect: string;
  quantity_effect: string;
  new_lost_effect: string;
  other_effect: string;
}

/**
 * A kept change's columns in the order CHANGE_JSON lists them: text as it is, then decimals (each month's side, then
 * the effects). Named as KeptChangeRow names them, so a misspelt column does not compile.
 */
const CHANGE_TEXTS = [
  'kind',
  'level',
  'organization',
  'customer_number',
  'org_id',
  'service',
  'service_id',
  'subscription',
  'subscription_id',
  'product',
  'product_id',
  'currency',
  'customer_currency',
] as const satisfies readonly (keyof KeptChangeRow)[];
const CHANGE_DECIMALS = [
  'q0',
  'q1',
  'p0',
  'p1',
  'k0',
  'k1',
  'c0',
  'c1',
  's0',
  's1',
  'price_effect',
  'quantity_effect',
  'new_lost_effect',
  'other_effect',
] as const satisfies readonly (keyof KeptChangeRow)[];
const CHANGE_COLUMNS = [...CHANGE_TEXTS, ...CHANGE_DECIMALS];

/**
 * Each kept change as one JSON list of text, its decimals already their shortest exact text: read as one value a
 * row, a part of 20,000 changes crosses into JavaScript in half the time 27 columns take, and a list in less than an
 * object of named fields (DuckDB writes no names, JavaScript parses none).
 */
const CHANGE_JSON = `to_json([${[...CHANGE_TEXTS, ...CHANGE_DECIMALS.map(scaled)].join(', ')}])::VARCHAR AS change`;
const CHANGE_TEXT = rowShape({ change: 'text' });

/** Each column's place in CHANGE_JSON's list. */
const AT = Object.fromEntries(CHANGE_COLUMNS.map((column, index) => [column, index])) as Record<(typeof CHANGE_COLUMNS)[number], number>;

/**
 * A kept change from CHANGE_JSON's list, made as one object literal: filled a column at a time, the 345,774 changes
 * of a 1,000,000-line month took 1.1–1.7 s to read, against 0.75–0.8 s (their JSON alone: 0.66–0.75 s).
 */
function keptChange(text: string): KeptChangeRow {
  const v = JSON.parse(text) as string[];
  return {
    kind: v[AT.kind] as string,
    level: v[AT.level] as string,
    organization: v[AT.organization] as string,
    customer_number: v[AT.customer_number] as string,
    org_id: v[AT.org_id] as string,
    service: v[AT.service] as string,
    service_id: v[AT.service_id] ?? null,
    subscription: v[AT.subscription] ?? null,
    subscription_id: v[AT.subscription_id] ?? null,
    product: v[AT.product] ?? null,
    product_id: v[AT.product_id] ?? null,
    currency: v[AT.currency] as string,
    customer_currency: v[AT.customer_currency] as string,
    q0: v[AT.q0] ?? null,
    p0: v[AT.p0] ?? null,
    k0: v[AT.k0] ?? null,
    c0: v[AT.c0] ?? null,
    s0: v[AT.s0] ?? null,
    q1: v[AT.q1] ?? null,
    p1: v[AT.p1] ?? null,
    k1: v[AT.k1] ?? null,
    c1: v[AT.c1] ?? null,
    s1: v[AT.s1] ?? null,
    price_effect: v[AT.price_effect] as string,
    quantity_effect: v[AT.quantity_effect] as string,
    new_lost_effect: v[AT.new_lost_effect] as string,
    other_effect: v[AT.other_effect] as string,
  };
}

async function keptChanges(reader: Pick<Ledger, 'all'>, sql: string, params: (string | number)[]): Promise<KeptChangeRow[]> {
  return CHANGE_TEXT.all(await reader.all(sql, params)).map((row) => keptChange(row.change));
}

/** A kept comparison: its key and its months, the month before (named_in 1) and after (2). */
export interface ComparedMonths {
  key: string;
  beforeId: string;
  afterId: string;
}

/** A kept comparison's changes that meet `condition`, named (withNames; `few`, a window): $1 is its key, $2 and $3 its months. */
const namedKept = (condition: string, few = false) => withNames(`SELECT * FROM kept_changes WHERE comparison_key = $1 AND ${condition}`, ['$2', '$3'], few);

/** The first parameters of namedKept: the comparison's key and its months. */
const keptParams = (months: ComparedMonths) => [months.key, months.beforeId, months.afterId];

/** The kept changes numbered `from` + 1 to `from` + `count`, in the order shown. */
export async function keptChangeRows(ledger: Ledger, months: ComparedMonths, from: number, count: number): Promise<KeptChangeRow[]> {
  return keptChanges(ledger, `SELECT ${CHANGE_JSON} FROM (${namedKept('seq > $4 AND seq <= $5', true)}) ORDER BY seq`, [
    ...keptParams(months),
    from,
    from + count,
  ]);
}

/** The kept changes numbered `seqs`, in that order (a window of a view: change-views.ts). */
export async function keptChangesAt(ledger: Ledger, months: ComparedMonths, seqs: readonly number[]): Promise<KeptChangeRow[]> {
  if (seqs.length === 0) return [];
  const rows = SEQ_CHANGE.all(
    await ledger.all(`SELECT seq, ${CHANGE_JSON} FROM (${namedKept('seq IN (SELECT unnest($4::INTEGER[]))', true)})`, [
      ...keptParams(months),
      seqs.map(String),
    ]),
  );
  const bySeq = new Map(rows.map((row) => [row.seq, row.change]));
  return seqs.flatMap((seq) => {
    const change = bySeq.get(seq);
    return change === undefined ? [] : [keptChange(change)];
  });
}

const SEQ_CHANGE = rowShape({ seq: 'int', change: 'text' });

/**
 * The kept changes the rules against last month look at: what is lost, a unit price or cost that moved, and a
 * quantity that rose by more than `jumpFactor` (1.5 for 50 %).
 */
export async function ruleChangeRows(ledger: Ledger, months: ComparedMonths, jumpFactor: string): Promise<KeptChangeRow[]> {
  return keptChanges(ledger, `SELECT ${CHANGE_JSON} FROM (${namedKept(ruleChange(KEPT_LOST, '$4'))}) ORDER BY seq`, [...keptParams(months), jumpFactor]);
}

/** `text` padded with spaces to `width` characters, never cut (as padEnd does). */
const padded = (text: string, width: number) => `CASE WHEN length(${text}) >= ${width} THEN ${text} ELSE rpad(${text}, ${width}, ' ') END`;

/** One month's side of a change as the listing shows it: "qty 3 @ 12.5 sales 37.5 cost 30", or "—" without its lines. */
const sideText = (month: 0 | 1) =>
  `CASE WHEN c${month} IS NULL OR s${month} IS NULL THEN '—' ELSE concat_ws(' ', 'qty ' || ${scaled(`q${month}`)}, '@ ' || ${scaled(`p${month}`)},
     'sales ' || ${scaled(`s${month}`)}, 'cost ' || ${scaled(`c${month}`)}) END`;

/**
 * A kept change as one line of the command line's listing: kind, level and currency pair in columns, where it is
 * (organization / service / subscription / product, as far as it goes), then before → after. Made by DuckDB, so a
 * listing of hundreds of thousands of changes never turns them into objects.
 */
const CHANGE_LINE = `concat(${padded('kind', 8)}, ' ', ${padded('level', 12)}, ' ', ${padded(currencyPairSql(), 7)}, ' ',
  concat_ws(' / ', nullif(organization, ''), nullif(service, ''), nullif(subscription, ''), nullif(product, '')),
  ': ', ${sideText(0)}, ' → ', ${sideText(1)}) AS line`;

/**
 * Every kept change as a line of the listing, in the order shown, each begun with `indent` and ended with a newline,
 * as UTF-8 bytes a chunk at a time: one query, whose lines DuckDB makes on both threads while the caller writes the
 * chunks before, and whose 345,774 lines at 1,000,000 lines never become JavaScript strings (see Ledger.streamDerivedBytes).
 */
export function keptChangeListing(ledger: Ledger, months: ComparedMonths, indent: string): AsyncGenerator<Buffer> {
  return ledger.streamDerivedBytes(`SELECT encode(concat($4, line, chr(10))) FROM (SELECT seq, ${CHANGE_LINE} FROM (${namedKept('true')})) ORDER BY seq`, [
    ...keptParams(months),
    indent,
  ]);
}

const KIND_COUNT = rowShape({ kind: 'text', changes: 'int' });

/** How many kept changes there are of each kind. */
export async function keptKindCounts(ledger: Ledger, key: string): Promise<Row<typeof KIND_COUNT.columns>[]> {
  return KIND_COUNT.all(await ledger.all('SELECT kind, count(*) AS changes FROM kept_changes WHERE comparison_key = $1 GROUP BY kind ORDER BY kind', [key]));
}

const BRIDGE = rowShape({
  currency_key: 'text',
  before: 'decimal',
  after: 'decimal',
  price: 'decimal',
  quantity: 'decimal',
  new_lost: 'decimal',
  other: 'decimal',
  cost_before: 'decimal',
  cost_after: 'decimal',
  cost_price: 'decimal',
  cost_quantity: 'decimal',
  cost_new_lost: 'decimal',
  cost_other: 'decimal',
});
export type BridgeRow = Row<typeof BRIDGE.columns>;

/** Per currency pair: sales and cost in each month (from the totals kept at ingest) and the kept sum of each effect on them. */
export async function keptBridgeRows(ledger: Ledger, key: string, beforeId: string, afterId: string): Promise<BridgeRow[]> {
  const amount = (column: string) => shortestDecimalText(column, kept(AMOUNT.scale));
  const effect = (column: string) => shortestDecimalText(`coalesce(b.${column}, 0)`, kept(KEPT_CHANGE_SCALES.effect));
  const rows = await ledger.all(
    `WITH sales AS (
       SELECT currency, customer_currency, coalesce(sum(sales) FILTER (WHERE report_id = $1), 0) AS before,
         coalesce(sum(sales) FILTER (WHERE report_id = $2), 0) AS after,
         coalesce(sum(cost) FILTER (WHERE report_id = $1), 0) AS cost_before, coalesce(sum(cost) FILTER (WHERE report_id = $2), 0) AS cost_after
       FROM report_totals WHERE report_id IN ($1, $2) GROUP BY ALL)
     SELECT ${currencyPairSql('sales')} AS currency_key, ${amount('before')} AS before, ${amount('after')} AS after,
       ${effect('price_effect')} AS price, ${effect('quantity_effect')} AS quantity,
       ${effect('new_lost_effect')} AS new_lost, ${effect('other_effect')} AS other,
       ${amount('cost_before')} AS cost_before, ${amount('cost_after')} AS cost_after,
       ${effect('cost_price_effect')} AS cost_price, ${effect('cost_quantity_effect')} AS cost_quantity,
       ${effect('cost_new_lost_effect')} AS cost_new_lost, ${effect('cost_other_effect')} AS cost_other
     FROM sales LEFT JOIN kept_bridges b ON b.comparison_key = $3 AND b.currency = sales.currency AND b.customer_currency = sales.customer_currency
     ORDER BY currency_key`,
    [beforeId, afterId, key],
  );
  return BRIDGE.all(rows);
}
