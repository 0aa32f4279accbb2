import type { Ledger } from '@core/ledger/ledger';
import { CURRENCY_KEY, currencyPairSql, ORG_KEY } from '@core/ledger/keys';
import { type Row, rowShape } from '@core/ledger/rows';

/*
 * The billing checks' queries over one saved month (bound as $1), each row naming what its exception is about
 * (billing-checks.ts makes the exception).
 */

/** The subscription a row is about, by name and number (SUBSCRIPTION_NAMES over SUBSCRIPTION_JOINS). */
/** The organization a row is about (ORGANIZATION_NAMES), and the service and subscription under it (SUBSCRIPTION_NAMES). */
const ORGANIZATION_FIELDS = { org_key: 'text', organization: 'text', org_id: 'text', customer_number: 'text' } as const;
const SERVICE_FIELDS = { ...ORGANIZATION_FIELDS, service: 'text', service_id: 'text', service_no: 'int' } as const;
const SUBSCRIPTION = { ...SERVICE_FIELDS, subscription: 'text', subscription_id: 'text', subscription_no: 'int' } as const;
const SUBSCRIPTION_NAMES = `
  o.name AS organization, o.org_id, o.customer_number, ${ORG_KEY} AS org_key, s.service_name AS service, s.service_id, s.service_no,
  u.item_name AS subscription, u.subscription_id, u.subscription_no`;
/** The organization, service and subscription of `a`, a row with org_no, service_no and subscription_no. */
const SUBSCRIPTION_JOINS = `
  JOIN organizations o ON o.report_id = $1 AND o.org_no = a.org_no
  JOIN services s ON s.report_id = $1 AND s.service_no = a.service_no
  JOIN subscriptions u ON u.report_id = $1 AND u.subscription_no = a.subscription_no`;

/** What each subscription of the report cost and sold, per currency pair. */
const PER_SUBSCRIPTION = `
  SELECT l.subscription_no, l.service_no, l.org_no, l.currency, l.customer_currency, ${CURRENCY_KEY} AS currency_key,
    sum(l.cost) AS cost, sum(l.sales) AS sales
  FROM billing_lines l WHERE l.report_id = $1 GROUP BY ALL`;

const SUBSCRIPTION_SUMS = rowShape({
  ...SUBSCRIPTION,
  currency: 'text',
  customer_currency: 'text',
  currency_key: 'text',
  cost: 'decimal',
  sales: 'decimal',
  rule: 'text',
});
export type SubscriptionSumRow = Row<typeof SUBSCRIPTION_SUMS.columns>;

/** Subscriptions sold below cost, with cost and no sales, or with sales and no cost, each with its `rule`. */
export async function subscriptionSumRows(ledger: Ledger, reportId: string): Promise<SubscriptionSumRow[]> {
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
  return SUBSCRIPTION_SUMS.all(rows);
}

const OUTLIER = rowShape({
  ...SERVICE_FIELDS,
  currency_key: 'text',
  percent: 'ratio',
  median: 'ratio',
  organizations: 'int',
});
export type OutlierRow = Row<typeof OUTLIER.columns>;

/**
 * A customer's margin % on a service more than `deviationPoints` from the service's median margin % this month, in
 * that currency (single-currency lines, over at least 5 organizations). The lines are summed per organization and
 * service number first (`per_service`: whole numbers, no names), then those sums per organization and service name:
 * grouping a million lines on names took 1.0 s and 320 MB of a 1,000,000-line month's checks.
 */
export async function marginOutlierRows(ledger: Ledger, reportId: string, deviationPoints: number): Promise<OutlierRow[]> {
  const rows = await ledger.all(
    `WITH per_service AS (
       SELECT l.org_no, l.service_no, l.currency, sum(l.cost) AS cost, sum(l.sales) AS sales
       FROM billing_lines l WHERE l.report_id = $1 AND l.currency = l.customer_currency GROUP BY ALL),
     per_org AS (
       SELECT ${ORG_KEY} AS org_key, any_value(o.name) AS organization, any_value(o.org_id) AS org_id, any_value(o.customer_number) AS customer_number,
         s.service_name AS service, any_value(s.service_id) AS service_id, min(s.service_no) AS service_no, p.currency AS currency_key,
         sum(p.cost) AS cost, sum(p.sales) AS sales
       FROM per_service p
       JOIN organizations o ON o.report_id = $1 AND o.org_no = p.org_no
       JOIN services s ON s.report_id = $1 AND s.service_no = p.service_no
       GROUP BY org_key, s.service_name, p.currency HAVING sum(p.sales) > 0),
     rated AS (SELECT *, (sales - cost) * 100.0 / sales AS margin_percent FROM per_org),
     usual AS (SELECT service, currency_key, median(margin_percent) AS median, count(*) AS organizations FROM rated GROUP BY ALL HAVING count(*) >= 5)
     SELECT r.*, r.margin_percent::DOUBLE AS percent, u.median::DOUBLE AS median, u.organizations
     FROM rated r JOIN usual u USING (service, currency_key)
     WHERE abs(r.margin_percent - u.median) > $2
     ORDER BY lower(r.organization), r.org_key, lower(r.service)`,
    [reportId, deviationPoints],
  );
  return OUTLIER.all(rows);
}

const STATED = rowShape({
  level: 'text',
  stated: 'decimal',
  summed: 'decimal',
  stated_cost: 'decimal',
  summed_cost: 'decimal',
  ...SERVICE_FIELDS,
  subscription: 'text?',
  subscription_id: 'text?',
  subscription_no: 'int?',
  currency_key: 'text',
});
export type StatedRow = Row<typeof STATED.columns>;

/**
 * Stated service and subscription totals (`level`) that differ from the exact sum of the level below. The sums are
 * taken and compared on the numbers of services and subscriptions alone (`differing`, kept apart so the planner
 * cannot join the names first), and only those that differ are named, with their lines' currency pair: joining a
 * million lines' sums to every subscription's names took 1.4 s and 470 MB of a 1,000,000-line month's checks.
 */
export async function statedTotalRows(ledger: Ledger, reportId: string): Promise<StatedRow[]> {
  const rows = await ledger.all(
    `WITH service_sums AS (
       SELECT s.service_no, coalesce(sum(u.stated_sales), 0) AS summed, coalesce(sum(u.stated_cost), 0) AS summed_cost
       FROM services s LEFT JOIN subscriptions u ON u.report_id = $1 AND u.service_no = s.service_no
       WHERE s.report_id = $1 GROUP BY s.service_no),
     line_sums AS (
       SELECT l.subscription_no, sum(l.sales) AS summed, sum(l.cost) AS summed_cost
       FROM billing_lines l WHERE l.report_id = $1 GROUP BY l.subscription_no),
     differing AS MATERIALIZED (
       SELECT t.subscription_no, t.summed, t.summed_cost
       FROM line_sums t JOIN subscriptions u ON u.report_id = $1 AND u.subscription_no = t.subscription_no
       WHERE u.stated_cost <> t.summed_cost OR u.stated_sales <> t.summed),
     differing_pairs AS (
       SELECT l.subscription_no, min(${currencyPairSql('l')}) AS currency_key
       FROM billing_lines l WHERE l.report_id = $1 AND l.subscription_no IN (SELECT subscription_no FROM differing) GROUP BY l.subscription_no)
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
         c.currency_key
       FROM differing t JOIN differing_pairs c ON c.subscription_no = t.subscription_no
       JOIN subscriptions u ON u.report_id = $1 AND u.subscription_no = t.subscription_no
       JOIN organizations o ON o.report_id = $1 AND o.org_no = u.org_no
       JOIN services s ON s.report_id = $1 AND s.service_no = u.service_no)
     ORDER BY lower(organization), org_key, lower(service), subscription_id NULLS FIRST`,
    [reportId],
  );
  return STATED.all(rows);
}

/**
 * Half a unit in the last decimal place the total has (at least the cent): a total the service rounded to 4
 * places may be off its exact product by 0.00005, a cent-rounded one by 0.005.
 */
const TOLERANCE = (column: string) =>
  `CASE WHEN ${column} * 100 = trunc(${column} * 100) THEN 0.005 WHEN ${column} * 1000 = trunc(${column} * 1000) THEN 0.0005
        WHEN ${column} * 10000 = trunc(${column} * 10000) THEN 0.00005 WHEN ${column} * 100000 = trunc(${column} * 100000) THEN 0.000005 ELSE 0.0000005 END`;

const MISMATCHED = rowShape({
  ...SUBSCRIPTION,
  line_no: 'int',
  product_id: 'text',
  product: 'text',
  quantity: 'decimal',
  unit_price: 'decimal',
  unit_cost: 'decimal',
  sales: 'decimal',
  cost: 'decimal',
  currency: 'text',
  customer_currency: 'text',
  currency_key: 'text',
  sales_off: 'bool',
});
export type MismatchedRow = Row<typeof MISMATCHED.columns>;

/** Billing lines whose total is not their quantity × unit price (`sales_off`: the sales total; else the cost total). */
export async function mismatchedLineRows(ledger: Ledger, reportId: string): Promise<MismatchedRow[]> {
  const rows = await ledger.all(
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
  return MISMATCHED.all(rows);
}

/** A billing line's own fields (`a`), all but what it is on. */
const LINE_OWN_FIELDS = `a.product_id, a.product_name, a.item_code, a.quantity, a.cost_per_unit, a.sales_per_unit, a.cost, a.sales, a.item_details,
  a.currency, a.customer_currency`;

/** What makes two billing lines the same line: every field, the subscription they are on, and the billing date. */
const LINE_FIELDS = `${ORG_KEY}, s.service_id, u.subscription_id, ${LINE_OWN_FIELDS}, e.billing_date`;

/**
 * The lines that may have a twin: those whose fields hash alike. A line's organization, service, subscription and
 * billing date are its subscription's, so they are hashed once per subscription and each line hashes that with its
 * own fields; the lines whose hash comes more than once are counted by a window over (line, hash) pairs. Only whole
 * numbers cross the million lines: grouping them on their text (or a table of every line with its names) took 2.9 s
 * and 670 MB of a 1,000,000-line month's checks, this 0.9 s and 330 MB. A hash that two different lines share only
 * adds candidates, which the exact grouping on LINE_FIELDS then tells apart.
 */
const REPEATED_FIELDS = `
  WITH places AS (
    SELECT u.subscription_no, hash(${ORG_KEY}, s.service_id, u.subscription_id, e.billing_date) AS place
    FROM subscriptions u
    JOIN organizations o ON o.report_id = $1 AND o.org_no = u.org_no
    JOIN services s ON s.report_id = $1 AND s.service_no = u.service_no
    LEFT JOIN billing_entries e ON e.report_id = $1 AND e.entry_no = o.entry_no
    WHERE u.report_id = $1),
  hashed AS (
    SELECT a.line_no, hash(p.place, ${LINE_OWN_FIELDS}) AS fields
    FROM billing_lines a JOIN places p ON p.subscription_no = a.subscription_no
    WHERE a.report_id = $1)
  SELECT line_no FROM (SELECT line_no, count(*) OVER (PARTITION BY fields) AS hashed_alike FROM hashed) WHERE hashed_alike > 1`;

const DUPLICATE = rowShape({
  ...SUBSCRIPTION,
  line_no: 'int',
  copies: 'int',
  product_id: 'text',
  product: 'text',
  currency: 'text',
  customer_currency: 'text',
  currency_key: 'text',
  sales: 'decimal',
});
export type DuplicateRow = Row<typeof DUPLICATE.columns>;

/** Billing lines identical in every field: one row per such line, with how many `copies` there are and the first line's number. */
export async function duplicateLineRows(ledger: Ledger, reportId: string): Promise<DuplicateRow[]> {
  const rows = await ledger.all(
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
  return DUPLICATE.all(rows);
}

const ORGANIZATION = rowShape(ORGANIZATION_FIELDS);
export type OrganizationRow = Row<typeof ORGANIZATION.columns>;

/** Organizations with no customer number. */
export async function noCustomerNumberRows(ledger: Ledger, reportId: string): Promise<OrganizationRow[]> {
  const rows = await ledger.all(
    `SELECT ${ORG_KEY} AS org_key, any_value(o.name) AS organization, any_value(o.org_id) AS org_id, '' AS customer_number
     FROM organizations o WHERE o.report_id = $1 AND trim(o.customer_number) = '' GROUP BY org_key ORDER BY lower(any_value(o.name)), org_key`,
    [reportId],
  );
  return ORGANIZATION.all(rows);
}

const REPORT = rowShape({ profile_id: 'text', host: 'text', reseller_id: 'text', period_start: 'text', period_end: 'text' });
export type ReportRow = Row<typeof REPORT.columns>;

/** The profile, service, reseller and period of a saved report, or undefined when there is none. */
export async function reportRow(ledger: Ledger, reportId: string): Promise<ReportRow | undefined> {
  return REPORT.all(await ledger.all('SELECT profile_id, host, reseller_id, period_start, period_end FROM reports WHERE report_id = $1', [reportId]))[0];
}

const BILLED_ONCE = rowShape({ ...SUBSCRIPTION, line_no: 'int', product_id: 'text', product: 'text', quantity: 'decimal', currency_key: 'text' });
export type BilledOnceRow = Row<typeof BILLED_ONCE.columns>;

/** The line of each subscription (its id in lower case among `subscriptionIds`) that is billed on exactly one line. */
export async function billedOnceRows(ledger: Ledger, reportId: string, subscriptionIds: string[]): Promise<BilledOnceRow[]> {
  const rows = await ledger.all(
    `WITH single AS (
       SELECT lower(u.subscription_id) AS id FROM billing_lines l JOIN subscriptions u ON u.report_id = l.report_id AND u.subscription_no = l.subscription_no
       WHERE l.report_id = $1 AND list_contains($2, lower(u.subscription_id)) GROUP BY ALL HAVING count(*) = 1)
     SELECT a.line_no, a.product_id, a.product_name AS product, a.quantity::VARCHAR AS quantity, ${currencyPairSql('a')} AS currency_key, ${SUBSCRIPTION_NAMES}
     FROM billing_lines a ${SUBSCRIPTION_JOINS}
     WHERE a.report_id = $1 AND lower(u.subscription_id) IN (SELECT id FROM single)
     ORDER BY lower(o.name), org_key, u.subscription_id`,
    [reportId, subscriptionIds],
  );
  return BILLED_ONCE.all(rows);
}
