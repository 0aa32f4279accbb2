import { money } from '@shared/money';
import type { TopMover, TrendMonth, TrendPoint, Trends, TrendScope, TrendScopes, TrendSeries } from '@shared/schemas/month-close';
import type { Ledger, LedgerRow, LedgerValue } from '../ledger/ledger';
import { ORG_KEY, SERVICE_KEY } from '../ledger/keys';
import { monthOf, type MonthRef, monthsOf } from './months';
import { currencyPairKey } from '@shared/model/currency-pair';
import { marginOf } from '@shared/model/margin';

export type { TopMover, Trends, TrendScope, TrendScopes, TrendSeries } from '@shared/schemas/month-close';

/** Rises and falls shown per currency pair and level. */
export const MOVERS_PER_SIDE = 5;

/** Placeholders `$first`… for `count` values: a plain IN list lets the ledger skip other months' row groups. */
const placeholders = (first: number, count: number) => Array.from({ length: count }, (_, index) => `$${first + index}`).join(', ');

/**
 * The lines of some months (their ids bound from `$first`) summed per organization, service and currency pair, as
 * `l`, joined to their organization (`o`) and service (`s`) and kept to a scope (its value bound as `$n`). Summing
 * first makes the joins small: a month of a million lines has a few thousand such sums.
 */
function scopedSums(scope: TrendScope, first: number, count: number, n: number): { sql: string; params: LedgerValue[] } {
  const conditions: Record<TrendScope['kind'], string> = {
    all: 'TRUE',
    organization: `${ORG_KEY} = $${n}`,
    service: `${SERVICE_KEY} = $${n}`,
    // Membership as each month recorded it: an organization counts in the months it was in the group.
    group: `EXISTS (SELECT 1 FROM organization_groups g WHERE g.report_id = l.report_id AND g.org_no = l.org_no AND g.group_name = $${n})`,
  };
  return {
    sql: `SELECT l.*, ${ORG_KEY} AS org_key, o.name AS org_name, o.customer_number, ${SERVICE_KEY} AS service_key, s.service_name
      FROM (SELECT report_id, org_no, service_no, currency, customer_currency, count(*) AS lines, sum(cost) AS cost, sum(sales) AS sales
            FROM billing_lines WHERE report_id IN (${placeholders(first, count)}) GROUP BY ALL) l
      JOIN organizations o ON o.report_id = l.report_id AND o.org_no = l.org_no
      JOIN services s ON s.report_id = l.report_id AND s.service_no = l.service_no
      WHERE ${conditions[scope.kind]}`,
    params: scope.kind === 'all' ? [] : [scope.key],
  };
}

function point(lines: number, cost: string, sales: string, oneCurrency: boolean): TrendPoint {
  return { lines, cost, sales, ...marginOf(cost, sales, oneCurrency) };
}

const toMonth = (month: MonthRef): TrendMonth => ({ reportId: month.reportId, period: { startDate: month.startDate, endDate: month.endDate }, fetchedAt: month.fetchedAt });

/**
 * Sales, cost and margin of a scope in every month of the report's service and reseller (the newest fetch of each
 * period counts), one series per currency pair, summed exactly by the ledger; and the report's month's top movers
 * against the month before it.
 */
export async function trendsOf(ledger: Ledger, reportId: string, scope: TrendScope): Promise<Trends> {
  const report = await monthOf(ledger, reportId);
  const months = await monthsOf(ledger, report);
  const ids = months.map((month) => month.reportId);
  const scoped = scopedSums(scope, 1, ids.length, ids.length + 1);
  // The whole reseller's sums per currency pair were kept at ingest; a scope sums its lines.
  const rows =
    ids.length === 0
      ? []
      : scope.kind === 'all'
        ? await ledger.all(
            `SELECT report_id, currency, customer_currency, line_count AS lines, cost::VARCHAR AS cost, sales::VARCHAR AS sales FROM report_totals WHERE report_id IN (${placeholders(1, ids.length)})`,
            ids,
          )
        : await ledger.all(
            `SELECT report_id, currency, customer_currency, sum(lines)::INTEGER AS lines, sum(cost)::VARCHAR AS cost, sum(sales)::VARCHAR AS sales
             FROM (${scoped.sql}) GROUP BY report_id, currency, customer_currency`,
            [...ids, ...scoped.params],
          );
  const series = seriesOf(rows, ids);
  const currentIndex = months.findIndex((month) => month.startDate === report.startDate && month.endDate === report.endDate);
  const before = currentIndex > 0 ? months[currentIndex - 1] : undefined;
  const after = months[currentIndex];
  const movers = before && after ? { before: toMonth(before), after: toMonth(after), rows: await topMovers(ledger, before.reportId, after.reportId, scope) } : null;
  return { scope, months: months.map(toMonth), currentIndex, series, movers };
}

/** One series per currency pair, with a point for every month (zero where the scope had no lines in that pair). */
function seriesOf(rows: LedgerRow[], ids: string[]): TrendSeries[] {
  const byPair = new Map<string, { cost: string; sales: string; sums: Map<string, LedgerRow> }>();
  for (const row of rows) {
    const cost = String(row.currency);
    const sales = String(row.customer_currency);
    const key = currencyPairKey(cost, sales);
    const pair = byPair.get(key) ?? { cost, sales, sums: new Map() };
    pair.sums.set(String(row.report_id), row);
    byPair.set(key, pair);
  }
  return [...byPair.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currencyKey, pair]) => ({
      currencyKey,
      costCurrency: pair.cost,
      salesCurrency: pair.sales,
      points: ids.map((id) => {
        const sum = pair.sums.get(id);
        return point(sum ? Number(sum.lines) : 0, money(String(sum?.cost ?? 0)).toFixed(), money(String(sum?.sales ?? 0)).toFixed(), pair.cost === pair.sales);
      }),
    }));
}

/** A level's key, name and detail in the scoped sums (see scopedSums). */
const LEVELS = {
  organization: { key: 'org_key', name: 'org_name', detail: 'customer_number' },
  service: { key: 'service_key', name: 'service_name', detail: "''" },
} as const;

/**
 * The organizations and services of a scope whose sales changed most between two months, per currency pair: the
 * `limit` largest rises and the `limit` largest falls of each, new and lost ones included. Sales are summed exactly
 * by the ledger; a change in one currency is never weighed against one in another.
 */
export async function topMovers(ledger: Ledger, beforeId: string, afterId: string, scope: TrendScope, limit = MOVERS_PER_SIDE): Promise<TopMover[]> {
  const scoped = scopedSums(scope, 1, 2, 3);
  const perLevel = Object.entries(LEVELS).map(
    ([level, columns]) =>
      `SELECT '${level}' AS level, ${columns.key} AS key, currency, customer_currency,
         coalesce(max(${columns.name}) FILTER (WHERE report_id = $2), max(${columns.name})) AS name,
         coalesce(max(${columns.detail}) FILTER (WHERE report_id = $2), max(${columns.detail})) AS detail,
         coalesce(sum(sales) FILTER (WHERE report_id = $1), 0) AS before,
         coalesce(sum(sales) FILTER (WHERE report_id = $2), 0) AS after,
         coalesce(sum(lines) FILTER (WHERE report_id = $1), 0) AS lines_before,
         coalesce(sum(lines) FILTER (WHERE report_id = $2), 0) AS lines_after
       FROM scoped GROUP BY ${columns.key}, currency, customer_currency`,
  );
  const rows = await ledger.all(
    `WITH scoped AS (${scoped.sql}), sums AS (${perLevel.join(' UNION ALL ')})
     SELECT level, key, currency, customer_currency, name, detail, before::VARCHAR AS before, after::VARCHAR AS after, (after - before)::VARCHAR AS change,
       lines_before, lines_after
     FROM sums WHERE after <> before
     QUALIFY row_number() OVER (PARTITION BY level, currency, customer_currency, after > before ORDER BY abs(after - before) DESC, lower(name), key) <= ${Math.trunc(limit)}
     ORDER BY level, currency, customer_currency, after - before DESC, lower(name), key`,
    [beforeId, afterId, ...scoped.params],
  );
  return rows.map((row) => ({
    level: String(row.level) as TopMover['level'],
    key: String(row.key),
    name: String(row.name),
    detail: String(row.detail ?? ''),
    currencyKey: currencyPairKey(String(row.currency), String(row.customer_currency)),
    salesBefore: money(String(row.before)).toFixed(),
    salesAfter: money(String(row.after)).toFixed(),
    change: money(String(row.change)).toFixed(),
    status: Number(row.lines_before) === 0 ? 'new' : Number(row.lines_after) === 0 ? 'lost' : 'changed',
  }));
}

/** What a trend can be scoped to, over every month of the report's service and reseller: named as the newest month has them. */
export async function trendScopes(ledger: Ledger, reportId: string): Promise<TrendScopes> {
  const months = await monthsOf(ledger, await monthOf(ledger, reportId));
  const ids = months.map((month) => month.reportId);
  if (!ids.length) return { organizations: [], services: [], groups: [] };
  const choices = async (sql: string) => (await ledger.all(sql, [ids])).map((row) => ({ key: String(row.key), label: String(row.label), detail: String(row.detail ?? '') }));
  // One fetch per period, so the period orders them: a name is the newest month's.
  return {
    organizations: await choices(
      `SELECT ${ORG_KEY} AS key, arg_max(o.name, r.period_start) AS label, arg_max(o.customer_number, r.period_start) AS detail
       FROM organizations o JOIN reports r USING (report_id) WHERE list_contains($1, o.report_id) GROUP BY key ORDER BY lower(label), key`,
    ),
    services: await choices(
      `SELECT ${SERVICE_KEY} AS key, arg_max(s.service_name, r.period_start) AS label, '' AS detail
       FROM services s JOIN reports r USING (report_id) WHERE list_contains($1, s.report_id) GROUP BY key ORDER BY lower(label), key`,
    ),
    groups: await choices(`SELECT DISTINCT group_name AS key, group_name AS label, '' AS detail FROM organization_groups WHERE list_contains($1, report_id) ORDER BY lower(label), key`),
  };
}
