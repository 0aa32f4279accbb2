import type { TrendScope } from '@shared/schemas/month-close';
import type { Ledger, LedgerValue } from '@core/ledger/ledger';
import { ORG_KEY, SERVICE_KEY } from '@core/ledger/keys';
import { type Row, rowShape } from '@core/ledger/rows';

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

const MONTH_SUM = rowShape({ report_id: 'text', currency: 'text', customer_currency: 'text', lines: 'int', cost: 'decimal', sales: 'decimal' });
export type MonthSumRow = Row<typeof MONTH_SUM.columns>;

/** A scope's lines, cost and sales per month (`ids`) and currency pair: the whole reseller's were kept at ingest, a scope sums its lines. */
export async function monthSumRows(ledger: Ledger, ids: string[], scope: TrendScope): Promise<MonthSumRow[]> {
  if (ids.length === 0) return [];
  if (scope.kind === 'all') {
    const rows = await ledger.all(
      `SELECT report_id, currency, customer_currency, line_count AS lines, cost::VARCHAR AS cost, sales::VARCHAR AS sales FROM report_totals WHERE report_id IN (${placeholders(1, ids.length)})`,
      ids,
    );
    return MONTH_SUM.all(rows);
  }
  const scoped = scopedSums(scope, 1, ids.length, ids.length + 1);
  const rows = await ledger.all(
    `SELECT report_id, currency, customer_currency, sum(lines)::INTEGER AS lines, sum(cost)::VARCHAR AS cost, sum(sales)::VARCHAR AS sales
     FROM (${scoped.sql}) GROUP BY report_id, currency, customer_currency`,
    [...ids, ...scoped.params],
  );
  return MONTH_SUM.all(rows);
}

/** A level's key, name and detail in the scoped sums (see scopedSums). */
const LEVELS = {
  organization: { key: 'org_key', name: 'org_name', detail: 'customer_number' },
  service: { key: 'service_key', name: 'service_name', detail: "''" },
} as const;

const MOVER = rowShape({
  level: 'text',
  key: 'text',
  currency: 'text',
  customer_currency: 'text',
  name: 'text',
  detail: 'text?',
  before: 'decimal',
  after: 'decimal',
  change: 'decimal',
  lines_before: 'int',
  lines_after: 'int',
});
export type MoverRow = Row<typeof MOVER.columns>;

/**
 * The organizations and services of a scope whose sales changed between two months, per currency pair: the
 * `limit` largest rises and the `limit` largest falls of each level, new and lost ones included, summed exactly.
 */
export async function moverRows(ledger: Ledger, beforeId: string, afterId: string, scope: TrendScope, limit: number): Promise<MoverRow[]> {
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
  return MOVER.all(rows);
}

const CHOICE = rowShape({ key: 'text', label: 'text', detail: 'text?' });
export type ChoiceRow = Row<typeof CHOICE.columns>;

/** What a trend of some months (`ids`) can be scoped to, each named as the newest of them has it (one fetch per period, so the period orders them). */
export async function scopeChoiceRows(ledger: Ledger, ids: string[]): Promise<Record<'organizations' | 'services' | 'groups', ChoiceRow[]>> {
  const choices = async (sql: string) => CHOICE.all(await ledger.all(sql, [ids]));
  return {
    organizations: await choices(
      `SELECT ${ORG_KEY} AS key, arg_max(o.name, r.period_start) AS label, arg_max(o.customer_number, r.period_start) AS detail
       FROM organizations o JOIN reports r USING (report_id) WHERE list_contains($1, o.report_id) GROUP BY key ORDER BY lower(label), key`,
    ),
    services: await choices(
      `SELECT ${SERVICE_KEY} AS key, arg_max(s.service_name, r.period_start) AS label, '' AS detail
       FROM services s JOIN reports r USING (report_id) WHERE list_contains($1, s.report_id) GROUP BY key ORDER BY lower(label), key`,
    ),
    groups: await choices(
      `SELECT DISTINCT group_name AS key, group_name AS label, '' AS detail FROM organization_groups WHERE list_contains($1, report_id) ORDER BY lower(label), key`,
    ),
  };
}
