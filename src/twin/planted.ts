import type { TwinOrganization, TwinProduct, TwinServiceUse, TwinSubscription } from './dataset';
import { mixSeed, SeededRandom } from './random';

/**
 * The twin's month-to-month story. Every month has the same customers, subscriptions and prices (usage varies a
 * little); from PLANTING_STARTS on, each month P also gets planted differences from P − 1, chosen from the period
 * alone, so every run and every test sees the same ones:
 * - kept from P on (what a real customer base does): one new subscription, one lost subscription, one unit price
 *   raised 5 %, one quantity doubled;
 * - in P only (anomalies the billing checks must find): one subscription sold below cost, one with cost and no sales,
 *   one organization without a customer number, one line whose total is not quantity × unit price.
 * Every planted change hits a subscription whose products are all licences (no usage), so nothing else moves it.
 */
export const PLANTING_STARTS = '2025-01';

export interface TwinDataset {
  seed: number;
  organizations: TwinOrganization[];
}

/** What a planted change hit: the ids a test matches the compare and the checks against. */
export interface PlantedTarget {
  orgId: string;
  organization: string;
  serviceId: string;
  service: string;
  subscriptionId: string;
  subscription: string;
  productId: string;
  product: string;
}

export interface PlantedChanges {
  period: string;
  /** Kept from this month on. The new one has one product; the lost one is one of several in its service. */
  newSubscription: PlantedTarget | null;
  lostSubscription: PlantedTarget | null;
  /** Reseller and customer price per unit of this product raised 5 %. */
  unitPriceChange: PlantedTarget | null;
  /** This product's quantity doubled (+100 %, above the default 50 % threshold). */
  quantityJump: PlantedTarget | null;
  /** This month only: every product of the subscription sold at 90 % of its cost. */
  negativeMargin: PlantedTarget | null;
  /** This month only: every product of the subscription sold at 0. */
  costWithoutSales: PlantedTarget | null;
  /** This month only: the line's sales total is one unit price more than quantity × unit price. */
  lineTotalMismatch: PlantedTarget | null;
  /** This month only: the organization's customer number is empty in the report. */
  missingCustomerNumber: { orgId: string; organization: string } | null;
  /** The line `POST /__twin/restate` changes (3 more licences, totals to match), once the period is restated. */
  restatement: PlantedTarget | null;
  /** A control: a licence subscription that nothing planted touches in this month or the one before. */
  unchanged: PlantedTarget | null;
}

/** How a month differs from the twin's base data; billing-report.ts builds the month's lines through it. */
export interface MonthPlan {
  changes: PlantedChanges;
  /** The subscriptions a service use has this month: the lost ones gone, the new ones added. */
  subscriptionsOf(use: TwinServiceUse): TwinSubscription[];
  /** How many 5 % price rises a product line has had by this month. */
  priceSteps(subscriptionId: string, productId: string): number;
  /** How many times a product line's quantity has doubled by this month. */
  quantityDoublings(subscriptionId: string, productId: string): number;
  isBelowCost(subscriptionId: string): boolean;
  isUnbilled(subscriptionId: string): boolean;
  isOffTotal(subscriptionId: string, productId: string): boolean;
  isRestated(subscriptionId: string, productId: string): boolean;
  hasNoCustomerNumber(orgId: string): boolean;
}

interface Slot {
  organization: TwinOrganization;
  use: TwinServiceUse;
  subscription: TwinSubscription;
}

/** What the kept changes have done by the end of a month. */
interface State {
  lost: Set<string>;
  added: Map<TwinServiceUse, TwinSubscription[]>;
  addedSlots: Slot[];
  priceSteps: Map<string, number>;
  doublings: Map<string, number>;
}

interface Anomalies {
  negativeMargin: Slot | null;
  costWithoutSales: Slot | null;
  lineTotalMismatch: Slot | null;
  restatement: Slot | null;
  missingCustomerNumber: TwinOrganization | null;
}

interface KeptChanges {
  added: Slot | null;
  lost: Slot | null;
  price: { slot: Slot; product: TwinProduct } | null;
  quantity: { slot: Slot; product: TwinProduct } | null;
}

function touchedBy(kept: KeptChanges): Set<string> {
  return new Set(
    [kept.added, kept.lost, kept.price?.slot ?? null, kept.quantity?.slot ?? null].flatMap((slot) => (slot ? [slot.subscription.subscriptionId] : [])),
  );
}

const lineKey = (subscriptionId: string, productId: string) => `${subscriptionId}|${productId}`;

/** 'YYYY-MM' → months since year 0, so consecutive months differ by one. */
export function monthNumber(period: string): number {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return year * 12 + month - 1;
}

function periodOf(number: number): string {
  return `${Math.floor(number / 12)}-${String((number % 12) + 1).padStart(2, '0')}`;
}

const onlyLicences = (subscription: TwinSubscription) => subscription.products.every((product) => !product.template.metered);
const soldInOwnCurrency = (slot: Slot) => slot.use.template.kind === 'vendor';

/** The first candidate from a drawn starting point that passes the test: deterministic, and no retry loop. */
function draw<T>(random: SeededRandom, candidates: T[], test: (candidate: T) => boolean = () => true): T | null {
  if (candidates.length === 0) return null;
  const start = random.int(0, candidates.length - 1);
  for (let offset = 0; offset < candidates.length; offset++) {
    const candidate = candidates[(start + offset) % candidates.length] as T;
    if (test(candidate)) return candidate;
  }
  return null;
}

function target(slot: Slot | null, product?: TwinProduct): PlantedTarget | null {
  if (!slot) return null;
  const chosen = product ?? (slot.subscription.products[0] as TwinProduct);
  return {
    orgId: slot.organization.orgId,
    organization: slot.organization.name,
    serviceId: slot.use.serviceId,
    service: slot.use.template.name,
    subscriptionId: slot.subscription.subscriptionId,
    subscription: slot.subscription.itemName,
    productId: chosen.productId,
    product: chosen.template.name,
  };
}

/** Builds the months of one data set, remembering them: each month follows from the one before. */
class Planter {
  private readonly baseSlots: Slot[];
  private readonly plans = new Map<string, MonthPlan>();

  constructor(private readonly dataset: TwinDataset) {
    this.baseSlots = dataset.organizations.flatMap((organization) =>
      organization.services.flatMap((use) => use.subscriptions.filter(onlyLicences).map((subscription) => ({ organization, use, subscription }))),
    );
  }

  plan(period: string, plant: boolean): MonthPlan {
    const key = `${period}|${plant}`;
    let plan = this.plans.get(key);
    if (!plan) {
      plan = this.build(monthNumber(period), plant);
      this.plans.set(key, plan);
    }
    return plan;
  }

  private alive(state: State): Slot[] {
    return [
      ...this.baseSlots.filter((slot) => !state.lost.has(slot.subscription.subscriptionId)),
      ...state.addedSlots.filter((slot) => !state.lost.has(slot.subscription.subscriptionId)),
    ];
  }

  private build(month: number, plant: boolean): MonthPlan {
    const state: State = { lost: new Set(), added: new Map(), addedSlots: [], priceSteps: new Map(), doublings: new Map() };
    const first = monthNumber(PLANTING_STARTS);
    const planting = plant && month >= first;
    let kept: KeptChanges = { added: null, lost: null, price: null, quantity: null };
    let previousAnomalies: Anomalies | null = null;
    for (let number = first; planting && number <= month; number++) {
      // Last month's anomalies are drawn as last month drew them, so the control can avoid what they touched.
      if (number === month && number > first) previousAnomalies = this.anomalies(number - 1, state, touchedBy(kept), true);
      kept = this.keptChanges(number, state);
    }
    const touched = touchedBy(kept);
    const anomalies = this.anomalies(month, state, touched, planting);
    const anomalous = (found: Anomalies | null) => (found ? [found.negativeMargin, found.costWithoutSales, found.lineTotalMismatch, found.restatement] : []);
    for (const slot of [...anomalous(anomalies), ...anomalous(previousAnomalies)]) if (slot) touched.add(slot.subscription.subscriptionId);
    const unchanged = draw(new SeededRandom(mixSeed(this.dataset.seed, 9, month)), this.alive(state), (slot) => !touched.has(slot.subscription.subscriptionId));
    const restatedLine = anomalies.restatement && (anomalies.restatement.subscription.products[0] as TwinProduct);
    const offTotalLine = anomalies.lineTotalMismatch && (anomalies.lineTotalMismatch.subscription.products[0] as TwinProduct);
    const subscriptionId = (slot: Slot | null) => slot?.subscription.subscriptionId;
    return {
      changes: {
        period: periodOf(month),
        newSubscription: target(kept.added),
        lostSubscription: target(kept.lost),
        unitPriceChange: target(kept.price?.slot ?? null, kept.price?.product),
        quantityJump: target(kept.quantity?.slot ?? null, kept.quantity?.product),
        negativeMargin: target(anomalies.negativeMargin),
        costWithoutSales: target(anomalies.costWithoutSales),
        lineTotalMismatch: target(anomalies.lineTotalMismatch),
        missingCustomerNumber: anomalies.missingCustomerNumber && {
          orgId: anomalies.missingCustomerNumber.orgId,
          organization: anomalies.missingCustomerNumber.name,
        },
        restatement: target(anomalies.restatement),
        unchanged: target(unchanged),
      },
      subscriptionsOf: (use) => [...use.subscriptions, ...(state.added.get(use) ?? [])].filter((subscription) => !state.lost.has(subscription.subscriptionId)),
      priceSteps: (sub, product) => state.priceSteps.get(lineKey(sub, product)) ?? 0,
      quantityDoublings: (sub, product) => state.doublings.get(lineKey(sub, product)) ?? 0,
      isBelowCost: (sub) => sub === subscriptionId(anomalies.negativeMargin),
      isUnbilled: (sub) => sub === subscriptionId(anomalies.costWithoutSales),
      isOffTotal: (sub, product) => sub === subscriptionId(anomalies.lineTotalMismatch) && product === offTotalLine?.productId,
      isRestated: (sub, product) => sub === subscriptionId(anomalies.restatement) && product === restatedLine?.productId,
      hasNoCustomerNumber: (orgId) => orgId === anomalies.missingCustomerNumber?.orgId,
    };
  }

  /** The kept changes of one month, applied to the state. */
  private keptChanges(month: number, state: State): KeptChanges {
    const random = new SeededRandom(mixSeed(this.dataset.seed, 7, month));
    const alive = this.alive(state);
    const liveCount = (use: TwinServiceUse) =>
      [...use.subscriptions, ...(state.added.get(use) ?? [])].filter((subscription) => !state.lost.has(subscription.subscriptionId)).length;
    const taken = new Set<string>();
    const free = (slot: Slot) => !taken.has(slot.subscription.subscriptionId);
    const take = (slot: Slot | null) => {
      if (slot) taken.add(slot.subscription.subscriptionId);
      return slot;
    };

    const lost = take(draw(random, alive, (slot) => free(slot) && liveCount(slot.use) >= 2));
    const priceSlot = take(draw(random, alive, free));
    const quantitySlot = take(draw(random, alive, free));
    const host = draw(random, alive, free);
    const price = priceSlot && { slot: priceSlot, product: random.pick(priceSlot.subscription.products) };
    const quantity = quantitySlot && { slot: quantitySlot, product: random.pick(quantitySlot.subscription.products) };

    if (lost) state.lost.add(lost.subscription.subscriptionId);
    const count = (counts: Map<string, number>, line: { slot: Slot; product: TwinProduct } | null) => {
      if (!line) return;
      const key = lineKey(line.slot.subscription.subscriptionId, line.product.productId);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    };
    count(state.priceSteps, price);
    count(state.doublings, quantity);
    let added: Slot | null = null;
    if (host) {
      const product = host.subscription.products[0] as TwinProduct;
      const subscription: TwinSubscription = {
        subscriptionId: random.guid(),
        itemName: `${host.organization.name} – ${product.template.name} (since ${periodOf(month)})`,
        poNumber: '',
        products: [product],
        addons: [],
        metered: false,
      };
      state.added.set(host.use, [...(state.added.get(host.use) ?? []), subscription]);
      added = { organization: host.organization, use: host.use, subscription };
      state.addedSlots.push(added);
    }
    return { added, lost, price, quantity };
  }

  /** The anomalies of one month: subscriptions that nothing else touches that month. */
  private anomalies(month: number, state: State, touched: Set<string>, plant: boolean): Anomalies {
    const random = new SeededRandom(mixSeed(this.dataset.seed, 8, month));
    const alive = this.alive(state);
    const taken = new Set(touched);
    const pick = (test: (slot: Slot) => boolean = () => true) => {
      const slot = draw(random, alive, (candidate) => !taken.has(candidate.subscription.subscriptionId) && test(candidate));
      if (slot) taken.add(slot.subscription.subscriptionId);
      return slot;
    };
    const negativeMargin = plant ? pick(soldInOwnCurrency) : null;
    const costWithoutSales = plant ? pick(soldInOwnCurrency) : null;
    const lineTotalMismatch = plant ? pick() : null;
    // A planted month restates its loss-making subscription (an acceptance of that loss then no longer holds); the
    // pick is made either way, so what is drawn after it stays the same.
    const picked = pick();
    const restatement = negativeMargin ?? picked;
    const billed = this.dataset.organizations.filter((organization) => organization.services.length > 0);
    const missingCustomerNumber = plant ? draw(random, billed) : null;
    return { negativeMargin, costWithoutSales, lineTotalMismatch, restatement, missingCustomerNumber };
  }
}

const planters = new WeakMap<TwinOrganization[], Map<number, Planter>>();

/** The plan of a month ('YYYY-MM'); without planting, only the restatement's line is chosen. */
export function monthPlan(dataset: TwinDataset, period: string, plant: boolean): MonthPlan {
  let bySeed = planters.get(dataset.organizations);
  if (!bySeed) planters.set(dataset.organizations, (bySeed = new Map()));
  let planter = bySeed.get(dataset.seed);
  if (!planter) bySeed.set(dataset.seed, (planter = new Planter(dataset)));
  return planter.plan(period, plant);
}

/** Which organization, subscription and product each of a month's planted changes hit ('YYYY-MM', compared with the month before). */
export function plantedChanges(dataset: TwinDataset, period: string): PlantedChanges {
  return monthPlan(dataset, period, true).changes;
}
