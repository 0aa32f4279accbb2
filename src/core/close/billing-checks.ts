import { type Money, money } from '@shared/money';
import type { BillingException as SharedException, CheckThresholds, Severity } from '@shared/schemas/month-close';
import type { Submission, SubmissionSummary } from '@shared/schemas/consumption';
import type { Ledger, LedgerRow } from '../ledger/ledger';
import { CURRENCY_KEY, currencyPairSql, ORG_KEY } from '../ledger/keys';
import { type ComparisonOf, compareMonths, type MonthChange } from './month-compare';
import { currenciesOf } from '@shared/model/currency-pair';
import { roundToMinorUnit } from '@shared/currency';

export type { CheckThresholds, Severity } from '@shared/schemas/month-close';

/** The checks a careful accountant runs before invoicing, each with what it means in plain words. */
export const RULES = {
  'negative-margin': { severity: 'high', title: 'Sold below cost', explanation: 'The sales of a subscription are less than what it cost this month.' },
  unbilled: { severity: 'high', title: 'Cost with no sales', explanation: 'The Broker paid for a subscription that is not billed to the customer.' },
  'sales-without-cost': { severity: 'medium', title: 'Sales with no cost', explanation: 'A subscription is billed to the customer but cost nothing: a missing vendor charge, or a price set by hand.' },
  'margin-outlier': {
    severity: 'medium',
    title: 'Margin far from usual',
    explanation: "The margin % of a customer's service is far from that service's usual margin this month (the median over at least 5 organizations, per currency).",
  },
  'unit-price-changed': { severity: 'low', title: 'Unit price changed', explanation: 'A product costs or sells at another unit price than last month.' },
  'quantity-jump': { severity: 'medium', title: 'Quantity jump', explanation: 'A product’s quantity rose more than the threshold since last month.' },
  'missing-subscription': { severity: 'medium', title: 'Billed last month, missing now', explanation: 'A subscription (or a whole service or customer) billed last month has no billing lines this month.' },
  'stated-total-differs': { severity: 'medium', title: 'Stated total differs', explanation: 'A total the service states differs from the exact sum of the lines below it; Closebook uses the sum of the lines.' },
  'line-total-mismatch': { severity: 'high', title: 'Line total ≠ quantity × unit price', explanation: 'A billing line’s total is not its quantity times its unit price (half a unit in the total’s last decimal place is allowed).' },
  'missing-customer-number': { severity: 'high', title: 'No customer number', explanation: 'The organization has no customer number, so its invoice cannot be matched to the ERP.' },
  'duplicate-line': { severity: 'low', title: 'The same billing line twice', explanation: 'Two billing lines are identical in every field (same subscription, product, quantity, prices, totals, details and billing date).' },
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

const SUBSCRIPTION_NAMES = `
  o.name AS organization, o.org_id, o.customer_number, ${ORG_KEY} AS org_key, s.service_name AS service, s.service_id, s.service_no,
  u.item_name AS subscription, u.subscription_id, u.subscription_no`;
const SUBSCRIPTION_JOINS = `
  JOIN organizations o ON o.report_id = $1 AND o.org_no = a.org_no
  JOIN services s ON s.report_id = $1 AND s.service_no = a.service_no
  JOIN subscriptions u ON u.report_id = $1 AND u.subscription_no = a.subscription_no`;

/** What each subscription of the report cost and sold, per currency pair. */
const PER_SUBSCRIPTION = `
  SELECT l.subscription_no, l.service_no, l.org_no, l.currency, l.customer_currency, ${CURRENCY_KEY} AS currency_key,
    sum(l.cost) AS cost, sum(l.sales) AS sales
  FROM billing_lines l WHERE l.report_id = $1 GROUP BY ALL`;


/** An amount in an exception's words, to its currency's minor unit (JPY 0 places, KWD 3). */
const amount = (value: unknown, currency: unknown) => `${roundToMinorUnit(String(value), String(currency))} ${String(currency)}`;

function exceptionOf(rule: RuleId, row: LedgerRow, keys: string[], message: string, extra: Partial<BillingException> = {}): BillingException {
  const text = (value: unknown) => (value === null || value === undefined ? null : String(value));
  const orgRow = `o:${String(row.org_key)}|${String(row.currency_key ?? '')}`;
  const path = [orgRow];
  if (row.service_no !== undefined && row.service_no !== null) path.push(`s:${String(row.service_no)}`);
  if (row.subscription_no !== undefined && row.subscription_no !== null) path.push(`u:${String(row.subscription_no)}`);
  if (row.line_no !== undefined && row.line_no !== null) path.push(`l:${String(row.line_no)}`);
  return {
    id: [rule, ...keys].join('|'),
    rule,
    severity: RULES[rule].severity,
    title: RULES[rule].title,
    explanation: RULES[rule].explanation,
    message,
    organization: String(row.organization ?? ''),
    orgId: String(row.org_id ?? ''),
    customerNumber: String(row.customer_number ?? ''),
    service: text(row.service),
    serviceId: text(row.service_id),
    subscription: text(row.subscription),
    subscriptionId: text(row.subscription_id),
    product: text(row.product),
    productId: text(row.product_id),
    currencyKey: text(row.currency_key),
    path: row.currency_key === undefined || row.currency_key === null ? [] : path,
    ...extra,
  };
}

/** Subscription-level rules: below cost, cost with no sales, sales with no cost. */
async function subscriptionRules(ledger: Ledger, reportId: string): Promise<BillingException[]> {
  const rows = await ledger.all(
    `SELECT a.currency, a.customer_currency, a.currency_key, a.cost::VARCHAR AS cost, a.sales::VARCHAR AS sales,
       CASE WHEN a.cost <> 0 AND a.sales = 0 THEN 'unbilled'
            WHEN a.sales <> 0 AND a.cost = 0 THEN 'sales-without-cost'
            ELSE 'negative-margin' END AS rule,
       ${SUBSCRIPTION_NAMES}
     FROM (${PER_SUBSCRIPTION}) a ${SUBSCRIPTION_JOINS}
     WHERE (a.currency = a.customer_currency AND a.sales < a.cost) OR (a.cost <> 0 AND a.sales = 0) OR (a.sales <> 0 AND a.cost = 0)
     ORDER BY lower(o.name), org_key, lower(s.service_name), u.subscription_id`,
    [reportId],
  );
  return rows.map((row) => {
    const rule = String(row.rule) as RuleId;
    const keys = [String(row.org_key), String(row.subscription_id), String(row.currency_key)];
    const cost = amount(row.cost, row.currency);
    const sales = amount(row.sales, row.customer_currency);
    const message =
      rule === 'negative-margin'
        ? `Sold below cost: sales ${sales}, cost ${cost} (margin ${amount(money(String(row.sales)).minus(String(row.cost)), row.currency)}).`
        : rule === 'unbilled'
          ? `Cost ${cost} and no sales: check that the customer is billed for it.`
          : `Sales ${sales} and no cost: check the vendor charge or the price.`;
    return exceptionOf(rule, row, keys, message);
  });
}

/** A customer's margin % on a service far from the service's median margin % this month, in that currency. */
async function marginOutliers(ledger: Ledger, reportId: string, thresholds: CheckThresholds): Promise<BillingException[]> {
  const rows = await ledger.all(
    `WITH per_org AS (
       SELECT ${ORG_KEY} AS org_key, any_value(o.name) AS organization, any_value(o.org_id) AS org_id, any_value(o.customer_number) AS customer_number,
         s.service_name AS service, any_value(s.service_id) AS service_id, min(s.service_no) AS service_no, l.currency AS currency_key,
         sum(l.cost) AS cost, sum(l.sales) AS sales
       FROM billing_lines l
       JOIN organizations o ON o.report_id = l.report_id AND o.org_no = l.org_no
       JOIN services s ON s.report_id = l.report_id AND s.service_no = l.service_no
       WHERE l.report_id = $1 AND l.currency = l.customer_currency
       GROUP BY org_key, s.service_name, l.currency HAVING sum(l.sales) > 0),
     rated AS (SELECT *, (sales - cost) * 100.0 / sales AS margin_percent FROM per_org),
     usual AS (SELECT service, currency_key, median(margin_percent) AS median, count(*) AS organizations FROM rated GROUP BY ALL HAVING count(*) >= 5)
     SELECT r.*, r.cost::VARCHAR AS cost_text, r.sales::VARCHAR AS sales_text, r.margin_percent::DOUBLE AS percent, u.median::DOUBLE AS median, u.organizations
     FROM rated r JOIN usual u USING (service, currency_key)
     WHERE abs(r.margin_percent - u.median) > $2
     ORDER BY lower(r.organization), r.org_key, lower(r.service)`,
    [reportId, thresholds.marginDeviationPoints],
  );
  return rows.map((row) =>
    exceptionOf(
      'margin-outlier',
      row,
      [String(row.org_key), String(row.service), String(row.currency_key)],
      `Margin ${Number(row.percent).toFixed(1)} % on ${String(row.service)}, where its usual margin this month is ${Number(row.median).toFixed(1)} % (median of ${String(row.organizations)} organizations in ${String(row.currency_key)}).`,
    ),
  );
}

/**
 * Stated service and subscription totals that differ from the exact sum of the level below. The sums are taken on
 * the numbers of services and subscriptions alone, and only those that differ are named: grouping a million lines
 * with their names does not fit the ledger's memory.
 */
async function statedTotals(ledger: Ledger, reportId: string): Promise<BillingException[]> {
  const rows = await ledger.all(
    `WITH service_sums AS (
       SELECT s.service_no, coalesce(sum(u.stated_sales), 0) AS summed, coalesce(sum(u.stated_cost), 0) AS summed_cost
       FROM services s LEFT JOIN subscriptions u ON u.report_id = $1 AND u.service_no = s.service_no
       WHERE s.report_id = $1 GROUP BY s.service_no),
     line_sums AS (
       SELECT l.subscription_no, sum(l.sales) AS summed, sum(l.cost) AS summed_cost, min(${currencyPairSql('l')}) AS currency_key
       FROM billing_lines l WHERE l.report_id = $1 GROUP BY l.subscription_no)
     SELECT * FROM (
       SELECT 'service' AS level, s.stated_sales::VARCHAR AS stated, t.summed::VARCHAR AS summed,
         s.stated_cost::VARCHAR AS stated_cost, t.summed_cost::VARCHAR AS summed_cost,
         o.name AS organization, o.org_id, o.customer_number, ${ORG_KEY} AS org_key,
         s.service_name AS service, s.service_id, s.service_no, NULL AS subscription, NULL AS subscription_id, NULL AS subscription_no,
         ${currencyPairSql('s')} AS currency_key
       FROM service_sums t JOIN services s ON s.report_id = $1 AND s.service_no = t.service_no
       JOIN organizations o ON o.report_id = $1 AND o.org_no = s.org_no
       WHERE s.stated_cost <> t.summed_cost OR s.stated_sales <> t.summed
       UNION ALL
       SELECT 'subscription', u.stated_sales::VARCHAR, t.summed::VARCHAR, u.stated_cost::VARCHAR, t.summed_cost::VARCHAR,
         o.name, o.org_id, o.customer_number, ${ORG_KEY},
         s.service_name, s.service_id, s.service_no, u.item_name, u.subscription_id, u.subscription_no,
         t.currency_key
       FROM line_sums t JOIN subscriptions u ON u.report_id = $1 AND u.subscription_no = t.subscription_no
       JOIN organizations o ON o.report_id = $1 AND o.org_no = u.org_no
       JOIN services s ON s.report_id = $1 AND s.service_no = u.service_no
       WHERE u.stated_cost <> t.summed_cost OR u.stated_sales <> t.summed)
     ORDER BY lower(organization), org_key, lower(service), subscription_id NULLS FIRST`,
    [reportId],
  );
  return rows.map((row) => {
    const { cost, sales } = currenciesOf(String(row.currency_key));
    const parts = [
      money(String(row.stated_cost)).eq(String(row.summed_cost)) ? null : `cost stated ${amount(row.stated_cost, cost)}, lines sum to ${amount(row.summed_cost, cost)}`,
      money(String(row.stated)).eq(String(row.summed)) ? null : `sales stated ${amount(row.stated, sales ?? cost)}, lines sum to ${amount(row.summed, sales ?? cost)}`,
    ].filter(Boolean);
    const what = row.level === 'service' ? `The service ${String(row.service)}` : `The subscription ${String(row.subscription)}`;
    const keys = [String(row.org_key), String(row.service_id), String(row.subscription_id ?? ''), String(row.currency_key)];
    return exceptionOf('stated-total-differs', row, keys, `${what}: ${parts.join('; ')}.`);
  });
}

/**
 * Half a unit in the last decimal place the total has (at least the cent): a total the service rounded to 4
 * places may be off its exact product by 0.00005, a cent-rounded one by 0.005.
 */
const TOLERANCE = (column: string) =>
  `CASE WHEN ${column} * 100 = trunc(${column} * 100) THEN 0.005 WHEN ${column} * 1000 = trunc(${column} * 1000) THEN 0.0005
        WHEN ${column} * 10000 = trunc(${column} * 10000) THEN 0.00005 WHEN ${column} * 100000 = trunc(${column} * 100000) THEN 0.000005 ELSE 0.0000005 END`;

/** What makes two billing lines the same line: every field, the subscription they are on, and the billing date. */
const LINE_FIELDS = `${ORG_KEY}, s.service_id, u.subscription_id, a.product_id, a.product_name, a.item_code, a.quantity, a.cost_per_unit, a.sales_per_unit,
  a.cost, a.sales, a.item_details, a.currency, a.customer_currency, e.billing_date`;

/**
 * The lines that may have a twin: those whose fields hash alike. Grouping a million lines on a hash, not on their
 * text, keeps the duplicate check within the ledger's memory; a hash that two different lines share only adds
 * candidates, which the exact grouping on LINE_FIELDS then tells apart.
 */
const REPEATED_FIELDS = `
  WITH hashed AS (
    SELECT a.line_no, hash(${LINE_FIELDS}) AS fields
    FROM billing_lines a ${SUBSCRIPTION_JOINS}
    LEFT JOIN billing_entries e ON e.report_id = $1 AND e.entry_no = o.entry_no
    WHERE a.report_id = $1)
  SELECT line_no FROM hashed WHERE fields IN (SELECT fields FROM hashed GROUP BY fields HAVING count(*) > 1)`;

/** Line-level rules: a total that is not quantity × unit price, and lines identical in every field. */
async function lineRules(ledger: Ledger, reportId: string): Promise<BillingException[]> {
  const mismatched = await ledger.all(
    `SELECT a.line_no, a.product_id, a.product_name AS product, a.quantity::VARCHAR AS quantity, a.sales_per_unit::VARCHAR AS unit_price,
       a.cost_per_unit::VARCHAR AS unit_cost, a.sales::VARCHAR AS sales, a.cost::VARCHAR AS cost, a.currency, a.customer_currency,
       ${currencyPairSql('a')} AS currency_key,
       abs(a.quantity::DECIMAL(38, 8) * a.sales_per_unit - a.sales) > ${TOLERANCE('a.sales')} AS sales_off,
       ${SUBSCRIPTION_NAMES}
     FROM billing_lines a ${SUBSCRIPTION_JOINS}
     WHERE a.report_id = $1 AND (abs(a.quantity::DECIMAL(38, 8) * a.sales_per_unit - a.sales) > ${TOLERANCE('a.sales')} OR abs(a.quantity::DECIMAL(38, 8) * a.cost_per_unit - a.cost) > ${TOLERANCE('a.cost')})
     ORDER BY lower(o.name), org_key, a.line_no`,
    [reportId],
  );
  const duplicates = await ledger.all(
    `WITH twice AS (${REPEATED_FIELDS})
     SELECT min(a.line_no) AS line_no, count(*) AS copies, a.product_id, any_value(a.product_name) AS product, a.currency, a.customer_currency,
       any_value(${currencyPairSql('a')}) AS currency_key,
       a.sales::VARCHAR AS sales, any_value(o.name) AS organization, any_value(o.org_id) AS org_id, any_value(o.customer_number) AS customer_number,
       ${ORG_KEY} AS org_key, any_value(s.service_name) AS service, any_value(s.service_id) AS service_id, min(s.service_no) AS service_no,
       any_value(u.item_name) AS subscription, u.subscription_id, min(u.subscription_no) AS subscription_no
     FROM billing_lines a ${SUBSCRIPTION_JOINS}
     LEFT JOIN billing_entries e ON e.report_id = $1 AND e.entry_no = o.entry_no
     WHERE a.report_id = $1 AND a.line_no IN (SELECT line_no FROM twice)
     GROUP BY ${LINE_FIELDS}
     HAVING count(*) > 1
     ORDER BY lower(any_value(o.name)), org_key, line_no`,
    [reportId],
  );
  return [
    ...mismatched.map((row) => {
      const [field, total, unit, currency] = row.sales_off ? ['sales', row.sales, row.unit_price, row.customer_currency] : ['cost', row.cost, row.unit_cost, row.currency];
      const exact = money(String(row.quantity)).times(String(unit));
      return exceptionOf(
        'line-total-mismatch',
        row,
        [String(row.org_key), String(row.subscription_id), String(row.product_id), String(row.line_no)],
        `${String(row.product)}: ${money(String(row.quantity)).toFixed()} × ${money(String(unit)).toFixed()} = ${exact.toFixed()} ${String(currency)}, but the line's ${field} total is ${money(String(total)).toFixed()} ${String(currency)}.`,
      );
    }),
    ...duplicates.map((row) =>
      exceptionOf(
        'duplicate-line',
        row,
        [String(row.org_key), String(row.subscription_id), String(row.product_id), String(row.sales)],
        `${String(row.product)} is billed ${String(row.copies)} times with identical fields (${amount(row.sales, row.customer_currency)} each).`,
      ),
    ),
  ];
}

async function customerNumbers(ledger: Ledger, reportId: string): Promise<BillingException[]> {
  const rows = await ledger.all(
    `SELECT ${ORG_KEY} AS org_key, any_value(o.name) AS organization, any_value(o.org_id) AS org_id, '' AS customer_number
     FROM organizations o WHERE o.report_id = $1 AND trim(o.customer_number) = '' GROUP BY org_key ORDER BY lower(any_value(o.name)), org_key`,
    [reportId],
  );
  return rows.map((row) => exceptionOf('missing-customer-number', row, [String(row.org_key)], `${String(row.organization)} has no customer number: its invoice cannot be matched to the ERP.`));
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
  return (await countedBatches(consumption)).map((batch) => `${batch.id}@${batch.updatedAt}`).sort().join(',');
}

/**
 * Metered subscriptions billed for another quantity than Closebook submitted for the month: Successful batches of
 * the report's profile whose period lies within the report's, their records without add-ons summed per
 * subscription, against subscriptions billed on exactly one line. What cannot be matched that way (add-on records,
 * a record that updates an earlier one by its consumption id, a subscription on several lines or none) is not
 * reported: it is not a difference Closebook can show.
 */
async function consumptionDiffers(ledger: Ledger, reportId: string, consumption: ConsumptionHistory): Promise<BillingException[]> {
  const [report] = await ledger.all('SELECT profile_id, period_start, period_end FROM reports WHERE report_id = $1', [reportId]);
  if (!report) return [];
  const batches = (await countedBatches(consumption)).filter(
    (batch) => batch.profileId === report.profile_id && batch.period.startDate >= String(report.period_start) && batch.period.endDate <= String(report.period_end),
  );
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
  const rows = await ledger.all(
    `WITH single AS (
       SELECT lower(u.subscription_id) AS id FROM billing_lines l JOIN subscriptions u ON u.report_id = l.report_id AND u.subscription_no = l.subscription_no
       WHERE l.report_id = $1 AND list_contains($2, lower(u.subscription_id)) GROUP BY ALL HAVING count(*) = 1)
     SELECT a.line_no, a.product_id, a.product_name AS product, a.quantity::VARCHAR AS quantity, ${currencyPairSql('a')} AS currency_key, ${SUBSCRIPTION_NAMES}
     FROM billing_lines a ${SUBSCRIPTION_JOINS}
     WHERE a.report_id = $1 AND lower(u.subscription_id) IN (SELECT id FROM single)
     ORDER BY lower(o.name), org_key, u.subscription_id`,
    [reportId, matchable],
  );
  const period = `${String(report.period_start)} – ${String(report.period_end)}`;
  return rows.flatMap((row) => {
    const sum = submitted.get(String(row.subscription_id).toLowerCase());
    const billed = money(String(row.quantity));
    if (!sum || billed.eq(sum.quantity)) return [];
    const files = [...sum.files];
    return [
      exceptionOf(
        'consumption-differs',
        row,
        [String(row.org_key), String(row.subscription_id)],
        `${String(row.product)}: billed quantity ${billed.toFixed()}, but Closebook submitted ${sum.quantity.toFixed()} for ${period} (${files.length === 1 ? 'batch' : 'batches'} ${files.join(', ')}).`,
      ),
    ];
  });
}

/** Rules against last month: unit price changes, quantity jumps, and what was billed then and is missing now. */
function monthRules(changes: MonthChange[], thresholds: CheckThresholds): BillingException[] {
  const found: BillingException[] = [];
  for (const change of changes) {
    const row = {
      organization: change.organization, org_id: change.orgId, customer_number: change.customerNumber, org_key: change.orgId || `${change.organization}|${change.customerNumber}`,
      service: change.service || null, service_id: change.serviceId, subscription: change.subscription, subscription_id: change.subscriptionId,
      product: change.product, product_id: change.productId, currency_key: change.currencyKey,
    };
    const keys = [row.org_key, change.serviceId ?? '', change.subscriptionId ?? '', change.productId ?? '', change.currencyKey];
    const { cost: costCurrency, sales: salesCurrency } = currenciesOf(change.currencyKey);
    if (change.kind === 'lost') {
      const what = change.level === 'organization' ? `${change.organization} (the whole customer)` : change.level === 'service' ? `the service ${change.service}` : `the subscription ${change.subscription ?? change.product ?? ''}`;
      found.push(exceptionOf('missing-subscription', row, keys, `Billed last month and missing now: ${what}, ${amount(change.before?.sales ?? 0, salesCurrency)} last month.`, { path: [] }));
    }
    if (!change.before || !change.after) continue;
    if (change.before.unitPrice !== change.after.unitPrice || change.before.unitCost !== change.after.unitCost) {
      const moved = [
        change.before.unitCost !== change.after.unitCost ? `cost per unit ${change.before.unitCost ?? 'mixed'} → ${change.after.unitCost ?? 'mixed'} ${costCurrency}` : null,
        change.before.unitPrice !== change.after.unitPrice ? `price per unit ${change.before.unitPrice ?? 'mixed'} → ${change.after.unitPrice ?? 'mixed'} ${salesCurrency}` : null,
      ].filter(Boolean);
      found.push(exceptionOf('unit-price-changed', row, keys, `${change.product ?? ''}: ${moved.join('; ')} since last month.`, { path: [] }));
    }
    const before = money(change.before.quantity);
    const after = money(change.after.quantity);
    if (before.gt(0) && after.gt(before.times(1 + thresholds.quantityJumpPercent / 100))) {
      found.push(
        exceptionOf('quantity-jump', row, keys, `${change.product ?? ''}: quantity ${before.toFixed()} → ${after.toFixed()} (+${after.minus(before).dividedBy(before).times(100).toFixed(0)} %) since last month.`, { path: [] }),
      );
    }
  }
  return found;
}

/**
 * Every check over one saved month (and, where a rule needs it, the month before), exceptions first: high before
 * medium before low, then by organization. `comparisonOf` gives the month compared with the one before it.
 */
export async function runBillingChecks(
  ledger: Ledger,
  reportId: string,
  previousId: string | null,
  thresholds: CheckThresholds = DEFAULT_THRESHOLDS,
  consumption: ConsumptionHistory | null = null,
  comparisonOf: ComparisonOf = (beforeId) => compareMonths(ledger, beforeId, reportId),
): Promise<BillingException[]> {
  const found = [
    ...(await customerNumbers(ledger, reportId)),
    ...(await subscriptionRules(ledger, reportId)),
    ...(await lineRules(ledger, reportId)),
    ...(await statedTotals(ledger, reportId)),
    ...(await marginOutliers(ledger, reportId, thresholds)),
    ...(previousId ? monthRules((await comparisonOf(previousId)).changes, thresholds) : []),
    ...(consumption ? await consumptionDiffers(ledger, reportId, consumption) : []),
  ];
  const rank: Record<Severity, number> = { high: 0, medium: 1, low: 2 };
  return found.sort((a, b) => rank[a.severity] - rank[b.severity] || a.organization.toLowerCase().localeCompare(b.organization.toLowerCase()) || a.id.localeCompare(b.id));
}
