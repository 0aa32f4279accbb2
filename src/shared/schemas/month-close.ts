import { z } from 'zod';
import { ReportPeriod } from './billing-report';

/** Closing a month: compare, billing checks, review, sign-off, trends and rates — as the renderer and the CLI see them. */

const Decimal = z.string();

export const Severity = z.enum(['high', 'medium', 'low']);
export type Severity = z.infer<typeof Severity>;

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

export const MonthChange = z.object({
  kind: z.enum(['new', 'lost', 'quantity', 'price', 'amount']),
  level: z.enum(['organization', 'service', 'subscription', 'line']),
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

export const CurrencyBridge = z.object({ currencyKey: z.string(), salesBefore: Decimal, salesAfter: Decimal, change: Decimal, effects: SalesEffects });
export type CurrencyBridge = z.infer<typeof CurrencyBridge>;

/** At most this many changes cross IPC; the workbook and the CLI's JSON have them all. */
export const MAX_CHANGES_SHOWN = 20_000;

export const MonthComparison = z.object({
  beforeId: z.string(),
  afterId: z.string(),
  bridges: z.array(CurrencyBridge),
  changes: z.array(MonthChange),
  /** How many changes there are in all (more than `changes` holds when it was cut at MAX_CHANGES_SHOWN). */
  changeCount: z.number().int().nonnegative(),
});
export type MonthComparison = z.infer<typeof MonthComparison>;

export const Review = z.object({ exceptionId: z.string(), state: ReviewState, note: z.string(), reviewedBy: z.string(), reviewedAt: z.string() });
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
  review: Review.nullable(),
});
export type BillingException = z.infer<typeof BillingException>;

export const SignOff = z.object({ reportId: z.string(), contentHash: z.string(), signedBy: z.string(), osUser: z.string(), signedAt: z.string() });
export type SignOff = z.infer<typeof SignOff>;

export const MonthCloseView = z.object({
  reportId: z.string(),
  previousReportId: z.string().nullable(),
  thresholds: CheckThresholds,
  exceptions: z.array(BillingException),
  open: z.object({ high: z.number().int(), medium: z.number().int(), low: z.number().int() }),
  signOff: SignOff.nullable(),
  /** The month was signed off on another fetch of it: what the service changed since. */
  restatement: z.object({ signedReportId: z.string(), hashChanged: z.boolean(), changes: z.array(MonthChange), bridges: z.array(CurrencyBridge) }).nullable(),
  /** This report is not the newest fetch of its month. */
  superseded: z.boolean(),
});
export type MonthCloseView = z.infer<typeof MonthCloseView>;

/** A saved month of the same service and reseller as a report (the newest fetch of each period). */
export const MonthSummary = z.object({ reportId: z.string(), name: z.string(), period: ReportPeriod, fetchedAt: z.string(), signedOff: z.boolean() });
export type MonthSummary = z.infer<typeof MonthSummary>;
