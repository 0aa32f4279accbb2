import { organizationTreeKey, treeKey } from '@shared/model/tree-keys';
import { type Money, money } from '@shared/money';
import { type BillingException as SharedException, type CheckThresholds, type Severity, SEVERITY_RANK } from '@shared/schemas/month-close';
import { organizationKey } from '@shared/model/organization-key';
import type { Submission, SubmissionSummary } from '@shared/schemas/consumption';
import type { Ledger } from '../ledger/ledger';
import { keptNameOrder } from '../ledger/name-ranks';
import { collationOf } from '@shared/model/name-order';
import { type MonthChange, ruleChangesBetween } from './month-compare';
import { currenciesOf } from '@shared/model/currency-pair';
import { roundToMinorUnit } from '@shared/currency';
import {
  billedOnceRows,
  duplicateLineRows,
  marginOutlierRows,
  mismatchedLineRows,
  noCustomerNumberRows,
  reportRow,
  type ReportRow,
  statedTotalRows,
  subscriptionSumRows,
} from './queries/checks';

export type { CheckThresholds, Severity } from '@shared/schemas/month-close';

/** The checks a careful accountant runs before invoicing, each with what it means in plain words. */
export const RULES = {
  'negative-margin': { severity: 'high', title: 'Sold below cost', explanation: 'The sales of a subscription are less than what it cost this month.' },
  unbilled: { severity: 'high', title: 'Cost with no sales', explanation: 'The Broker paid for a subscription that is not billed to the customer.' },
  'sales-without-cost': {
    severity: 'medium',
    title: 'Sales with no cost',
    explanation: 'A subscription is billed to the customer but cost nothing: a missing vendor charge, or a price set by hand.',
  },
  'margin-outlier': {
    severity: 'medium',
    title: 'Margin far from usual',
    explanation:
      "The margin % of a customer's service is far from that service's usual margin this month (the median over at least 5 organizations, per currency).",
  },
  'unit-price-changed': { severity: 'low', title: 'Unit price changed', explanation: 'A product costs or sells at another unit price than last month.' },
  'quantity-jump': { severity: 'medium', title: 'Quantity jump', explanation: 'A product’s quantity rose more than the threshold since last month.' },
  'missing-subscription': {
    severity: 'medium',
    title: 'Billed last month, missing now',
    explanation: 'A subscription (or a whole service or customer) billed last month has no billing lines this month.',
  },
  'stated-total-differs': {
    severity: 'medium',
    title: 'Stated total differs',
    explanation: 'A total the service states differs from the exact sum of the lines below it; Closebook uses the sum of the lines.',
  },
  'line-total-mismatch': {
    severity: 'high',
    title: 'Line total ≠ quantity × unit price',
    explanation: 'A billing line’s total is not its quantity times its unit price (half a unit in the total’s last decimal place is allowed).',
  },
  'missing-customer-number': {
    severity: 'high',
    title: 'No customer number',
    explanation: 'The organization has no customer number, so its invoice cannot be matched to the ERP.',
  },
  'duplicate-line': {
    severity: 'low',
    title: 'The same billing line twice',
    explanation: 'Two billing lines are identical in every field (same subscription, product, quantity, prices, totals, details and billing date).',
  },
  'consumption-differs': {
    severity: 'medium',
    title: 'Billed quantity ≠ submitted consumption',
    explanation:
      'A metered subscription is billed for another quantity than the consumption Closebook submitted for this period (Successful batches given this period, records without add-ons, subscriptions billed on exactly one line).',
  },
} as const satisfies Record<string, { severity: Severity; title: string; explanation: string }>;
export type RuleId = keyof typeof RULES;

/** The thresholds a profile starts with. */
export const DEFAULT_THRESHOLDS: CheckThresholds = { marginDeviationPoints: 20, quantityJumpPercent: 50 };

/** An exception as the checks find it (its review is joined on by the month's close). */
export type BillingException = Omit<SharedException, 'review'> & { rule: RuleId };

/**
 * What an exception is about, as the checks' queries name it (queries/checks.ts) or a change since last month does:
 * what a rule does not know (a product, a line) is left out.
 */
interface Subject {
  organization: string;
  org_id: string;
  customer_number: string;
  org_key: string;
  service?: string | null;
  service_id?: string | null;
  service_no?: number | null;
  subscription?: string | null;
  subscription_id?: string | null;
  subscription_no?: number | null;
  product?: string | null;
  product_id?: string | null;
  line_no?: number | null;
  currency_key?: string | null;
}

/** An amount in an exception's words, to its currency's minor unit (JPY 0 places, KWD 3). */
const amount = (value: Money | string, currency: string) => `${roundToMinorUnit(value.toString(), currency)} ${currency}`;

/** A margin % to one place in an exception's words; a margin just below zero reads "0.0", never "-0.0". */
export function marginPointsText(percent: number): string {
  const text = percent.toFixed(1);
  return text === '-0.0' ? '0.0' : text;
}

/** Exact decimal text in one form ("1.50" and "1.5" are one figure), for an exception's evidence. */
const figure = (value: Money | string | number) => money(value).toFixed();

/** The figures an exception is raised on, by name: null and undefined figures are left out. */
function evidenceOf(figures: Record<string, Money | string | number | null | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(figures).flatMap(([name, value]) => (value === null || value === undefined ? [] : [[name, figure(value)]])));
}

function exceptionOf(
  rule: RuleId,
  subject: Subject,
  keys: string[],
  message: string,
  evidence: Record<string, string>,
  extra: Partial<BillingException> = {},
): BillingException {
  const known = <T>(value: T | null | undefined): value is T => value !== null && value !== undefined;
  // Where the exception is in the report's tree: its organization in its currency pair, then as deep as it is known.
  const path = [organizationTreeKey(subject.org_key, subject.currency_key ?? '')];
  if (known(subject.service_no)) path.push(treeKey('service', subject.service_no));
  if (known(subject.subscription_no)) path.push(treeKey('subscription', subject.subscription_no));
  if (known(subject.line_no)) path.push(treeKey('line', subject.line_no));
  return {
    id: [rule, ...keys].join('|'),
    rule,
    severity: RULES[rule].severity,
    title: RULES[rule].title,
    explanation: RULES[rule].explanation,
    message,
    organization: subject.organization,
    orgId: subject.org_id,
    customerNumber: subject.customer_number,
    service: subject.service ?? null,
    serviceId: subject.service_id ?? null,
    subscription: subject.subscription ?? null,
    subscriptionId: subject.subscription_id ?? null,
    product: subject.product ?? null,
    productId: subject.product_id ?? null,
    currencyKey: subject.currency_key ?? null,
    path: known(subject.currency_key) ? path : [],
    evidence,
    ...extra,
  };
}

/** Subscription-level rules: below cost, cost with no sales, sales with no cost. */
async function subscriptionRules(ledger: Ledger, reportId: string): Promise<BillingException[]> {
  return (await subscriptionSumRows(ledger, reportId)).map((row) => {
    const rule = row.rule as RuleId;
    const cost = amount(row.cost, row.currency);
    const sales = amount(row.sales, row.customer_currency);
    const message =
      rule === 'negative-margin'
        ? `Sold below cost: sales ${sales}, cost ${cost} (margin ${amount(money(row.sales).minus(row.cost), row.currency)}).`
        : rule === 'unbilled'
          ? `Cost ${cost} and no sales: check that the customer is billed for it.`
          : `Sales ${sales} and no cost: check the vendor charge or the price.`;
    return exceptionOf(rule, row, [row.org_key, row.subscription_id, row.currency_key], message, evidenceOf({ cost: row.cost, sales: row.sales }));
  });
}

/** A customer's margin % on a service far from the service's median margin % this month, in that currency. */
async function marginOutliers(ledger: Ledger, reportId: string, thresholds: CheckThresholds): Promise<BillingException[]> {
  return (await marginOutlierRows(ledger, reportId, thresholds.marginDeviationPoints)).map((row) =>
    exceptionOf(
      'margin-outlier',
      row,
      [row.org_key, row.service, row.currency_key],
      `Margin ${marginPointsText(row.percent)} % on ${row.service}, where its usual margin this month is ${marginPointsText(row.median)} % (median of ${row.organizations} organizations in ${row.currency_key}).`,
      { marginPercent: marginPointsText(row.percent) },
    ),
  );
}

/** Stated service and subscription totals that differ from the exact sum of the level below. */
async function statedTotals(ledger: Ledger, reportId: string): Promise<BillingException[]> {
  return (await statedTotalRows(ledger, reportId)).map((row) => {
    const { cost, sales } = currenciesOf(row.currency_key);
    const parts = [
      money(row.stated_cost).eq(row.summed_cost) ? null : `cost stated ${amount(row.stated_cost, cost)}, lines sum to ${amount(row.summed_cost, cost)}`,
      money(row.stated).eq(row.summed) ? null : `sales stated ${amount(row.stated, sales ?? cost)}, lines sum to ${amount(row.summed, sales ?? cost)}`,
    ].filter(Boolean);
    const what = row.level === 'service' ? `The service ${row.service}` : `The subscription ${row.subscription}`;
    const keys = [row.org_key, row.service_id, row.subscription_id ?? '', row.currency_key];
    const evidence = evidenceOf({ statedCost: row.stated_cost, summedCost: row.summed_cost, statedSales: row.stated, summedSales: row.summed });
    return exceptionOf('stated-total-differs', row, keys, `${what}: ${parts.join('; ')}.`, evidence);
  });
}

/** Line-level rules: a total that is not quantity × unit price, and lines identical in every field. */
async function lineRules(ledger: Ledger, reportId: string): Promise<BillingException[]> {
  const mismatched = await mismatchedLineRows(ledger, reportId);
  const duplicates = await duplicateLineRows(ledger, reportId);
  return [
    ...mismatched.map((row) => {
      const [field, total, unit, currency] = row.sales_off
        ? ['sales', row.sales, row.unit_price, row.customer_currency]
        : ['cost', row.cost, row.unit_cost, row.currency];
      const exact = money(row.quantity).times(unit);
      return exceptionOf(
        'line-total-mismatch',
        row,
        [row.org_key, row.subscription_id, row.product_id, `${row.line_no}`],
        `${row.product}: ${money(row.quantity).toFixed()} × ${money(unit).toFixed()} = ${exact.toFixed()} ${currency}, but the line's ${field} total is ${money(total).toFixed()} ${currency}.`,
        evidenceOf({ quantity: row.quantity, [`${field}PerUnit`]: unit, [`${field}Total`]: total }),
      );
    }),
    ...duplicates.map((row) =>
      exceptionOf(
        'duplicate-line',
        row,
        [row.org_key, row.subscription_id, row.product_id, row.sales],
        `${row.product} is billed ${row.copies} times with identical fields (${amount(row.sales, row.customer_currency)} each).`,
        evidenceOf({ copies: row.copies, sales: row.sales }),
      ),
    ),
  ];
}

async function customerNumbers(ledger: Ledger, reportId: string): Promise<BillingException[]> {
  return (await noCustomerNumberRows(ledger, reportId)).map((row) =>
    exceptionOf('missing-customer-number', row, [row.org_key], `${row.organization} has no customer number: its invoice cannot be matched to the ERP.`, {}),
  );
}

/** The consumption history (the consumption module's tasks): its index, and one submission whole. */
export interface ConsumptionHistory {
  history(): Promise<SubmissionSummary[]>;
  get(id: string): Promise<Submission>;
}

/** The batches the consumption rule counts: Successful ones the user gave a period of usage. */
async function countedBatches(consumption: ConsumptionHistory): Promise<(SubmissionSummary & { period: NonNullable<SubmissionSummary['period']> })[]> {
  return (await consumption.history()).flatMap((batch) => (batch.state === 'Successful' && batch.period ? [{ ...batch, period: batch.period }] : []));
}

/** Changes when a counted batch is added or changes: part of the key the checks of a month are kept under. */
export async function consumptionVersion(consumption: ConsumptionHistory | null): Promise<string> {
  if (!consumption) return '';
  return (await countedBatches(consumption))
    .map((batch) => `${batch.id}@${batch.updatedAt}`)
    .sort()
    .join(',');
}

/**
 * A counted batch is the report's when it went to the report's service — this workstation's by the profile, a
 * colleague's (from the team ledger) by the service's host and reseller — for a period within the report's.
 */
function batchOfReport(batch: SubmissionSummary & { period: NonNullable<SubmissionSummary['period']> }, report: ReportRow): boolean {
  const ours = batch.service ? batch.service.host === report.host && batch.service.resellerId === report.reseller_id : batch.profileId === report.profile_id;
  return ours && batch.period.startDate >= report.period_start && batch.period.endDate <= report.period_end;
}

/** The newest Successful batch the consumption rule would count for a report (its profile, within its period), or null. */
export async function lastCountedBatch(ledger: Ledger, reportId: string, consumption: ConsumptionHistory | null): Promise<{ at: string } | null> {
  const report = await reportRow(ledger, reportId);
  if (!report || !consumption) return null;
  const batches = (await countedBatches(consumption))
    .filter((batch) => batchOfReport(batch, report))
    .map((batch) => batch.updatedAt)
    .sort();
  return batches.length ? { at: batches.at(-1) as string } : null;
}

/**
 * Metered subscriptions billed for another quantity than Closebook submitted for the month: Successful batches of
 * the report's profile whose period lies within the report's, their records without add-ons summed per
 * subscription, against subscriptions billed on exactly one line. What cannot be matched that way (add-on records,
 * a record that updates an earlier one by its consumption id, a subscription on several lines or none) is not
 * reported: it is not a difference Closebook can show.
 */
async function consumptionDiffers(ledger: Ledger, reportId: string, consumption: ConsumptionHistory): Promise<BillingException[]> {
  const report = await reportRow(ledger, reportId);
  if (!report) return [];
  const batches = (await countedBatches(consumption)).filter((batch) => batchOfReport(batch, report));
  const submitted = new Map<string, { quantity: Money; files: Set<string>; updates: boolean }>();
  for (const batch of batches) {
    for (const record of (await consumption.get(batch.id)).records) {
      if (record.isAddon) continue;
      const key = record.subscriptionId.trim().toLowerCase();
      const sum = submitted.get(key) ?? { quantity: money(0), files: new Set<string>(), updates: false };
      sum.quantity = sum.quantity.plus(String(record.quantity));
      sum.files.add(batch.fileName);
      sum.updates ||= Boolean(record.consumptionId);
      submitted.set(key, sum);
    }
  }
  const matchable = [...submitted].filter(([, sum]) => !sum.updates).map(([id]) => id);
  if (matchable.length === 0) return [];
  const rows = await billedOnceRows(ledger, reportId, matchable);
  const period = `${report.period_start} – ${report.period_end}`;
  return rows.flatMap((row) => {
    const sum = submitted.get(row.subscription_id.toLowerCase());
    const billed = money(row.quantity);
    if (!sum || billed.eq(sum.quantity)) return [];
    const files = [...sum.files];
    return [
      exceptionOf(
        'consumption-differs',
        row,
        [row.org_key, row.subscription_id],
        `${row.product}: billed quantity ${billed.toFixed()}, but Closebook submitted ${sum.quantity.toFixed()} for ${period} (${files.length === 1 ? 'batch' : 'batches'} ${files.join(', ')}).`,
        evidenceOf({ billedQuantity: billed, submittedQuantity: sum.quantity }),
      ),
    ];
  });
}

/** Rules against last month (over the changes that may break one): unit price changes, quantity jumps, and what was billed then and is missing now. */
function monthRules(changes: MonthChange[], thresholds: CheckThresholds): BillingException[] {
  const found: BillingException[] = [];
  for (const change of changes) {
    const subject: Subject = {
      organization: change.organization,
      org_id: change.orgId,
      customer_number: change.customerNumber,
      org_key: organizationKey(change),
      service: change.service || null,
      service_id: change.serviceId,
      subscription: change.subscription,
      subscription_id: change.subscriptionId,
      product: change.product,
      product_id: change.productId,
      currency_key: change.currencyKey,
    };
    const keys = [subject.org_key, change.serviceId ?? '', change.subscriptionId ?? '', change.productId ?? '', change.currencyKey];
    const { cost: costCurrency, sales: salesCurrency } = currenciesOf(change.currencyKey);
    if (change.kind === 'lost') {
      const what =
        change.level === 'organization'
          ? `${change.organization} (the whole customer)`
          : change.level === 'service'
            ? `the service ${change.service}`
            : `the subscription ${change.subscription ?? change.product ?? ''}`;
      found.push(
        exceptionOf(
          'missing-subscription',
          subject,
          keys,
          `Billed last month and missing now: ${what}, ${amount(change.before?.sales ?? '0', salesCurrency)} last month.`,
          evidenceOf({ costLastMonth: change.before?.cost, salesLastMonth: change.before?.sales }),
          { path: [] },
        ),
      );
    }
    if (!change.before || !change.after) continue;
    if (change.before.unitPrice !== change.after.unitPrice || change.before.unitCost !== change.after.unitCost) {
      const moved = [
        change.before.unitCost !== change.after.unitCost
          ? `cost per unit ${change.before.unitCost ?? 'mixed'} → ${change.after.unitCost ?? 'mixed'} ${costCurrency}`
          : null,
        change.before.unitPrice !== change.after.unitPrice
          ? `price per unit ${change.before.unitPrice ?? 'mixed'} → ${change.after.unitPrice ?? 'mixed'} ${salesCurrency}`
          : null,
      ].filter(Boolean);
      const evidence = evidenceOf({
        unitCostBefore: change.before.unitCost,
        unitCostAfter: change.after.unitCost,
        unitPriceBefore: change.before.unitPrice,
        unitPriceAfter: change.after.unitPrice,
      });
      found.push(exceptionOf('unit-price-changed', subject, keys, `${change.product ?? ''}: ${moved.join('; ')} since last month.`, evidence, { path: [] }));
    }
    const before = money(change.before.quantity);
    const after = money(change.after.quantity);
    if (before.gt(0) && after.gt(before.times(1 + thresholds.quantityJumpPercent / 100))) {
      found.push(
        exceptionOf(
          'quantity-jump',
          subject,
          keys,
          `${change.product ?? ''}: quantity ${before.toFixed()} → ${after.toFixed()} (+${after.minus(before).dividedBy(before).times(100).toFixed(0)} %) since last month.`,
          evidenceOf({ quantityBefore: before, quantityAfter: after }),
          { path: [] },
        ),
      );
    }
  }
  return found;
}

/**
 * Every check over one saved month (and, where a rule needs it, the month before), exceptions first: high before
 * medium before low, then by organization in the month's name order (its profile's, ledger/name-ranks.ts).
 */
export async function runBillingChecks(
  ledger: Ledger,
  reportId: string,
  previousId: string | null,
  thresholds: CheckThresholds = DEFAULT_THRESHOLDS,
  consumption: ConsumptionHistory | null = null,
): Promise<BillingException[]> {
  const found = [
    ...(await customerNumbers(ledger, reportId)),
    ...(await subscriptionRules(ledger, reportId)),
    ...(await lineRules(ledger, reportId)),
    ...(await statedTotals(ledger, reportId)),
    ...(await marginOutliers(ledger, reportId, thresholds)),
    ...(previousId ? monthRules(await ruleChangesBetween(ledger, previousId, reportId, thresholds.quantityJumpPercent), thresholds) : []),
    ...(consumption ? await consumptionDiffers(ledger, reportId, consumption) : []),
  ];
  const names = new Intl.Collator(collationOf(await keptNameOrder(ledger, reportId)));
  return found.sort(
    (a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || names.compare(a.organization, b.organization) || a.id.localeCompare(b.id),
  );
}
