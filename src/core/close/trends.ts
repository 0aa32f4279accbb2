import { money } from '@shared/money';
import type { TopMover, TrendMonth, TrendPoint, Trends, TrendScope, TrendScopes, TrendSeries } from '@shared/schemas/month-close';
import type { Ledger } from '../ledger/ledger';
import { monthOf, type MonthRef, monthsOf } from './months';
import { currencyPairKey } from '@shared/model/currency-pair';
import { marginOf } from '@shared/model/margin';
import { type ChoiceRow, type MonthSumRow, monthSumRows, moverRows, scopeChoiceRows } from './queries/trends';

export type { TopMover, Trends, TrendScope, TrendScopes, TrendSeries } from '@shared/schemas/month-close';

/** Rises and falls shown per currency pair and level. */
export const MOVERS_PER_SIDE = 5;

function point(lines: number, cost: string, sales: string, oneCurrency: boolean): TrendPoint {
  return { lines, cost, sales, ...marginOf(cost, sales, oneCurrency) };
}

const toMonth = (month: MonthRef): TrendMonth => ({
  reportId: month.reportId,
  period: { startDate: month.startDate, endDate: month.endDate },
  fetchedAt: month.fetchedAt,
});

/**
 * Sales, cost and margin of a scope in every month of the report's service and reseller (the newest fetch of each
 * period counts), one series per currency pair, summed exactly by the ledger; and the report's month's top movers
 * against the month before it.
 */
export async function trendsOf(ledger: Ledger, reportId: string, scope: TrendScope): Promise<Trends> {
  const report = await monthOf(ledger, reportId);
  const months = await monthsOf(ledger, report);
  const ids = months.map((month) => month.reportId);
  const series = seriesOf(await monthSumRows(ledger, ids, scope), ids);
  const currentIndex = months.findIndex((month) => month.startDate === report.startDate && month.endDate === report.endDate);
  const before = currentIndex > 0 ? months[currentIndex - 1] : undefined;
  const after = months[currentIndex];
  const movers =
    before && after ? { before: toMonth(before), after: toMonth(after), rows: await topMovers(ledger, before.reportId, after.reportId, scope) } : null;
  return { scope, months: months.map(toMonth), currentIndex, series, movers };
}

/** One series per currency pair, with a point for every month (zero where the scope had no lines in that pair). */
function seriesOf(rows: MonthSumRow[], ids: string[]): TrendSeries[] {
  const byPair = new Map<string, { cost: string; sales: string; sums: Map<string, MonthSumRow> }>();
  for (const row of rows) {
    const { currency: cost, customer_currency: sales } = row;
    const key = currencyPairKey(cost, sales);
    const pair = byPair.get(key) ?? { cost, sales, sums: new Map() };
    pair.sums.set(row.report_id, row);
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
        return point(sum?.lines ?? 0, money(sum?.cost ?? 0).toFixed(), money(sum?.sales ?? 0).toFixed(), pair.cost === pair.sales);
      }),
    }));
}

/**
 * The organizations and services of a scope whose sales changed most between two months, per currency pair: the
 * `limit` largest rises and the `limit` largest falls of each, new and lost ones included. Sales are summed exactly
 * by the ledger; a change in one currency is never weighed against one in another.
 */
export async function topMovers(ledger: Ledger, beforeId: string, afterId: string, scope: TrendScope, limit = MOVERS_PER_SIDE): Promise<TopMover[]> {
  const rows = await moverRows(ledger, beforeId, afterId, scope, limit);
  return rows.map((row) => ({
    level: row.level as TopMover['level'],
    key: row.key,
    name: row.name,
    detail: row.detail ?? '',
    currencyKey: currencyPairKey(row.currency, row.customer_currency),
    salesBefore: money(row.before).toFixed(),
    salesAfter: money(row.after).toFixed(),
    change: money(row.change).toFixed(),
    status: row.lines_before === 0 ? 'new' : row.lines_after === 0 ? 'lost' : 'changed',
  }));
}

/** What a trend can be scoped to, over every month of the report's service and reseller: named as the newest month has them. */
export async function trendScopes(ledger: Ledger, reportId: string): Promise<TrendScopes> {
  const months = await monthsOf(ledger, await monthOf(ledger, reportId));
  const ids = months.map((month) => month.reportId);
  if (!ids.length) return { organizations: [], services: [], groups: [] };
  const { organizations, services, groups } = await scopeChoiceRows(ledger, ids);
  const choices = (rows: ChoiceRow[]) => rows.map((row) => ({ key: row.key, label: row.label, detail: row.detail ?? '' }));
  return { organizations: choices(organizations), services: choices(services), groups: choices(groups) };
}
