import { z } from 'zod';
import { ReportPeriod } from './billing-report';
import { IsoDate } from './common';
import { DecimalText as Decimal } from '../model/decimal';

/** Closing a month: compare, billing checks, review, sign-off, trends and rates — as the renderer and the CLI see them. */

export const Severity = z.enum(['high', 'medium', 'low']);
export type Severity = z.infer<typeof Severity>;
/** Most severe first: how exceptions and findings are ordered everywhere. */
export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { high: 0, medium: 1, low: 2 };

export const ReviewState = z.enum(['open', 'accepted', 'resolved']);
export type ReviewState = z.infer<typeof ReviewState>;

export const CheckThresholds = z.object({
  /** Margin % points from the service's median margin before a customer's margin is an outlier. */
  marginDeviationPoints: z.number().min(1).max(100),
  /** Rise in a product's quantity since last month, in %, before it is a jump. */
  quantityJumpPercent: z.number().min(1).max(100_000),
});
export type CheckThresholds = z.infer<typeof CheckThresholds>;

export const LineValues = z.object({ quantity: Decimal, unitPrice: Decimal.nullable(), unitCost: Decimal.nullable(), cost: Decimal, sales: Decimal });

export const SalesEffects = z.object({ price: Decimal, quantity: Decimal, newLost: Decimal, other: Decimal });

/** The kinds of change, in the order they are listed and sorted. */
export const ChangeKind = z.enum(['new', 'lost', 'quantity', 'price', 'amount']);
export type ChangeKind = z.infer<typeof ChangeKind>;
/** The levels a change is at (new and lost are rolled up to the highest), from the top down: the order they sort in. */
export const ChangeLevel = z.enum(['organization', 'service', 'subscription', 'line']);

export const MonthChange = z.object({
  kind: ChangeKind,
  level: ChangeLevel,
  organization: z.string(),
  customerNumber: z.string(),
  orgId: z.string(),
  service: z.string(),
  serviceId: z.string().nullable(),
  subscription: z.string().nullable(),
  subscriptionId: z.string().nullable(),
  product: z.string().nullable(),
  productId: z.string().nullable(),
  currencyKey: z.string(),
  before: LineValues.nullable(),
  after: LineValues.nullable(),
  effects: SalesEffects,
});
export type MonthChange = z.infer<typeof MonthChange>;

/**
 * One currency pair's bridge from the month before: the sales (in the customer currency) and the cost (in the purchase
 * currency), each split exactly into its effects, and the margin before and after where both are in one currency
 * (null for a pair of two: no margin across currencies).
 */
export const CurrencyBridge = z.object({
  currencyKey: z.string(),
  salesBefore: Decimal,
  salesAfter: Decimal,
  change: Decimal,
  effects: SalesEffects,
  cost: z.object({ before: Decimal, after: Decimal, change: Decimal, effects: SalesEffects }),
  margin: z.object({ before: Decimal, after: Decimal, change: Decimal }).nullable(),
});
export type CurrencyBridge = z.infer<typeof CurrencyBridge>;

/** At most this many exceptions are reviewed in one call (a group is sent in parts, so it can be stopped between them). */
export const MAX_REVIEWS_AT_ONCE = 500;

/**
 * The changes cross to the screen a window at a time, in the order and filter it shows (close:changes): a
 * comparison of two 1,000,000-line months has 345,774, sorted and searched in the ledger. A comparison's answer
 * brings the first window of its order, so its first rows are painted at once.
 */
export const CHANGES_PER_WINDOW = 200;

/** How many changes there are of each kind (all of them, whatever a view filters). */
export const KindCounts = z.object(
  Object.fromEntries(ChangeKind.options.map((kind) => [kind, z.number().int().nonnegative()])) as Record<ChangeKind, z.ZodNumber>,
);
export type KindCounts = z.infer<typeof KindCounts>;

/** What a column of the changes sorts by. */
export const ChangeSortKey = z.enum(['kind', 'level', 'organization', 'place', 'currency', 'before', 'after', 'effect']);
export type ChangeSortKey = z.infer<typeof ChangeSortKey>;

/**
 * A way of looking at a comparison's changes: of one kind or all, those whose names and ids hold every word of
 * `text` (folded as every search is), sorted by one column.
 */
export const ChangeView = z.object({
  kind: ChangeKind.optional(),
  text: z.string().max(200).optional(),
  sort: ChangeSortKey,
  direction: z.enum(['asc', 'desc']),
});
export type ChangeView = z.infer<typeof ChangeView>;

/** The comparison's own order, everything shown: what its answer's first window is of. */
export const FIRST_VIEW: ChangeView = { sort: 'organization', direction: 'asc' };

/** A window of a view's changes, and how many the view has in all. */
export const ChangeWindow = z.object({
  total: z.number().int().nonnegative(),
  changes: z.array(MonthChange).max(CHANGES_PER_WINDOW),
});
export type ChangeWindow = z.infer<typeof ChangeWindow>;

export const MonthComparison = z.object({
  beforeId: z.string(),
  afterId: z.string(),
  bridges: z.array(CurrencyBridge),
  /** The first CHANGES_PER_WINDOW changes of FIRST_VIEW (close:changes reads the others, in any view). */
  changes: z.array(MonthChange).max(CHANGES_PER_WINDOW),
  /** How many changes there are in all. */
  changeCount: z.number().int().nonnegative(),
  kinds: KindCounts,
});
export type MonthComparison = z.infer<typeof MonthComparison>;

/** The figures an exception was raised on (exact decimal text by name): what an acceptance accepted. */
export const Evidence = z.record(z.string(), z.string());
export type Evidence = z.infer<typeof Evidence>;

export const Review = z.object({
  exceptionId: z.string(),
  state: ReviewState,
  note: z.string(),
  /** Who reviewed: the signed-in identity (the OS user on a workstation), never typed text. */
  reviewedBy: z.string(),
  reviewedAt: z.string(),
  /** The figures reviewed; taken from the month when first checked for a review carried over from before four eyes. */
  evidence: Evidence,
  capturedAtMigration: z.boolean(),
  /** The figures changed since the review: it no longer counts, and the exception is open until reviewed again. */
  suspended: z.object({ reviewed: Evidence, now: Evidence }).nullable(),
});
export type Review = z.infer<typeof Review>;

export const BillingException = z.object({
  /** Rule and entity keys: stable through a refetch of the month, so its review carries over. */
  id: z.string(),
  rule: z.string(),
  severity: Severity,
  title: z.string(),
  explanation: z.string(),
  message: z.string(),
  organization: z.string(),
  orgId: z.string(),
  customerNumber: z.string(),
  service: z.string().nullable(),
  serviceId: z.string().nullable(),
  subscription: z.string().nullable(),
  subscriptionId: z.string().nullable(),
  product: z.string().nullable(),
  productId: z.string().nullable(),
  currencyKey: z.string().nullable(),
  /** The viewer's tree keys from the organization row down to the row (organization hierarchy); empty when it has none. */
  path: z.array(z.string()),
  /** The figures the rule saw (a changed figure suspends an acceptance); empty when the rule has none (no customer number). */
  evidence: Evidence,
  review: Review.nullable(),
});
export type BillingException = z.infer<typeof BillingException>;

/** Draft → Prepared (by the preparer, nothing open) → Approved (by another person). Draft has no sign-off. */
export const CloseState = z.enum(['draft', 'prepared', 'approved']);
export type CloseState = z.infer<typeof CloseState>;

/** A saved fetch's place in its month's close: the sign-off's state when it stands on this fetch (else Draft), and whether a newer fetch of the month supersedes it. */
export const FetchState = z.object({ reportId: z.string(), state: CloseState, superseded: z.boolean() });
export type FetchState = z.infer<typeof FetchState>;

/** A month's sign-off in force: on which fetch (and its content hash), who prepared and approved it, and when. */
export const SignOff = z.object({
  state: z.enum(['prepared', 'approved']),
  reportId: z.string(),
  contentHash: z.string(),
  preparedBy: z.string(),
  preparedAt: z.string(),
  approvedBy: z.string().nullable(),
  approvedAt: z.string().nullable(),
  /** The thresholds the month was checked with when prepared (null: prepared before four eyes, not recorded). */
  thresholds: CheckThresholds.nullable(),
});
export type SignOff = z.infer<typeof SignOff>;

/** One entry of a month's close log (append-only, each entry chained to the previous by its hash). */
export const CloseLogEntry = z.object({
  seq: z.number().int(),
  reportId: z.string(),
  action: z.string(),
  exceptionId: z.string(),
  note: z.string(),
  actor: z.string(),
  at: z.string(),
  evidence: z.string(),
  hash: z.string(),
});
export type CloseLogEntry = z.infer<typeof CloseLogEntry>;

/** A month's log with its chain checked: intact, or the first entry (from 1) where an entry was removed or changed. */
export const CloseLog = z.object({ entries: z.array(CloseLogEntry), intact: z.boolean(), brokenAt: z.number().int().nullable() });
export type CloseLog = z.infer<typeof CloseLog>;

export const MonthCloseView = z.object({
  reportId: z.string(),
  previousReportId: z.string().nullable(),
  /** The period of that month: the newest earlier one in the ledger, not always the month just before. */
  previousPeriod: z.object({ startDate: z.string(), endDate: z.string() }).nullable(),
  /** When that month was fetched: before its end, the checks compare with what was billed by then. */
  previousFetchedAt: z.string().nullable(),
  thresholds: CheckThresholds,
  exceptions: z.array(BillingException),
  open: z.object({ high: z.number().int(), medium: z.number().int(), low: z.number().int() }),
  /** This fetch's state: Prepared or Approved only when the sign-off in force is on this very fetch. */
  state: CloseState,
  signOff: SignOff.nullable(),
  /** Who is acting here (the signed-in identity), and whether a second person can approve (the team ledger). */
  you: z.string(),
  teamLedger: z.boolean(),
  /**
   * Set while the team ledger cannot be reached: the state shown is the one last read from it, at this time, and
   * nothing can be changed until it answers again.
   */
  teamOfflineSince: z.string().nullable().default(null),
  /** Approved — or Prepared where there is no team ledger (every file then says "not approved by a second person"). */
  readyToInvoice: z.boolean(),
  /** What the checks on open found: the signed lines re-hashed (null: nothing signed here) and the log's chain. */
  integrity: z.object({ contentChanged: z.boolean().nullable(), logIntact: z.boolean(), logBrokenAt: z.number().int().nullable() }),
  /**
   * The month was signed off on another fetch of it: what the service changed since — the first window of its
   * `changeCount` changes (close:changes reads the others), so the month's state, answered at every review, stays small.
   */
  restatement: z
    .object({
      signedReportId: z.string(),
      hashChanged: z.boolean(),
      changes: z.array(MonthChange).max(CHANGES_PER_WINDOW),
      changeCount: z.number().int().nonnegative(),
      kinds: KindCounts,
      bridges: z.array(CurrencyBridge),
    })
    .nullable(),
  /** This report is not the newest fetch of its month. */
  superseded: z.boolean(),
  /** Set when this fetch was made before its period was over (@shared/model/period-end): it cannot be prepared. */
  fetchedBeforeEnd: z.object({ fetchedAt: z.string(), endDate: z.string() }).nullable(),
});
export type MonthCloseView = z.infer<typeof MonthCloseView>;

/** A saved month of the same service and reseller as a report (the newest fetch of each period). */
export const MonthSummary = z.object({ reportId: z.string(), name: z.string(), period: ReportPeriod, fetchedAt: z.string(), state: CloseState });
export type MonthSummary = z.infer<typeof MonthSummary>;

/*
 * Trends: sales, cost and margin over every month of a service and reseller in the ledger, one series per currency
 * pair (never added across currencies), and the month's top movers.
 */

/** What a trend covers: the whole reseller, one organization or service (by the viewer's keys), or an organization group. */
export const TrendScope = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('all') }),
  z.object({ kind: z.literal('organization'), key: z.string().min(1).max(400) }),
  z.object({ kind: z.literal('service'), key: z.string().min(1).max(400) }),
  z.object({ kind: z.literal('group'), key: z.string().min(1).max(200) }),
]);
export type TrendScope = z.infer<typeof TrendScope>;

/** One choice of a scope: its key, what it is called (in the newest month that has it), and a detail (customer number). */
export const TrendChoice = z.object({ key: z.string(), label: z.string(), detail: z.string() });
export type TrendChoice = z.infer<typeof TrendChoice>;

/** Everything a trend can be scoped to, over every month of the report's service and reseller. */
export const TrendScopes = z.object({ organizations: z.array(TrendChoice), services: z.array(TrendChoice), groups: z.array(TrendChoice) });
export type TrendScopes = z.infer<typeof TrendScopes>;

export const TrendMonth = z.object({ reportId: z.string(), period: ReportPeriod, fetchedAt: z.string() });
export type TrendMonth = z.infer<typeof TrendMonth>;

/** A month of a series: cost in the pair's purchase currency, sales in its customer currency; margin only when they are one. */
export const TrendPoint = z.object({
  lines: z.number().int().nonnegative(),
  cost: Decimal,
  sales: Decimal,
  margin: Decimal.nullable(),
  marginPercent: Decimal.nullable(),
});
export type TrendPoint = z.infer<typeof TrendPoint>;

/** One currency pair over the months: `points[i]` is `months[i]` (zero where the scope had no lines in it that month). */
export const TrendSeries = z.object({ currencyKey: z.string(), costCurrency: z.string(), salesCurrency: z.string(), points: z.array(TrendPoint) });
export type TrendSeries = z.infer<typeof TrendSeries>;

/** An organization or service whose sales in one currency pair changed most from the month before. */
export const TopMover = z.object({
  level: z.enum(['organization', 'service']),
  key: z.string(),
  name: z.string(),
  /** Customer number of an organization; empty for a service. */
  detail: z.string(),
  currencyKey: z.string(),
  salesBefore: Decimal,
  salesAfter: Decimal,
  change: Decimal,
  /** new: no lines the month before; lost: none this month. */
  status: z.enum(['new', 'lost', 'changed']),
});
export type TopMover = z.infer<typeof TopMover>;

export const Trends = z.object({
  scope: TrendScope,
  /** Every month of the report's service and reseller (newest fetch of each period), oldest first. */
  months: z.array(TrendMonth),
  /** Index in `months` of the report's own period. */
  currentIndex: z.number().int(),
  series: z.array(TrendSeries),
  /** The report's month against the month before, within the scope: the largest rises and falls per currency pair and level. */
  movers: z.object({ before: TrendMonth, after: TrendMonth, rows: z.array(TopMover) }).nullable(),
});
export type Trends = z.infer<typeof Trends>;

/*
 * A reference currency (optional, per month): the user's own rates give a converted total beside the native amounts,
 * never in their place. 1 unit of `currency` = `rate` units of the reference currency.
 */

export const ExchangeRate = z.object({ currency: z.string(), rate: Decimal });
export type ExchangeRate = z.infer<typeof ExchangeRate>;

/** A currency pair of the month in its own currencies and, when both have a rate, converted. */
export const ConvertedPair = z.object({
  currencyKey: z.string(),
  lines: z.number().int().nonnegative(),
  cost: Decimal,
  sales: Decimal,
  /** Null when a currency of the pair has no rate (then `missing` names it). */
  convertedCost: Decimal.nullable(),
  convertedSales: Decimal.nullable(),
  missing: z.array(z.string()),
});
export type ConvertedPair = z.infer<typeof ConvertedPair>;

export const RatesView = z.object({
  reportId: z.string(),
  period: ReportPeriod,
  /** Rates are locked while the month is signed off. */
  signedOff: z.boolean(),
  referenceCurrency: z.string().nullable(),
  /** The rates kept with the month (the reference currency's own 1 left out). */
  rates: z.array(ExchangeRate),
  /** Every currency of the month (purchase or customer) and its rate; null: no rate. */
  currencies: z.array(z.object({ currency: z.string(), rate: Decimal.nullable() })),
  pairs: z.array(ConvertedPair),
  /** The exact sum of the converted pairs; null without a reference currency. */
  converted: z
    .object({
      cost: Decimal,
      sales: Decimal,
      margin: Decimal,
      marginPercent: Decimal.nullable(),
      pairsIncluded: z.number().int(),
      pairsLeftOut: z.number().int(),
    })
    .nullable(),
  /** Currencies of the month without a rate: the pairs that use them are left out of the converted total. */
  missing: z.array(z.string()),
});
export type RatesView = z.infer<typeof RatesView>;

/** The steps a month's close takes, in order; each done automatically where Closebook sees it happen. */
export const CHECKLIST_STEPS = ['consumption', 'fetched', 'reviewed', 'rates', 'prepared', 'approved', 'exported'] as const;
export const ChecklistStepId = z.enum(CHECKLIST_STEPS);
export type ChecklistStepId = z.infer<typeof ChecklistStepId>;

/**
 * The team's close calendar: each step's due business day of the month after the period (1 = its first working day),
 * and the holidays that are not working days (weekends never are). Kept in the team ledger when one is connected.
 */
export const CloseCalendar = z.object({
  dueBusinessDay: z.object(
    Object.fromEntries(
      CHECKLIST_STEPS.map((step) => [step, z.number().int().min(1, 'is at least business day 1').max(23, 'is at most business day 23')]),
    ) as Record<ChecklistStepId, z.ZodNumber>,
  ),
  holidays: z.array(IsoDate).max(400),
});
export type CloseCalendar = z.infer<typeof CloseCalendar>;

export const DEFAULT_CALENDAR: CloseCalendar = {
  dueBusinessDay: { consumption: 3, fetched: 8, reviewed: 9, rates: 9, prepared: 10, approved: 11, exported: 12 },
  holidays: [],
};

export const ChecklistStep = z.object({
  id: ChecklistStepId,
  label: z.string(),
  /** The due date: the step's business day of the month after the period. */
  due: IsoDate,
  /** Who did it (null where Closebook cannot tell, e.g. a fetch made before the team ledger) and when. */
  done: z.object({ by: z.string().nullable(), at: z.string().nullable() }).nullable(),
  /** Not done and past its due date: by how many days. */
  overdueDays: z.number().int().nonnegative(),
});
export type ChecklistStep = z.infer<typeof ChecklistStep>;

export const Checklist = z.object({ reportId: z.string(), today: IsoDate, calendar: CloseCalendar, steps: z.array(ChecklistStep) });
export type Checklist = z.infer<typeof Checklist>;
