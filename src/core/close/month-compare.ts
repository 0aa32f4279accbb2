import { AppError } from '@shared/errors';
import { createHash } from 'node:crypto';
import {
  ChangeKind as ChangeKinds,
  type ChangeView,
  type ChangeWindow,
  type CurrencyBridge,
  type KindCounts,
  type MonthChange,
} from '@shared/schemas/month-close';
import { currencyPairKey, isSingleCurrency } from '@shared/model/currency-pair';
import { money } from '@shared/money';
import type { Ledger } from '../ledger/ledger';
import { KEPT_TABLES } from '../ledger/migrations/004-kept-comparisons';
import { PRODUCT_LINE_TABLES } from '../ledger/product-lines';
import { keptContentHash } from '../reports';
import { keptNameOrder } from '../ledger/name-ranks';
import type { NameOrder } from '@shared/model/name-order';
import {
  type ComparedMonths,
  compareInSteps,
  COMPARISON_MEMORY_SHARE,
  forgetOldComparisons,
  keepComparison,
  type BridgeRow,
  keptBridgeRows,
  keptChangeCount,
  keptChangeListing,
  keptChangeRows,
  keptChangesAt,
  type KeptChangeRow,
  keptKindCounts,
  ruleChangeRows,
  unkeptRuleChangeRows,
} from './queries/compare';
import { isWholeInOrder, viewKey, viewOrderQuery } from './queries/change-views';
import { rowShape } from '../ledger/rows';
import { keepRecent, recentAnswer } from '../runtime/recent-map';
import { NewestWins } from '../runtime/newest-wins';

export type { CurrencyBridge, MonthChange } from '@shared/schemas/month-close';
type ChangeKind = MonthChange['kind'];

/**
 * Two months compared, as kept in the ledger: the figures whole, the changes read in parts — a million-line month
 * can have hundreds of thousands of them, and only those on screen (or in the batch being written) are objects.
 */
export interface MonthComparison {
  beforeId: string;
  afterId: string;
  /** Per currency pair: sales before and after, and the change split into its effects. */
  bridges: CurrencyBridge[];
  changeCount: number;
  kinds: KindCounts;
  /** The changes numbered `from` + 1 to `from` + `count`, in the order shown. */
  changes(from: number, count: number): Promise<MonthChange[]>;
  /** Every change in the order shown, in batches (memory stays flat). */
  batches(size?: number): AsyncGenerator<MonthChange[]>;
  /** Every change in the order shown as a line of text (the command line's listing), each begun with `indent`: UTF-8, made in SQL, a chunk at a time. */
  listing(indent: string): AsyncGenerator<Buffer>;
}

/** What a kept comparison was made by: a change to how months are compared gives every pair a new key. */
const COMPARE_VERSION = 4;

/** How many comparisons stay kept: a few months' worth, each a pair of months a user looked at. */
const KEPT_COMPARISONS = 8;

/** Comparisons being made, per ledger and key: two callers asking at once wait for the same one. */
const making = new WeakMap<Ledger, Map<string, Promise<number>>>();

/**
 * Compares two saved months of the same service: new and lost organizations, services, subscriptions and product
 * lines, and for the lines in both, quantity, unit price and amount changes — each in its own currency pair. The
 * change in sales is split into price ((p₁ − p₀) × q₁), quantity ((q₁ − q₀) × p₀), new/lost and "other", computed
 * exactly per product line, so that per currency they add up to the total change to the last decimal.
 *
 * Made once in SQL and kept in the ledger, keyed by both reports and their content hashes (a saved report never
 * changes; a refetch is another report), so the Close screen, the checks and the workbook share one (the checks
 * find what they need without one when none is kept: ruleChangesBetween).
 */
export async function compareMonths(ledger: Ledger, beforeId: string, afterId: string): Promise<MonthComparison> {
  const { key, order } = await comparisonKey(ledger, beforeId, afterId);
  const changeCount = (await keptChangeCount(ledger, key)) ?? (await made(ledger, beforeId, afterId, order, key));
  const kept = { key, beforeId, afterId };
  const read = async (from: number, count: number) => (await keptChangeRows(ledger, kept, from, count)).map(changeOf);
  return {
    beforeId,
    afterId,
    bridges: (await keptBridgeRows(ledger, key, beforeId, afterId)).map(bridgeOf),
    changeCount,
    kinds: kindCountsOf(await keptKindCounts(ledger, key)),
    changes: read,
    // The next batch is asked for before this one is handed on, so the ledger reads it while the caller writes
    // (a caller that stops early leaves it unread: its failure is then nobody's, so it is caught here).
    batches: async function* (size = 5_000) {
      const ask = (from: number) => {
        const batch = read(from, size);
        batch.catch(() => undefined);
        return batch;
      };
      let next = changeCount > 0 ? ask(0) : null;
      for (let from = 0; next; from += size) {
        const batch = await next;
        next = from + size < changeCount ? ask(from + size) : null;
        yield batch;
      }
    },
    listing: (indent) => keptChangeListing(ledger, kept, indent),
  };
}

/** Every kind's count, none left out (a kind with no change counts 0). */
function kindCountsOf(rows: { kind: string; changes: number }[]): KindCounts {
  const counts = Object.fromEntries(ChangeKinds.options.map((kind) => [kind, 0])) as KindCounts;
  for (const row of rows) if (row.kind in counts) counts[row.kind as ChangeKind] = row.changes;
  return counts;
}

/**
 * Changes `from` + 1 … `from` + `count` of two months' comparison (made first when none is kept) as `view` shows
 * them, and how many it shows. A view's order is made once in the ledger (every change it shows, as numbers) and
 * kept in memory for the next windows of it, so scrolling reads only the rows on screen. Asked for by a `list` (the
 * screen's own id for it), the view opens in place of the one that list asked for before: an order still being
 * made for that one is stopped, and its window fails as 'cancelled'.
 */
export async function changeWindow(
  ledger: Ledger,
  {
    beforeId,
    afterId,
    view,
    from,
    count,
    list,
  }: { beforeId: string; afterId: string; view: ChangeView; from: number; count: number; list?: string | undefined },
): Promise<ChangeWindow> {
  const { key, order } = await comparisonKey(ledger, beforeId, afterId);
  const changeCount = (await keptChangeCount(ledger, key)) ?? (await made(ledger, beforeId, afterId, order, key));
  // The comparison's own order is its numbers, 1 … changeCount: no order to make.
  const kept = { key, beforeId, afterId };
  const ordered = isWholeInOrder(view) ? null : await viewOrder(ledger, kept, view, order, list);
  const total = ordered?.length ?? changeCount;
  const wanted =
    ordered?.slice(from, from + count) ??
    Array.from({ length: Math.max(0, Math.min(count, total - from)) }, (_, index) => (view.direction === 'asc' ? from + index + 1 : total - from - index));
  const changes = (await keptChangesAt(ledger, kept, wanted)).map(changeOf);
  // Kept comparisons are made again alike (same key, same numbers): a gap means it went while this was read.
  if (changes.length !== wanted.length) throw new AppError('conflict', 'The comparison changed while it was read. Compare the months again.');
  return { total, changes };
}

/** How many views' orders stay in memory per ledger (each a number per change it shows: 1.4 MB at 345,774 changes). */
const KEPT_VIEWS = 8;

/** Views' orders being made or made, per ledger, by comparison and view, the most recently used last. */
const viewOrders = new WeakMap<Ledger, Map<string, Promise<number[]>>>();

const SEQS = rowShape({ seqs: 'text' });

/**
 * How many lists' openings are told apart per ledger (see changeWindow): a list is a Close screen's changes, so a
 * few at most are open at once.
 */
const KEPT_LISTS = 4;

/** Per ledger, per list, the view it opens: a newer one stops it (typing "storage" makes "s" … "storag" needless). */
const openings = new WeakMap<Ledger, Map<string, NewestWins>>();

function viewOrder(ledger: Ledger, months: ComparedMonths, view: ChangeView, order: NameOrder, list: string | undefined): Promise<number[]> {
  const orders = viewOrders.get(ledger) ?? new Map<string, Promise<number[]>>();
  viewOrders.set(ledger, orders);
  const id = `${months.key} ${viewKey(view)}`;
  return recentAnswer(orders, id, KEPT_VIEWS, async () => {
    const { sql, params } = viewOrderQuery(view, order, months);
    const rows = await (list === undefined ? ledger.all(sql, params) : openingsOf(ledger, list).run((signal) => ledger.stoppableAll(sql, params, signal)));
    const text = SEQS.all(rows)[0]?.seqs ?? '';
    return text ? text.split(',').map(Number) : [];
  });
}

function openingsOf(ledger: Ledger, list: string): NewestWins {
  const lists = openings.get(ledger) ?? new Map<string, NewestWins>();
  openings.set(ledger, lists);
  const opening = lists.get(list) ?? new NewestWins();
  keepRecent(lists, list, opening, KEPT_LISTS);
  return opening;
}

/** What a comparison of two months is kept under, and the name order its changes are listed in. */
async function comparisonKey(ledger: Ledger, beforeId: string, afterId: string): Promise<{ key: string; order: NameOrder }> {
  // The SQL tells the months apart by report: one fetch against itself would read as all lost and all new.
  if (beforeId === afterId) throw new AppError('validation', 'A month is compared with another fetch or month: choose two different saved reports.');
  const hashes = [await keptContentHash(ledger, beforeId), await keptContentHash(ledger, afterId)];
  // The changes are listed in the after month's name order (its profile's, ledger/name-ranks.ts): part of the key.
  const order = await keptNameOrder(ledger, afterId);
  const key = createHash('sha256')
    .update(JSON.stringify([COMPARE_VERSION, beforeId, afterId, ...hashes, order]))
    .digest('hex');
  return { key, order };
}

/**
 * The changes the rules against last month look at — lost, unit price or cost moved, quantity up by more than
 * `jumpPercent` — in the order shown: read from the months' kept comparison (waited for when one is being made), or
 * else found on their own, without making one. A million-line month's checks then take seconds, not the quarter
 * of a minute a whole comparison takes; the comparison is made when it is asked for (in the app, right after).
 */
export async function ruleChangesBetween(ledger: Ledger, beforeId: string, afterId: string, jumpPercent: number): Promise<MonthChange[]> {
  const { key, order } = await comparisonKey(ledger, beforeId, afterId);
  const jumpFactor = String(1 + jumpPercent / 100);
  await making
    .get(ledger)
    ?.get(key)
    ?.catch(() => undefined);
  const rows =
    (await keptChangeCount(ledger, key)) !== undefined
      ? await ruleChangeRows(ledger, { key, beforeId, afterId }, jumpFactor)
      : await ledger.derive(PRODUCT_LINE_TABLES, (transaction) => unkeptRuleChangeRows(transaction, { beforeId, afterId }, jumpFactor), {
          prepare: (steps) => compareInSteps(steps, { beforeId, afterId, order }, jumpFactor),
        });
  return rows.map(changeOf);
}

function made(ledger: Ledger, beforeId: string, afterId: string, order: NameOrder, key: string): Promise<number> {
  const inLedger = making.get(ledger) ?? new Map<string, Promise<number>>();
  making.set(ledger, inLedger);
  let changes = inLedger.get(key);
  if (!changes) {
    changes = ledger.derive(
      { ...KEPT_TABLES, ...PRODUCT_LINE_TABLES },
      async (transaction) => {
        await forgetOldComparisons(transaction, KEPT_COMPARISONS - 1);
        return keepComparison(transaction, { beforeId, afterId }, { key, madeAt: new Date().toISOString() });
      },
      { prepare: (steps) => compareInSteps(steps, { beforeId, afterId, order }, null), memoryShare: COMPARISON_MEMORY_SHARE },
    );
    inLedger.set(key, changes);
    void changes.finally(() => inLedger.delete(key)).catch(() => undefined);
  }
  return changes;
}

/** after − before, exactly, as the shortest text. */
const shortestDifference = (after: string, before: string) => money(after).minus(before).toFixed();

/** A pair's bridges: sales and cost with their effects, and the margin when cost and sales are in one currency. */
function bridgeOf(row: BridgeRow): CurrencyBridge {
  const margin = (sales: string, cost: string) => money(sales).minus(cost).toFixed();
  const [marginBefore, marginAfter] = [margin(row.before, row.cost_before), margin(row.after, row.cost_after)];
  return {
    currencyKey: row.currency_key,
    salesBefore: row.before,
    salesAfter: row.after,
    change: shortestDifference(row.after, row.before),
    effects: { price: row.price, quantity: row.quantity, newLost: row.new_lost, other: row.other },
    cost: {
      before: row.cost_before,
      after: row.cost_after,
      change: shortestDifference(row.cost_after, row.cost_before),
      effects: { price: row.cost_price, quantity: row.cost_quantity, newLost: row.cost_new_lost, other: row.cost_other },
    },
    margin: isSingleCurrency(row.currency_key) ? { before: marginBefore, after: marginAfter, change: shortestDifference(marginAfter, marginBefore) } : null,
  };
}

/** One month's side of a kept change, or null when the month has none of its lines. */
function sideOf(row: KeptChangeRow, month: 0 | 1): MonthChange['before'] {
  const [cost, sales] = [row[`c${month}`], row[`s${month}`]];
  if (cost === null || sales === null) return null;
  // An organization's or service's roll-up spans products: its quantities are not added up.
  return { quantity: row[`q${month}`] ?? '', unitPrice: row[`p${month}`], unitCost: row[`k${month}`], cost, sales };
}

function changeOf(row: KeptChangeRow): MonthChange {
  return {
    kind: row.kind as ChangeKind,
    level: row.level as MonthChange['level'],
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
    before: sideOf(row, 0),
    after: sideOf(row, 1),
    effects: { price: row.price_effect, quantity: row.quantity_effect, newLost: row.new_lost_effect, other: row.other_effect },
  };
}
