import { type Money, money } from '../../../shared/money';
import type { CurrencyBridge, MonthChange, MonthComparison as SharedComparison } from '../../../shared/schemas/month-close';
import type { Ledger, LedgerRow } from '../ledger/ledger';
import { ORG_KEY } from '../reports/report-query';

export type { CurrencyBridge, MonthChange } from '../../../shared/schemas/month-close';
type ChangeKind = MonthChange['kind'];
type ChangeLevel = MonthChange['level'];
type LineValues = NonNullable<MonthChange['before']>;
type SalesEffects = MonthChange['effects'];

/** Every change (the contract's MonthComparison is this, cut for IPC). */
export type MonthComparison = Omit<SharedComparison, 'changeCount'>;

const ZERO_EFFECTS = (): Record<keyof SalesEffects, Money> => ({ price: money(0), quantity: money(0), newLost: money(0), other: money(0) });

/**
 * The lines of both months summed per compare key (organization, service, subscription, product, currency pair):
 * several lines of one product count as one, so splitting a product's usage over two lines is not a change.
 */
const KEYED = `
  SELECT l.report_id,
    ${ORG_KEY} AS org_key, s.service_id, u.subscription_id, l.product_id, l.currency, l.customer_currency,
    any_value(o.name) AS organization, any_value(o.customer_number) AS customer_number, any_value(o.org_id) AS org_id,
    any_value(s.service_name) AS service, any_value(u.item_name) AS subscription, any_value(l.product_name) AS product,
    sum(l.quantity)::VARCHAR AS quantity, sum(l.cost)::VARCHAR AS cost, sum(l.sales)::VARCHAR AS sales,
    CASE WHEN min(l.sales_per_unit) = max(l.sales_per_unit) THEN min(l.sales_per_unit)::VARCHAR END AS unit_price,
    CASE WHEN min(l.cost_per_unit) = max(l.cost_per_unit) THEN min(l.cost_per_unit)::VARCHAR END AS unit_cost
  FROM billing_lines l
  JOIN organizations o ON o.report_id = l.report_id AND o.org_no = l.org_no
  JOIN services s ON s.report_id = l.report_id AND s.service_no = l.service_no
  JOIN subscriptions u ON u.report_id = l.report_id AND u.subscription_no = l.subscription_no
  WHERE l.report_id IN ($1, $2)
  GROUP BY l.report_id, org_key, s.service_id, u.subscription_id, l.product_id, l.currency, l.customer_currency`;

const KEY_COLUMNS = ['org_key', 'service_id', 'subscription_id', 'product_id', 'currency', 'customer_currency'] as const;

/**
 * Compares two saved months of the same service: new and lost organizations, services, subscriptions and product
 * lines, and for the lines in both, quantity, unit price and amount changes — each in its own currency pair. The
 * change in sales is split into price ((p₁ − p₀) × q₁), quantity ((q₁ − q₀) × p₀), new/lost and "other", computed
 * exactly per product line, so that per currency they add up to the total change to the last decimal.
 */
export async function compareMonths(ledger: Ledger, beforeId: string, afterId: string): Promise<MonthComparison> {
  const rows = await ledger.all(
    `WITH keyed AS (${KEYED}),
       a AS (SELECT * FROM keyed WHERE report_id = $1),
       b AS (SELECT * FROM keyed WHERE report_id = $2)
     SELECT ${KEY_COLUMNS.map((column) => `coalesce(a.${column}, b.${column}) AS ${column}`).join(', ')},
       coalesce(b.organization, a.organization) AS organization, coalesce(b.customer_number, a.customer_number) AS customer_number,
       coalesce(b.org_id, a.org_id) AS org_id, coalesce(b.service, a.service) AS service, coalesce(b.subscription, a.subscription) AS subscription,
       coalesce(b.product, a.product) AS product,
       a.quantity AS q0, a.cost AS c0, a.sales AS s0, a.unit_price AS p0, a.unit_cost AS k0,
       b.quantity AS q1, b.cost AS c1, b.sales AS s1, b.unit_price AS p1, b.unit_cost AS k1
     FROM a FULL OUTER JOIN b USING (${KEY_COLUMNS.join(', ')})
     WHERE a.report_id IS NULL OR b.report_id IS NULL OR a.quantity <> b.quantity OR a.cost <> b.cost OR a.sales <> b.sales
       OR a.unit_price IS DISTINCT FROM b.unit_price OR a.unit_cost IS DISTINCT FROM b.unit_cost
     ORDER BY lower(coalesce(b.organization, a.organization)), org_key, lower(coalesce(b.service, a.service)), service_id,
       lower(coalesce(b.subscription, a.subscription)), subscription_id, product_id, currency, customer_currency`,
    [beforeId, afterId],
  );
  const presence = await presenceOf(ledger, beforeId, afterId);
  const bridges = await salesBridges(ledger, beforeId, afterId);
  const effectsByCurrency = new Map<string, Record<keyof SalesEffects, Money>>();
  const lineChanges = rows.map((row) => {
    const change = lineChange(row);
    const sum = effectsByCurrency.get(change.currencyKey) ?? ZERO_EFFECTS();
    for (const part of ['price', 'quantity', 'newLost', 'other'] as const) sum[part] = sum[part].plus(change.effects[part]);
    effectsByCurrency.set(change.currencyKey, sum);
    return { change, keys: keysOf(row) };
  });
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

interface Keys {
  org: string;
  service: string;
  subscription: string;
  pair: string;
}

function keysOf(row: LedgerRow): Keys {
  const pair = `${String(row.currency)}|${String(row.customer_currency)}`;
  // An organization is new or lost as a whole; a service or subscription that moved to another currency pair is
  // lost in the old pair and new in the other (amounts in two currencies are never compared).
  return { org: String(row.org_key), service: `${String(row.org_key)}|${String(row.service_id)}|${pair}`, subscription: `${String(row.subscription_id)}|${pair}`, pair };
}

/** Which organizations, services and subscriptions (per currency pair) each month has at all. */
async function presenceOf(ledger: Ledger, beforeId: string, afterId: string): Promise<{ before: Set<string>; after: Set<string> }> {
  const rows = await ledger.all(
    `SELECT DISTINCT l.report_id, ${ORG_KEY} AS org_key, s.service_id, u.subscription_id, l.currency, l.customer_currency
     FROM billing_lines l
     JOIN organizations o ON o.report_id = l.report_id AND o.org_no = l.org_no
     JOIN services s ON s.report_id = l.report_id AND s.service_no = l.service_no
     JOIN subscriptions u ON u.report_id = l.report_id AND u.subscription_no = l.subscription_no
     WHERE l.report_id IN ($1, $2)`,
    [beforeId, afterId],
  );
  const before = new Set<string>();
  const after = new Set<string>();
  for (const row of rows) {
    const keys = keysOf(row);
    const set = row.report_id === beforeId ? before : after;
    set.add(`o:${keys.org}`).add(`s:${keys.service}`).add(`u:${keys.subscription}`);
  }
  return { before, after };
}

/** Sales per currency pair in each month, from the totals kept at ingest. */
async function salesBridges(ledger: Ledger, beforeId: string, afterId: string): Promise<Omit<CurrencyBridge, 'effects'>[]> {
  const rows = await ledger.all(
    `SELECT CASE WHEN currency = customer_currency THEN currency ELSE currency || '→' || customer_currency END AS currency_key,
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
    currencyKey: currency === customerCurrency ? currency : `${currency}→${customerCurrency}`,
    before,
    after,
    effects: { price: effects.price.toFixed(), quantity: effects.quantity.toFixed(), newLost: effects.newLost.toFixed(), other: effects.other.toFixed() },
  };
}

/**
 * A new or lost line whose whole subscription, service or organization is new or lost is reported once, at the
 * highest level that is: "Acme is a new customer", not each of its forty lines. Values and effects are summed.
 */
function rollUpNewAndLost(lines: { change: MonthChange; keys: Keys }[], presence: { before: Set<string>; after: Set<string> }): MonthChange[] {
  const result: MonthChange[] = [];
  const rolled = new Map<string, MonthChange>();
  /** What each rolled-up change covers: named on it when it is one subscription or product (a service of one subscription). */
  const covered = new Map<MonthChange, { subscriptions: Map<string, string | null>; products: Map<string, string | null> }>();
  for (const { change, keys } of lines) {
    if (change.kind !== 'new' && change.kind !== 'lost') {
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
