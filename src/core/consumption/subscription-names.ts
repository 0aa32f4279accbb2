import type { SubscriptionName, SubscriptionNames } from '@shared/schemas/consumption';
import { isGuid } from '@shared/schemas/common';
import type { Ledger } from '../ledger/ledger';
import { rowShape } from '../ledger/rows';

/** Products named per subscription: enough to recognise it, not a whole invoice. */
const PRODUCTS_SHOWN = 3;

const COUNT = rowShape({ reports: 'int' });

/** A subscription as its newest saved report names it; `products` is a JSON list of names (null when it has no lines). */
const NAMED = rowShape({
  subscription_id: 'text',
  item_name: 'text',
  period_start: 'text',
  period_end: 'text',
  organization: 'text',
  customer_number: 'text',
  service_name: 'text',
  products: 'text?',
  months: 'int',
  quantities: 'int',
});

/** Whose saved reports count: one Broker (reseller) at one service, as months are kept. */
export interface ReportsOf {
  host: string;
  resellerId: string;
}

/**
 * Names for consumption rows, in one query however many ids: each subscription as the newest saved report of the
 * same service and reseller that has it names it (its organization, its own name, its service and products).
 * Ids are matched without case; an id no saved report has is left out of `names`.
 */
export async function subscriptionNames(ledger: Ledger, of: ReportsOf, subscriptionIds: string[]): Promise<SubscriptionNames> {
  const [count] = COUNT.all(
    await ledger.all('SELECT count(*)::INTEGER AS reports FROM reports WHERE host = $1 AND reseller_id = $2', [of.host, of.resellerId]),
  );
  const savedReports = count?.reports ?? 0;
  // Only GUIDs can be subscription ids (and hold no comma, so they travel as one text: binding a list of 50,000 costs ~1 s).
  const wanted = [...new Set(subscriptionIds.map((id) => id.trim().toLowerCase()).filter(isGuid))];
  if (savedReports === 0 || wanted.length === 0) return { savedReports, names: [] };
  // A hash join on the wanted ids (not a list lookup per subscription): 50,000 ids cost one pass over the months.
  const rows = await ledger.all(
    `WITH wanted AS (SELECT DISTINCT unnest(string_split($3, ',')) AS id),
     found AS (
       SELECT u.report_id, u.subscription_no, u.subscription_id, u.item_name, u.org_no, u.service_no, r.period_start, r.period_end,
         row_number() OVER (PARTITION BY lower(u.subscription_id) ORDER BY r.period_start DESC, r.fetched_at DESC, r.report_id) AS newest,
         row_number() OVER (PARTITION BY lower(u.subscription_id), r.period_start ORDER BY r.fetched_at DESC, r.report_id) AS newest_of_month
       FROM subscriptions u
       JOIN reports r ON r.report_id = u.report_id AND r.host = $1 AND r.reseller_id = $2
       JOIN wanted w ON w.id = lower(u.subscription_id)),
     picked AS (SELECT * FROM found WHERE newest = 1),
     -- Its months (the newest fetch of each) and how many quantities its lines add up to in them.
     monthly AS (
       SELECT lower(f.subscription_id) AS id, f.report_id, sum(l.quantity) AS quantity
       FROM found f LEFT JOIN billing_lines l ON l.report_id = f.report_id AND l.subscription_no = f.subscription_no
       WHERE f.newest_of_month = 1 GROUP BY ALL),
     billed AS (SELECT id, count(*)::INTEGER AS months, count(DISTINCT quantity)::INTEGER AS quantities FROM monthly GROUP BY id)
     SELECT p.subscription_id, p.item_name, p.period_start, p.period_end, o.name AS organization, o.customer_number, s.service_name,
       to_json(list(DISTINCT l.product_name ORDER BY l.product_name) FILTER (WHERE l.product_name IS NOT NULL))::VARCHAR AS products,
       b.months, b.quantities
     FROM picked p
     JOIN billed b ON b.id = lower(p.subscription_id)
     JOIN organizations o ON o.report_id = p.report_id AND o.org_no = p.org_no
     JOIN services s ON s.report_id = p.report_id AND s.service_no = p.service_no
     LEFT JOIN billing_lines l ON l.report_id = p.report_id AND l.subscription_no = p.subscription_no
     GROUP BY ALL`,
    [of.host, of.resellerId, wanted.join(',')],
  );
  const names = NAMED.all(rows).map((row): SubscriptionName => ({
    subscriptionId: row.subscription_id,
    organization: row.organization,
    customerNumber: row.customer_number,
    subscription: row.item_name,
    service: row.service_name,
    products: (row.products === null ? [] : (JSON.parse(row.products) as string[])).slice(0, PRODUCTS_SHOWN),
    period: { startDate: row.period_start, endDate: row.period_end },
    months: row.months,
    metered: row.quantities > 1,
  }));
  return { savedReports, names };
}
