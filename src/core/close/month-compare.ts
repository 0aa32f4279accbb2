import { type Money, money } from '@shared/money';
import type { CurrencyBridge, MonthChange, MonthComparison as SharedComparison } from '@shared/schemas/month-close';
import type { Ledger, LedgerRow, LedgerSession } from '../ledger/ledger';
import { CURRENCY_KEY, ORG_KEY } from '../ledger/keys';
import { currencyPairKey } from '@shared/model/currency-pair';

export type { CurrencyBridge, MonthChange } from '@shared/schemas/month-close';
type ChangeKind = MonthChange['kind'];
type ChangeLevel = MonthChange['level'];
type LineValues = NonNullable<MonthChange['before']>;
type SalesEffects = MonthChange['effects'];

/** Every change (the contract's MonthComparison is this, cut for IPC). */
export type MonthComparison = Omit<SharedComparison, 'changeCount'>;

/** A month compared with `beforeId`: handed to the checks by an export that writes the same comparison, so it is made once. */
export type ComparisonOf = (beforeId: string) => Promise<MonthComparison>;

const ZERO_EFFECTS = (): Record<keyof SalesEffects, Money> => ({ price: money(0), quantity: money(0), newLost: money(0), other: money(0) });

/** `fn(column)` over one month's lines of a compare key: month 1 is the report bound as $1 (before), 2 as $2 (after). */
const inMonth = (fn: string, column: string, month: 1 | 2) => `${fn}(${column}) FILTER (WHERE l.report_id = $${month})`;

/** A unit price or cost of one month: the one all its lines have, or NULL when they differ. */
const unitOf = (column: string, month: 1 | 2) => `CASE WHEN ${inMonth('min', column, month)} = ${inMonth('max', column, month)} THEN ${inMonth('min', column, month)} END`;

/** One month's sums, unit price and cost, and one of its lines, as q0, c0, s0, p0, k0, line0 (before) or q1 … line1 (after). */
const monthColumns = (month: 1 | 2) =>
  [
    `${inMonth('sum', 'l.quantity', month)} AS q${month - 1}`, `${inMonth('sum', 'l.cost', month)} AS c${month - 1}`, `${inMonth('sum', 'l.sales', month)} AS s${month - 1}`,
    `${unitOf('l.sales_per_unit', month)} AS p${month - 1}`, `${unitOf('l.cost_per_unit', month)} AS k${month - 1}`, `${inMonth('min', 'l.line_no', month)} AS line${month - 1}`,
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

/**
 * The aggregate's states grow with the compare keys and DuckDB does not spill them well, so months are compared a
 * bucket of subscriptions at a time, of at most this many billing lines (both months) per MB of the ledger's memory
 * limit. Measured at a million lines a month: 500 per MB (8 buckets at 512 MB) also fits 256 MB; 2,000 does not.
 */
const LINES_PER_BUCKET_PER_MB = 500;

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

/** Every changed key named after its line in the month after (the month before for a lost one), in the order shown. */
const NAMED_CHANGES = `
  SELECT * FROM (${namedIn(2)}
    UNION ALL
    ${namedIn(1)} WHERE c.line1 IS NULL)
  ORDER BY lower(organization), org_key, lower(service), service_id, lower(subscription), subscription_id, product_id, currency, customer_currency`;

/**
 * Compares two saved months of the same service: new and lost organizations, services, subscriptions and product
 * lines, and for the lines in both, quantity, unit price and amount changes — each in its own currency pair. The
 * change in sales is split into price ((p₁ − p₀) × q₁), quantity ((q₁ − q₀) × p₀), new/lost and "other", computed
 * exactly per product line, so that per currency they add up to the total change to the last decimal.
 */
export async function compareMonths(ledger: Ledger, beforeId: string, afterId: string): Promise<MonthComparison> {
  const [counted] = await ledger.all('SELECT coalesce(sum(line_count), 0) AS lines FROM reports WHERE report_id IN ($1, $2)', [beforeId, afterId]);
  const buckets = Math.max(1, Math.ceil(Number(counted?.lines ?? 0) / (ledger.memoryLimitMb * LINES_PER_BUCKET_PER_MB)));
  const effectsByCurrency = new Map<string, Record<keyof SalesEffects, Money>>();
  const lineChanges: { change: MonthChange; keys: Keys | null }[] = [];
  const presence = await ledger.session(async (session) => {
    await session.run(`CREATE TEMPORARY TABLE changed AS ${CHANGED_KEYS}`, [beforeId, afterId, buckets, 0]);
    for (let bucket = 1; bucket < buckets; bucket++) await session.run(`INSERT INTO changed ${CHANGED_KEYS}`, [beforeId, afterId, buckets, bucket]);
    // Streamed: a month of a million lines can have hundreds of thousands of changes, each row let go once it is one.
    for await (const rows of session.stream(NAMED_CHANGES, [beforeId, afterId])) {
      for (const row of rows) {
        const change = lineChange(row);
        const sum = effectsByCurrency.get(change.currencyKey) ?? ZERO_EFFECTS();
        for (const part of ['price', 'quantity', 'newLost', 'other'] as const) sum[part] = sum[part].plus(change.effects[part]);
        effectsByCurrency.set(change.currencyKey, sum);
        lineChanges.push({ change, keys: isNewOrLost(change) ? keysOf(row) : null });
      }
    }
    return presenceOf(session, beforeId, afterId, lineChanges.flatMap(({ keys }) => (keys ? [keys] : [])));
  });
  const bridges = await salesBridges(ledger, beforeId, afterId);
  return {
    beforeId,
    afterId,
    bridges: bridges.map((bridge) => {
      const effects = effectsByCurrency.get(bridge.currencyKey) ?? ZERO_EFFECTS();
      return { ...bridge, effects: { price: effects.price.toFixed(), quantity: effects.quantity.toFixed(), newLost: effects.newLost.toFixed(), other: effects.other.toFixed() } };
    }),
    changes: rollUpNewAndLost(lineChanges, presence),
  };
}

const isNewOrLost = (change: MonthChange) => change.kind === 'new' || change.kind === 'lost';

/** What a new or lost line's roll-up looks up (only those keep their keys: the other changes need none). */
interface Keys {
  org: string;
  service: string;
  subscription: string;
  pair: string;
  /** The subscription as the ledger keys it (with `org`, what the presence of a new or lost line is looked up by). */
  subscriptionId: string;
}

function keysOf(row: LedgerRow): Keys {
  const pair = `${String(row.currency)}|${String(row.customer_currency)}`;
  // An organization is new or lost as a whole; a service or subscription that moved to another currency pair is
  // lost in the old pair and new in the other (amounts in two currencies are never compared).
  return {
    org: String(row.org_key), service: `${String(row.org_key)}|${String(row.service_id)}|${pair}`, subscription: `${String(row.subscription_id)}|${pair}`, pair,
    subscriptionId: String(row.subscription_id),
  };
}

/**
 * Which organizations, services and subscriptions (per currency pair) each month has at all — asked only of those
 * of the new and lost lines (all a roll-up looks up), so its size follows theirs, not the months'.
 */
async function presenceOf(session: LedgerSession, beforeId: string, afterId: string, newOrLost: Keys[]): Promise<{ before: Set<string>; after: Set<string> }> {
  const before = new Set<string>();
  const after = new Set<string>();
  if (newOrLost.length === 0) return { before, after };
  const rows = session.stream(
    `SELECT DISTINCT l.report_id, ${ORG_KEY} AS org_key, s.service_id, u.subscription_id, l.currency, l.customer_currency
     FROM billing_lines l
     JOIN organizations o ON o.report_id = l.report_id AND o.org_no = l.org_no
     JOIN services s ON s.report_id = l.report_id AND s.service_no = l.service_no
     JOIN subscriptions u ON u.report_id = l.report_id AND u.subscription_no = l.subscription_no
     WHERE l.report_id IN ($1, $2)
       AND (${ORG_KEY} IN (SELECT unnest($3::VARCHAR[])) OR u.subscription_id IN (SELECT unnest($4::VARCHAR[])))`,
    [beforeId, afterId, [...new Set(newOrLost.map((keys) => keys.org))], [...new Set(newOrLost.map((keys) => keys.subscriptionId))]],
  );
  for await (const chunk of rows) {
    for (const row of chunk) {
      const keys = keysOf(row);
      const set = row.report_id === beforeId ? before : after;
      set.add(`o:${keys.org}`).add(`s:${keys.service}`).add(`u:${keys.subscription}`);
    }
  }
  return { before, after };
}

/** Sales per currency pair in each month, from the totals kept at ingest. */
async function salesBridges(ledger: Ledger, beforeId: string, afterId: string): Promise<Omit<CurrencyBridge, 'effects'>[]> {
  const rows = await ledger.all(
    `SELECT ${CURRENCY_KEY} AS currency_key,
       coalesce(sum(sales) FILTER (WHERE report_id = $1), 0)::VARCHAR AS before, coalesce(sum(sales) FILTER (WHERE report_id = $2), 0)::VARCHAR AS after
     FROM report_totals WHERE report_id IN ($1, $2) GROUP BY currency_key ORDER BY currency_key`,
    [beforeId, afterId],
  );
  return rows.map((row) => ({
    currencyKey: String(row.currency_key),
    salesBefore: money(String(row.before)).toFixed(),
    salesAfter: money(String(row.after)).toFixed(),
    change: money(String(row.after)).minus(String(row.before)).toFixed(),
  }));
}

function valuesOf(row: LedgerRow, month: 0 | 1): LineValues | null {
  const quantity = row[`q${month}`];
  if (quantity === null || quantity === undefined) return null;
  const text = (value: unknown) => (value === null || value === undefined ? null : money(String(value)).toFixed());
  return {
    quantity: money(String(quantity)).toFixed(),
    unitPrice: text(row[`p${month}`]),
    unitCost: text(row[`k${month}`]),
    cost: money(String(row[`c${month}`])).toFixed(),
    sales: money(String(row[`s${month}`])).toFixed(),
  };
}

/** One compare key's change, with its sales effects. */
function lineChange(row: LedgerRow): MonthChange {
  const before = valuesOf(row, 0);
  const after = valuesOf(row, 1);
  const effects = ZERO_EFFECTS();
  let kind: ChangeKind;
  if (!before && after) {
    kind = 'new';
    effects.newLost = money(after.sales);
  } else if (before && !after) {
    kind = 'lost';
    effects.newLost = money(before.sales).negated();
  } else {
    const [was, is] = [before as LineValues, after as LineValues];
    const change = money(is.sales).minus(was.sales);
    if (was.unitPrice !== null && is.unitPrice !== null) {
      effects.price = money(is.unitPrice).minus(was.unitPrice).times(is.quantity);
      effects.quantity = money(is.quantity).minus(was.quantity).times(was.unitPrice);
    }
    effects.other = change.minus(effects.price).minus(effects.quantity);
    kind = !money(was.quantity).eq(is.quantity) ? 'quantity' : was.unitPrice !== is.unitPrice || was.unitCost !== is.unitCost ? 'price' : 'amount';
  }
  const currency = String(row.currency);
  const customerCurrency = String(row.customer_currency);
  return {
    kind,
    level: 'line',
    organization: String(row.organization),
    customerNumber: String(row.customer_number),
    orgId: String(row.org_id),
    service: String(row.service),
    serviceId: String(row.service_id),
    subscription: String(row.subscription),
    subscriptionId: String(row.subscription_id),
    product: String(row.product),
    productId: String(row.product_id),
    currencyKey: currencyPairKey(currency, customerCurrency),
    before,
    after,
    effects: { price: effects.price.toFixed(), quantity: effects.quantity.toFixed(), newLost: effects.newLost.toFixed(), other: effects.other.toFixed() },
  };
}

/**
 * A new or lost line whose whole subscription, service or organization is new or lost is reported once, at the
 * highest level that is: "Acme is a new customer", not each of its forty lines. Values and effects are summed.
 */
function rollUpNewAndLost(lines: { change: MonthChange; keys: Keys | null }[], presence: { before: Set<string>; after: Set<string> }): MonthChange[] {
  const result: MonthChange[] = [];
  const rolled = new Map<string, MonthChange>();
  /** What each rolled-up change covers: named on it when it is one subscription or product (a service of one subscription). */
  const covered = new Map<MonthChange, { subscriptions: Map<string, string | null>; products: Map<string, string | null> }>();
  for (const { change, keys } of lines) {
    if (!keys || (change.kind !== 'new' && change.kind !== 'lost')) {
      result.push(change);
      continue;
    }
    const other = change.kind === 'new' ? presence.before : presence.after;
    const level: ChangeLevel = !other.has(`o:${keys.org}`) ? 'organization' : !other.has(`s:${keys.service}`) ? 'service' : !other.has(`u:${keys.subscription}`) ? 'subscription' : 'line';
    if (level === 'line') {
      result.push(change);
      continue;
    }
    const key = `${change.kind}|${level}|${level === 'organization' ? `${keys.org}|${keys.pair}` : level === 'service' ? keys.service : keys.subscription}`;
    const existing = rolled.get(key);
    if (!existing) {
      const first: MonthChange = {
        ...change,
        level,
        ...(level === 'organization' ? { service: '', serviceId: null } : {}),
        ...(level !== 'subscription' ? { subscription: null, subscriptionId: null } : {}),
        product: null,
        productId: null,
        before: change.before && { ...change.before, unitPrice: null, unitCost: null, quantity: level === 'subscription' ? change.before.quantity : '' },
        after: change.after && { ...change.after, unitPrice: null, unitCost: null, quantity: level === 'subscription' ? change.after.quantity : '' },
      };
      rolled.set(key, first);
      covered.set(first, { subscriptions: new Map([[change.subscriptionId ?? '', change.subscription]]), products: new Map([[change.productId ?? '', change.product]]) });
      result.push(first);
      continue;
    }
    covered.get(existing)?.subscriptions.set(change.subscriptionId ?? '', change.subscription);
    covered.get(existing)?.products.set(change.productId ?? '', change.product);
    const add = (into: LineValues | null, values: LineValues | null): LineValues | null =>
      into && values
        ? { ...into, cost: money(into.cost).plus(values.cost).toFixed(), sales: money(into.sales).plus(values.sales).toFixed(), quantity: level === 'subscription' ? money(into.quantity).plus(values.quantity).toFixed() : '' }
        : into;
    existing.before = add(existing.before, change.before);
    existing.after = add(existing.after, change.after);
    existing.effects = { ...existing.effects, newLost: money(existing.effects.newLost).plus(change.effects.newLost).toFixed() };
  }
  for (const [change, { subscriptions, products }] of covered) {
    const [onlySubscription] = subscriptions.size === 1 ? [...subscriptions.entries()] : [];
    if (onlySubscription) [change.subscriptionId, change.subscription] = [onlySubscription[0] || null, onlySubscription[1]];
    const [onlyProduct] = products.size === 1 ? [...products.entries()] : [];
    if (onlyProduct && onlySubscription) [change.productId, change.product] = [onlyProduct[0] || null, onlyProduct[1]];
  }
  return result;
}
