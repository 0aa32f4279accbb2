import { TREE_LEVEL } from '@shared/model/tree-keys';
import { type Money, money } from '@shared/money';
import type { CurrencyBridge, MonthChange, MonthComparison as SharedComparison } from '@shared/schemas/month-close';
import type { Ledger, LedgerSession } from '../ledger/ledger';
import { currencyPairKey } from '@shared/model/currency-pair';
import { bridgeRows, keepChangedKeys, linesOfMonths, namedChanges, type NamedChangeRow, presentKeys, type PresentRow } from './queries/compare';

/** A month has an organization, service or subscription (by its keys): named by the tree's level letters. */
const presenceKey = (level: 'organization' | 'service' | 'subscription', id: string) => `${TREE_LEVEL[level]}:${id}`;

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

/**
 * The aggregate's states grow with the compare keys and DuckDB does not spill them well, so months are compared a
 * bucket of subscriptions at a time, of at most this many billing lines (both months) per MB of the ledger's memory
 * limit. Measured at a million lines a month: 500 per MB (8 buckets at 512 MB) also fits 256 MB; 2,000 does not.
 */
const LINES_PER_BUCKET_PER_MB = 500;

/**
 * Compares two saved months of the same service: new and lost organizations, services, subscriptions and product
 * lines, and for the lines in both, quantity, unit price and amount changes — each in its own currency pair. The
 * change in sales is split into price ((p₁ − p₀) × q₁), quantity ((q₁ − q₀) × p₀), new/lost and "other", computed
 * exactly per product line, so that per currency they add up to the total change to the last decimal.
 */
export async function compareMonths(ledger: Ledger, beforeId: string, afterId: string): Promise<MonthComparison> {
  const buckets = Math.max(1, Math.ceil((await linesOfMonths(ledger, beforeId, afterId)) / (ledger.memoryLimitMb * LINES_PER_BUCKET_PER_MB)));
  const effectsByCurrency = new Map<string, Record<keyof SalesEffects, Money>>();
  const lineChanges: { change: MonthChange; keys: Keys | null }[] = [];
  const presence = await ledger.session(async (session) => {
    await keepChangedKeys(session, beforeId, afterId, buckets);
    // Streamed: a month of a million lines can have hundreds of thousands of changes, each row let go once it is one.
    for await (const rows of namedChanges(session, beforeId, afterId)) {
      for (const row of rows) {
        const change = lineChange(row);
        const sum = effectsByCurrency.get(change.currencyKey) ?? ZERO_EFFECTS();
        for (const part of ['price', 'quantity', 'newLost', 'other'] as const) sum[part] = sum[part].plus(change.effects[part]);
        effectsByCurrency.set(change.currencyKey, sum);
        lineChanges.push({ change, keys: isNewOrLost(change) ? keysOf(row) : null });
      }
    }
    return presenceOf(
      session,
      beforeId,
      afterId,
      lineChanges.flatMap(({ keys }) => (keys ? [keys] : [])),
    );
  });
  const bridges = await salesBridges(ledger, beforeId, afterId);
  return {
    beforeId,
    afterId,
    bridges: bridges.map((bridge) => {
      const effects = effectsByCurrency.get(bridge.currencyKey) ?? ZERO_EFFECTS();
      return {
        ...bridge,
        effects: { price: effects.price.toFixed(), quantity: effects.quantity.toFixed(), newLost: effects.newLost.toFixed(), other: effects.other.toFixed() },
      };
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

function keysOf(row: PresentRow | NamedChangeRow): Keys {
  const pair = `${row.currency}|${row.customer_currency}`;
  // An organization is new or lost as a whole; a service or subscription that moved to another currency pair is
  // lost in the old pair and new in the other (amounts in two currencies are never compared).
  return {
    org: row.org_key,
    service: `${row.org_key}|${row.service_id}|${pair}`,
    subscription: `${row.subscription_id}|${pair}`,
    pair,
    subscriptionId: row.subscription_id,
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
  const rows = presentKeys(
    session,
    beforeId,
    afterId,
    [...new Set(newOrLost.map((keys) => keys.org))],
    [...new Set(newOrLost.map((keys) => keys.subscriptionId))],
  );
  for await (const chunk of rows) {
    for (const row of chunk) {
      const keys = keysOf(row);
      const set = row.report_id === beforeId ? before : after;
      set.add(presenceKey('organization', keys.org)).add(presenceKey('service', keys.service)).add(presenceKey('subscription', keys.subscription));
    }
  }
  return { before, after };
}

/** Sales per currency pair in each month, from the totals kept at ingest. */
async function salesBridges(ledger: Ledger, beforeId: string, afterId: string): Promise<Omit<CurrencyBridge, 'effects'>[]> {
  return (await bridgeRows(ledger, beforeId, afterId)).map((row) => ({
    currencyKey: row.currency_key,
    salesBefore: money(row.before).toFixed(),
    salesAfter: money(row.after).toFixed(),
    change: money(row.after).minus(row.before).toFixed(),
  }));
}

/** A month's values of a changed key (0 before, 1 after), or null when the month has none of its lines (then its sums are all NULL). */
function valuesOf(row: NamedChangeRow, month: 0 | 1): LineValues | null {
  const [quantity, cost, sales] = [row[`q${month}`], row[`c${month}`], row[`s${month}`]];
  if (quantity === null || cost === null || sales === null) return null;
  const text = (value: string | null) => (value === null ? null : money(value).toFixed());
  return {
    quantity: money(quantity).toFixed(),
    unitPrice: text(row[`p${month}`]),
    unitCost: text(row[`k${month}`]),
    cost: money(cost).toFixed(),
    sales: money(sales).toFixed(),
  };
}

/** One compare key's change, with its sales effects. */
function lineChange(row: NamedChangeRow): MonthChange {
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
  return {
    kind,
    level: 'line',
    organization: row.organization,
    customerNumber: row.customer_number,
    orgId: row.org_id,
    service: row.service,
    serviceId: row.service_id,
    subscription: row.subscription,
    subscriptionId: row.subscription_id,
    product: row.product,
    productId: row.product_id,
    currencyKey: currencyPairKey(row.currency, row.customer_currency),
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
    const level: ChangeLevel = !other.has(presenceKey('organization', keys.org))
      ? 'organization'
      : !other.has(presenceKey('service', keys.service))
        ? 'service'
        : !other.has(presenceKey('subscription', keys.subscription))
          ? 'subscription'
          : 'line';
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
      covered.set(first, {
        subscriptions: new Map([[change.subscriptionId ?? '', change.subscription]]),
        products: new Map([[change.productId ?? '', change.product]]),
      });
      result.push(first);
      continue;
    }
    covered.get(existing)?.subscriptions.set(change.subscriptionId ?? '', change.subscription);
    covered.get(existing)?.products.set(change.productId ?? '', change.product);
    const add = (into: LineValues | null, values: LineValues | null): LineValues | null =>
      into && values
        ? {
            ...into,
            cost: money(into.cost).plus(values.cost).toFixed(),
            sales: money(into.sales).plus(values.sales).toFixed(),
            quantity: level === 'subscription' ? money(into.quantity).plus(values.quantity).toFixed() : '',
          }
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
