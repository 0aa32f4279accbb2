import type { ReportHierarchy, ReportSortInput } from '@shared/contract';
import { PAIR_ARROW } from '@shared/model/currency-pair';
import { organizationTreeKey, treeKey } from '@shared/model/tree-keys';
import type { Ledger, LedgerValue } from '@core/ledger/ledger';
import { type Row, rowShape } from '@core/ledger/rows';
import { CURRENCY_KEY, ORG_KEY, SERVICE_KEY, treeKeySql } from '@core/ledger/keys';
import type { LineCondition } from './lines';
import { nameKeySql } from '@core/ledger/name-ranks';
import type { NameOrder } from '@shared/model/name-order';

/** What a money or quantity sort ranks by; NULL where the row has none (margin between two currencies, margin % without sales). */
const SORT_VALUE: Record<Exclude<ReportSortInput['key'], 'label'>, string> = {
  quantity: 'quantity',
  cost: 'cost',
  sales: 'sales',
  margin: `CASE WHEN contains(currency_key, '${PAIR_ARROW}') THEN NULL ELSE sales - cost END`,
  marginPercent: `CASE WHEN contains(currency_key, '${PAIR_ARROW}') OR sales = 0 THEN NULL ELSE (sales - cost) / sales END`,
};

/**
 * The order of siblings. By name: the row's `label_order`, its name's rank in the report's name order (or its ICU
 * sort key, where the rows are few: see ledger/name-ranks.ts). Amounts of two currencies are never ranked against
 * each other: rows go by currency (A→Z, whichever the direction), by the value inside it, and rows without a value
 * last. A level without quantities (`quantities` false) sorted by quantity goes by name. Rows equal in all of that go
 * by `tieBreak`: their keys, or the top rows' key numbers (ledger/keys.ts KEYED_LEVELS).
 */
function orderBy(sort: ReportSortInput, quantities: boolean, tieBreak: 'key' | 'key_no' = 'key'): string {
  const byLabel = (direction: ReportSortInput['direction']) => `label_order ${direction === 'asc' ? 'ASC' : 'DESC'}, currency_key, ${tieBreak}`;
  if (sort.key === 'label') return byLabel(sort.direction);
  if (sort.key === 'quantity' && !quantities) return byLabel('asc');
  const value = SORT_VALUE[sort.key];
  return `(${value}) IS NULL, currency_key, ${value} ${sort.direction === 'asc' ? 'ASC' : 'DESC'}, label_order, ${tieBreak}`;
}

/** What every row of the tree gives: a top row, a row of the second level, a subscription, a billing line. */
const TREE_FIELDS = { key: 'text', currency_key: 'text', label: 'text?', detail: 'text?', lines: 'int', cost: 'decimal', sales: 'decimal' } as const;
export type TreeSourceRow = Row<typeof TREE_FIELDS>;
/** A kept top row as its table holds it: numbers, not yet named (see TopRowNames). */
const KEPT_TOP_ROW = rowShape({ place: 'int', currency_key: 'text', label_no: 'int', detail_no: 'int?', lines: 'int', cost: 'decimal', sales: 'decimal' });
const TOP_NAME = rowShape({ no: 'int', key: 'text', label: 'text?', detail: 'text?' });
const OPEN_TOP = rowShape({ place: 'int', key: 'text' });
const SECOND_ROW = rowShape({ ...TREE_FIELDS, parent: 'text', service_nos: 'text', billing_date: 'text?' });
const SUBSCRIPTION_ROW = rowShape({ ...TREE_FIELDS, parent: 'text', po: 'text?', quantity: 'decimal' });
const LINE_ROW = rowShape({ ...TREE_FIELDS, parent: 'text', quantity: 'decimal', unit_cost: 'decimal', unit_price: 'decimal', billing_date: 'text?' });
const CURRENCY_SUM = rowShape({ currency_key: 'text', tops: 'int', lines: 'int', cost: 'decimal', sales: 'decimal' });
const VALUE = rowShape({ value: 'text' });
const SERVICE_STATED = rowShape({ no: 'text', stated_cost: 'decimal', stated_sales: 'decimal', sum_cost: 'decimal', sum_sales: 'decimal', differs: 'bool' });
const SUBSCRIPTION_STATED = rowShape({ no: 'text', stated_cost: 'decimal', stated_sales: 'decimal', sum_cost: 'decimal', sum_sales: 'decimal' });

export type KeptTopRow = Row<typeof KEPT_TOP_ROW.columns>;
/** An organization's or a service's number in its report, what a top row standing for it is keyed by (ORG_KEY or SERVICE_KEY), its name and detail. */
export type TopName = Row<typeof TOP_NAME.columns>;
export type SecondRow = Row<typeof SECOND_ROW.columns>;
export type SubscriptionRow = Row<typeof SUBSCRIPTION_ROW.columns>;
export type LineRow = Row<typeof LINE_ROW.columns>;
export type CurrencySum = Row<typeof CURRENCY_SUM.columns>;
export type StatedSums = Row<typeof SUBSCRIPTION_STATED.columns>;
export type ServiceStatedSums = Row<typeof SERVICE_STATED.columns>;

/** The filter's choices: the report's organization groups, services (in its name order) and currency pairs. */
export async function filterChoices(
  ledger: Ledger,
  reportId: string,
  order: NameOrder,
): Promise<{ groups: string[]; services: string[]; currencies: string[] }> {
  const values = async (sql: string) => VALUE.all(await ledger.all(sql, [reportId])).map((row) => row.value);
  return {
    groups: await values(
      `SELECT group_name AS value FROM organization_groups WHERE report_id = $1 GROUP BY group_name ORDER BY ${nameKeySql('group_name', order)}, group_name`,
    ),
    services: await values('SELECT service_name AS value FROM services WHERE report_id = $1 GROUP BY service_name ORDER BY min(name_rank), service_name'),
    currencies: await values(`SELECT DISTINCT ${CURRENCY_KEY} AS value FROM services WHERE report_id = $1 ORDER BY value`),
  };
}

/**
 * The lines that pass the filter (`where`) summed by `by` and currency pair, on the lines table alone; grouped by
 * the two currency columns, so the pair's name is put together once per group rather than once per line.
 */
function lineSums(where: string, by: string, quantities: boolean): string {
  return `SELECT ${by}, ${CURRENCY_KEY} AS currency_key, count(*) AS lines, ${quantities ? 'sum(quantity) AS quantity, ' : ''}sum(cost) AS cost, sum(sales) AS sales
    FROM billing_lines l WHERE ${where} GROUP BY ${by}, currency, customer_currency`;
}

/**
 * What a top row stands for in each arrangement: an organization (merged over the billing entries it appears in)
 * or a service (merged over every organization), as a level of ledger/keys.ts KEYED_LEVELS: `by`, its number on the
 * lines; `names`, every one of a report with what its row is keyed by (ORG_KEY or SERVICE_KEY), its name and detail
 * ($1 is the report id); a top row's key from that and its currency pair, in JavaScript (`keyOf`) and in SQL (`keys`:
 * the places and keys of a kept table's rows, `temp.<table>`, from the organization or service whose name each shows).
 */
const TOP_LEVEL = {
  organization: {
    by: 'org_no',
    names: `SELECT o.org_no AS no, ${ORG_KEY} AS key, o.name AS label, o.customer_number AS detail FROM organizations o WHERE o.report_id = $1`,
    keyOf: (key: string, currencyKey: string) => organizationTreeKey(key, currencyKey),
    keys: (rows: string) => `SELECT t.place, ${treeKeySql('organization', `${ORG_KEY} || '|' || t.currency_key`)} AS key
      FROM ${rows} t JOIN organizations o ON o.report_id = $1 AND o.org_no = t.label_no`,
    join: 'JOIN organizations o ON o.report_id = $1 AND o.org_no = a.org_no',
    alias: 'o',
    detailNo: 'arg_min(o.org_no, o.customer_number)',
  },
  service: {
    by: 'service_no',
    names: `SELECT s.service_no AS no, ${SERVICE_KEY} AS key, s.service_name AS label, '' AS detail FROM services s WHERE s.report_id = $1`,
    keyOf: (key: string, currencyKey: string) => treeKey('serviceTop', `${currencyKey}|${key}`),
    keys: (rows: string) => `SELECT t.place, ${treeKeySql('serviceTop', `t.currency_key || '|' || ${SERVICE_KEY}`)} AS key
      FROM ${rows} t JOIN services s ON s.report_id = $1 AND s.service_no = t.label_no`,
    join: 'JOIN services s ON s.report_id = $1 AND s.service_no = a.service_no',
    alias: 's',
    detailNo: 'NULL::INTEGER',
  },
} as const satisfies Record<ReportHierarchy, unknown>;

/**
 * The top rows of a filter in an arrangement and a sort, each with its place (`place`, from 0), per currency pair:
 * kept as whole numbers — the key's number (`key_no`), the organization or service whose name (`label_no`) and
 * detail (`detail_no`) the row shows — and named a window's rows at a time (topRowKey).
 * Grouped by their keys' texts, with those texts kept, the top rows of the bench's 20 keystrokes at 1,000,000 lines
 * took 73 ms against 61 ms (by organization; 57 against 46 ms by service; medians of five rounds, alternating).
 */
export function topRowsQuery({ where, params }: LineCondition, hierarchy: ReportHierarchy, sort: ReportSortInput): { sql: string; params: LedgerValue[] } {
  const { by, join, alias, detailNo } = TOP_LEVEL[hierarchy];
  return {
    sql: `SELECT *, row_number() OVER (ORDER BY ${orderBy(sort, false, 'key_no')}) - 1 AS place FROM (
        SELECT ${alias}.key_no, a.currency_key, arg_min(${alias}.${by}, ${alias}.name_rank) AS label_no, min(${alias}.name_rank) AS label_order,
          ${detailNo} AS detail_no, sum(a.lines) AS lines, sum(a.cost) AS cost, sum(a.sales) AS sales
        FROM (${lineSums(where, by, false)}) a ${join}
        GROUP BY ${alias}.key_no, a.currency_key)`,
    params,
  };
}

/** Sums per currency pair of a kept table of top rows (`temp.<table>`): how many top rows, lines, cost and sales. */
export async function currencySums(ledger: Ledger, table: string): Promise<CurrencySum[]> {
  return CURRENCY_SUM.all(
    await ledger.all(
      `SELECT currency_key, count(*) AS tops, sum(lines) AS lines, sum(cost) AS cost, sum(sales) AS sales FROM temp.${table} GROUP BY currency_key`,
    ),
  );
}

/**
 * The kept top rows with places `from … to` (both included), as numbers: the window's rows are named in JavaScript
 * from the report's names (topRowNames). Joined to their names in the ledger, this read took 4.8 ms against 1.6 ms at
 * 100,000 lines (each join a pipeline of DuckDB's of its own, whatever the few rows), 9–13 ms at 1,000,000.
 */
export async function keptTopRowsBetween(ledger: Ledger, table: string, from: number, to: number): Promise<KeptTopRow[]> {
  return KEPT_TOP_ROW.all(
    await ledger.all(`SELECT place, currency_key, label_no, detail_no, lines, cost, sales FROM temp.${table} WHERE place BETWEEN $1 AND $2`, [from, to]),
  );
}

/** A top row's key (as `keys` makes it in SQL), from the key of the organization or service it shows and its currency pair. */
export function topRowKey(hierarchy: ReportHierarchy, name: TopName, currencyKey: string): string {
  return TOP_LEVEL[hierarchy].keyOf(name.key, currencyKey);
}

/** Every organization (or service) of a report by its number, with what its top row is keyed by and shows. */
export async function topRowNames(ledger: Ledger, reportId: string, hierarchy: ReportHierarchy): Promise<TopName[]> {
  return TOP_NAME.all(await ledger.all(TOP_LEVEL[hierarchy].names, [reportId]));
}

/** The open top rows of a report and their places: every one but `toggled` (`allOpen`), or `toggled` alone (none asked, none read). */
export async function openTopRows(
  ledger: Ledger,
  table: string,
  reportId: string,
  hierarchy: ReportHierarchy,
  allOpen: boolean,
  toggled: string[],
): Promise<{ place: number; key: string }[]> {
  if (!allOpen && !toggled.length) return [];
  const where = toggled.length ? `WHERE ${allOpen ? 'NOT ' : ''}(key IN (SELECT unnest($2::VARCHAR[])))` : '';
  return OPEN_TOP.all(
    await ledger.all(
      `SELECT place, key FROM (${TOP_LEVEL[hierarchy].keys(`temp.${table}`)}) ${where} ORDER BY place`,
      toggled.length ? [reportId, toggled] : [reportId],
    ),
  );
}

/**
 * The levels below the top rows of one filter and sort. Each reads only the children of `open` (a hash semi-join on
 * their keys), or of every row when `open` is null.
 */
export function treeLevels(ledger: Ledger, { where, params }: LineCondition, sort: ReportSortInput, order: NameOrder) {
  const next = `$${params.length + 1}`;
  const sums = (by: string, quantities: boolean) => `(${lineSums(where, by, quantities)}) a`;
  const joinOrganizations = 'JOIN organizations o ON o.report_id = $1 AND o.org_no = a.org_no';
  const joinServices = 'JOIN services s ON s.report_id = $1 AND s.service_no = a.service_no';
  const level = async <S extends typeof SECOND_ROW | typeof SUBSCRIPTION_ROW>(shape: S, rows: string, quantities: boolean, open: string[] | null) =>
    shape.all(
      await ledger.all(
        `SELECT * FROM (${rows}) ${open ? `WHERE parent IN (SELECT unnest(${next}::VARCHAR[]))` : ''} ORDER BY ${orderBy(sort, quantities)}`,
        open ? [...params, open] : params,
      ),
    ) as ReturnType<S['all']>;
  return {
    /** Services of an organization (each service number, with its billing date): `service_nos` is what its subscriptions hang from. */
    servicesOfOrganizations: (open: string[] | null): Promise<SecondRow[]> =>
      level(
        SECOND_ROW,
        `SELECT ${treeKeySql('service', 'a.service_no')} AS key, ${treeKeySql('organization', `${ORG_KEY} || '|' || a.currency_key`)} AS parent, a.currency_key, s.service_name AS label, s.name_rank AS label_order, '' AS detail,
           a.service_no::VARCHAR AS service_nos, e.billing_date, a.lines, a.cost, a.sales
         FROM ${sums('service_no, org_no', false)} ${joinOrganizations} ${joinServices}
         LEFT JOIN billing_entries e ON e.report_id = $1 AND e.entry_no = o.entry_no`,
        false,
        open,
      ),
    /** Organizations with a service: its service numbers in every billing entry, merged. */
    organizationsOfServices: (open: string[] | null): Promise<SecondRow[]> =>
      level(
        SECOND_ROW,
        `SELECT key, any_value(parent) AS parent, currency_key, arg_min(label, label_order) AS label, min(label_order) AS label_order, min(detail) AS detail,
           string_agg(service_no::VARCHAR, ',' ORDER BY service_no) AS service_nos, NULL AS billing_date, sum(lines) AS lines, sum(cost) AS cost, sum(sales) AS sales
         FROM (SELECT ${treeKeySql('organizationUnderService', `a.currency_key || '|' || length(${SERVICE_KEY}) || '|' || ${SERVICE_KEY} || ${ORG_KEY}`)} AS key,
                 ${treeKeySql('serviceTop', `a.currency_key || '|' || ${SERVICE_KEY}`)} AS parent, a.currency_key, o.name AS label, o.name_rank AS label_order, o.customer_number AS detail, a.service_no, a.lines, a.cost, a.sales
               FROM ${sums('service_no, org_no', false)} ${joinOrganizations} ${joinServices})
         GROUP BY key, currency_key`,
        false,
        open,
      ),
    /** The subscriptions of the open service numbers (`s:` keys). */
    subscriptions: (openServices: string[]): Promise<SubscriptionRow[]> =>
      level(
        SUBSCRIPTION_ROW,
        `SELECT ${treeKeySql('subscription', 'a.subscription_no')} AS key, ${treeKeySql('service', 'a.service_no')} AS parent, a.currency_key, u.item_name AS label, u.name_rank AS label_order, u.po_number AS po, a.lines, a.quantity, a.cost, a.sales
         FROM ${sums('subscription_no, service_no', true)} JOIN subscriptions u ON u.report_id = $1 AND u.subscription_no = a.subscription_no`,
        true,
        openServices,
      ),
    /** The billing lines of the open subscriptions (`u:` keys). */
    lines: async (openSubscriptions: string[]): Promise<LineRow[]> =>
      LINE_ROW.all(
        await ledger.all(
          `SELECT ${treeKeySql('line', 'l.line_no')} AS key, ${treeKeySql('subscription', 'l.subscription_no')} AS parent, ${CURRENCY_KEY} AS currency_key, l.product_name AS label, ${nameKeySql('l.product_name', order)} AS label_order, l.item_code AS detail,
             1 AS lines, l.quantity, l.cost_per_unit AS unit_cost, l.sales_per_unit AS unit_price, l.cost, l.sales, e.billing_date
           FROM billing_lines l JOIN organizations o ON o.report_id = $1 AND o.org_no = l.org_no
           LEFT JOIN billing_entries e ON e.report_id = $1 AND e.entry_no = o.entry_no
           WHERE ${where} AND (${treeKeySql('subscription', 'l.subscription_no')}) IN (SELECT unnest(${next}::VARCHAR[]))
           ORDER BY ${orderBy(sort, true)}`,
          [...params, openSubscriptions],
        ),
      ),
  };
}

/** Services' stated totals beside the exact sums of their subscriptions' stated totals, and whether they differ. */
export async function statedServiceSums(ledger: Ledger, reportId: string, serviceNos: string[]): Promise<ServiceStatedSums[]> {
  return SERVICE_STATED.all(
    await ledger.all(
      `SELECT s.service_no AS no, s.stated_cost::VARCHAR AS stated_cost, s.stated_sales::VARCHAR AS stated_sales,
         coalesce(sum(u.stated_cost), 0)::VARCHAR AS sum_cost, coalesce(sum(u.stated_sales), 0)::VARCHAR AS sum_sales,
         s.stated_cost <> coalesce(sum(u.stated_cost), 0) OR s.stated_sales <> coalesce(sum(u.stated_sales), 0) AS differs
       FROM services s LEFT JOIN subscriptions u ON u.report_id = s.report_id AND u.service_no = s.service_no
       WHERE s.report_id = $1 AND list_contains($2, s.service_no::VARCHAR)
       GROUP BY s.service_no, s.stated_cost, s.stated_sales`,
      [reportId, serviceNos],
    ),
  );
}

/** The subscriptions whose stated totals differ from the exact sums of their lines. */
export async function subscriptionsUnlikeTheirLines(ledger: Ledger, reportId: string, subscriptionNos: string[]): Promise<StatedSums[]> {
  return SUBSCRIPTION_STATED.all(
    await ledger.all(
      `SELECT u.subscription_no AS no, u.stated_cost::VARCHAR AS stated_cost, u.stated_sales::VARCHAR AS stated_sales,
         sum(l.cost)::VARCHAR AS sum_cost, sum(l.sales)::VARCHAR AS sum_sales
       FROM subscriptions u JOIN billing_lines l ON l.report_id = u.report_id AND l.subscription_no = u.subscription_no
       WHERE u.report_id = $1 AND list_contains($2, u.subscription_no::VARCHAR)
       GROUP BY u.subscription_no, u.stated_cost, u.stated_sales
       HAVING u.stated_cost <> sum(l.cost) OR u.stated_sales <> sum(l.sales)`,
      [reportId, subscriptionNos],
    ),
  );
}
