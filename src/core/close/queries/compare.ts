import type { Ledger, LedgerSession } from '@core/ledger/ledger';
import { CURRENCY_KEY, ORG_KEY } from '@core/ledger/keys';
import { type Row, rowShape } from '@core/ledger/rows';

/*
 * Two saved months compared (month-compare.ts): the month before is bound as $1, the month after as $2.
 */

const LINES = rowShape({ lines: 'int' });

/** How many billing lines the two months have together. */
export async function linesOfMonths(ledger: Ledger, beforeId: string, afterId: string): Promise<number> {
  return (
    LINES.all(await ledger.all('SELECT coalesce(sum(line_count), 0) AS lines FROM reports WHERE report_id IN ($1, $2)', [beforeId, afterId]))[0]?.lines ?? 0
  );
}

/** `fn(column)` over one month's lines of a compare key: month 1 is the report bound as $1 (before), 2 as $2 (after). */
const inMonth = (fn: string, column: string, month: 1 | 2) => `${fn}(${column}) FILTER (WHERE l.report_id = $${month})`;

/** A unit price or cost of one month: the one all its lines have, or NULL when they differ. */
const unitOf = (column: string, month: 1 | 2) =>
  `CASE WHEN ${inMonth('min', column, month)} = ${inMonth('max', column, month)} THEN ${inMonth('min', column, month)} END`;

/** One month's sums, unit price and cost, and one of its lines, as q0, c0, s0, p0, k0, line0 (before) or q1 … line1 (after). */
const monthColumns = (month: 1 | 2) =>
  [
    `${inMonth('sum', 'l.quantity', month)} AS q${month - 1}`,
    `${inMonth('sum', 'l.cost', month)} AS c${month - 1}`,
    `${inMonth('sum', 'l.sales', month)} AS s${month - 1}`,
    `${unitOf('l.sales_per_unit', month)} AS p${month - 1}`,
    `${unitOf('l.cost_per_unit', month)} AS k${month - 1}`,
    `${inMonth('min', 'l.line_no', month)} AS line${month - 1}`,
  ].join(', ');

/**
 * The compare keys (organization, service, subscription, product, currency pair) of one bucket ($4 of $3, by
 * subscription) whose lines differ between the months, with both months' exact sums: several lines of one product
 * count as one, so splitting a product's usage over two lines is not a change. A key is kept as one of its lines
 * per month (`line0`, `line1`; NULL when the month has none), which names it later.
 */
const CHANGED_KEYS = `
  SELECT ${monthColumns(1)}, ${monthColumns(2)}
  FROM billing_lines l
  JOIN organizations o ON o.report_id = l.report_id AND o.org_no = l.org_no
  JOIN services s ON s.report_id = l.report_id AND s.service_no = l.service_no
  JOIN subscriptions u ON u.report_id = l.report_id AND u.subscription_no = l.subscription_no AND hash(u.subscription_id) % $3 = $4
  WHERE l.report_id IN ($1, $2)
  GROUP BY ${ORG_KEY}, s.service_id, u.subscription_id, l.product_id, l.currency, l.customer_currency
  HAVING line0 IS NULL OR line1 IS NULL OR q0 <> q1 OR c0 <> c1 OR s0 <> s1 OR p0 IS DISTINCT FROM p1 OR k0 IS DISTINCT FROM k1`;

/** Keeps the changed keys of the months, bucket by bucket, in the session's temporary table `changed`. */
export async function keepChangedKeys(session: LedgerSession, beforeId: string, afterId: string, buckets: number): Promise<void> {
  await session.run(`CREATE TEMPORARY TABLE changed AS ${CHANGED_KEYS}`, [beforeId, afterId, buckets, 0]);
  for (let bucket = 1; bucket < buckets; bucket++) await session.run(`INSERT INTO changed ${CHANGED_KEYS}`, [beforeId, afterId, buckets, bucket]);
}

const NAMED_CHANGE = rowShape({
  org_key: 'text',
  service_id: 'text',
  subscription_id: 'text',
  product_id: 'text',
  currency: 'text',
  customer_currency: 'text',
  organization: 'text',
  customer_number: 'text',
  org_id: 'text',
  service: 'text',
  subscription: 'text',
  product: 'text',
  q0: 'decimal?',
  c0: 'decimal?',
  s0: 'decimal?',
  p0: 'decimal?',
  k0: 'decimal?',
  q1: 'decimal?',
  c1: 'decimal?',
  s1: 'decimal?',
  p1: 'decimal?',
  k1: 'decimal?',
});
export type NamedChangeRow = Row<typeof NAMED_CHANGE.columns>;

/** The changed keys (in the temporary table `changed`) named by their line in month `$month`, with their key and values. */
const namedIn = (month: 1 | 2) => `
  SELECT ${ORG_KEY} AS org_key, s.service_id, u.subscription_id, l.product_id, l.currency, l.customer_currency,
    o.name AS organization, o.customer_number, o.org_id, s.service_name AS service, u.item_name AS subscription, l.product_name AS product,
    c.q0::VARCHAR AS q0, c.c0::VARCHAR AS c0, c.s0::VARCHAR AS s0, c.p0::VARCHAR AS p0, c.k0::VARCHAR AS k0,
    c.q1::VARCHAR AS q1, c.c1::VARCHAR AS c1, c.s1::VARCHAR AS s1, c.p1::VARCHAR AS p1, c.k1::VARCHAR AS k1
  FROM changed c
  JOIN billing_lines l ON l.report_id = $${month} AND l.line_no = c.line${month - 1}
  JOIN organizations o ON o.report_id = $${month} AND o.org_no = l.org_no
  JOIN services s ON s.report_id = $${month} AND s.service_no = l.service_no
  JOIN subscriptions u ON u.report_id = $${month} AND u.subscription_no = l.subscription_no`;

/**
 * Every changed key kept by keepChangedKeys, named after its line in the month after (the month before for a lost
 * one), in the order shown; streamed, in batches.
 */
export async function* namedChanges(session: LedgerSession, beforeId: string, afterId: string): AsyncGenerator<NamedChangeRow[]> {
  const batches = session.stream(
    `SELECT * FROM (${namedIn(2)}
       UNION ALL
       ${namedIn(1)} WHERE c.line1 IS NULL)
     ORDER BY lower(organization), org_key, lower(service), service_id, lower(subscription), subscription_id, product_id, currency, customer_currency`,
    [beforeId, afterId],
  );
  for await (const rows of batches) yield NAMED_CHANGE.all(rows);
}

const PRESENT = rowShape({ report_id: 'text', org_key: 'text', service_id: 'text', subscription_id: 'text', currency: 'text', customer_currency: 'text' });
export type PresentRow = Row<typeof PRESENT.columns>;

/**
 * The organizations, services and subscriptions (per currency pair) each month has of those named: the
 * organizations by their key, the subscriptions by their id. Streamed, in batches.
 */
export async function* presentKeys(
  session: LedgerSession,
  beforeId: string,
  afterId: string,
  orgKeys: string[],
  subscriptionIds: string[],
): AsyncGenerator<PresentRow[]> {
  const batches = session.stream(
    `SELECT DISTINCT l.report_id, ${ORG_KEY} AS org_key, s.service_id, u.subscription_id, l.currency, l.customer_currency
     FROM billing_lines l
     JOIN organizations o ON o.report_id = l.report_id AND o.org_no = l.org_no
     JOIN services s ON s.report_id = l.report_id AND s.service_no = l.service_no
     JOIN subscriptions u ON u.report_id = l.report_id AND u.subscription_no = l.subscription_no
     WHERE l.report_id IN ($1, $2)
       AND (${ORG_KEY} IN (SELECT unnest($3::VARCHAR[])) OR u.subscription_id IN (SELECT unnest($4::VARCHAR[])))`,
    [beforeId, afterId, orgKeys, subscriptionIds],
  );
  for await (const rows of batches) yield PRESENT.all(rows);
}

const BRIDGE = rowShape({ currency_key: 'text', before: 'decimal', after: 'decimal' });
export type BridgeRow = Row<typeof BRIDGE.columns>;

/** Sales per currency pair in each month, from the totals kept at ingest. */
export async function bridgeRows(ledger: Ledger, beforeId: string, afterId: string): Promise<BridgeRow[]> {
  const rows = await ledger.all(
    `SELECT ${CURRENCY_KEY} AS currency_key,
       coalesce(sum(sales) FILTER (WHERE report_id = $1), 0)::VARCHAR AS before, coalesce(sum(sales) FILTER (WHERE report_id = $2), 0)::VARCHAR AS after
     FROM report_totals WHERE report_id IN ($1, $2) GROUP BY currency_key ORDER BY currency_key`,
    [beforeId, afterId],
  );
  return BRIDGE.all(rows);
}
