import type { CurrencyTotalRow, ReportExpansion, ReportHierarchy, ReportSortInput, ReportView, ReportWindow, TreeRow } from '@shared/contract';
import { type Money, money } from '@shared/money';
import { filterIdentity, type ReportFilter } from '@shared/report-filter';
import type { Ledger, LedgerValue } from '../ledger/ledger';
import { type Row, rowShape } from '../ledger/rows';
import { CURRENCY_KEY, ORG_KEY, SERVICE_KEY, treeKeySql } from '../ledger/keys';
import { treeKey, treeKeyId } from '@shared/model/tree-keys';
import { lineFilter } from './report-query';
import type { ReportLibrary } from './report-library';
import { KeptTopRows, type TopRows } from './viewer-top-rows';
import { isSingleCurrency, PAIR_ARROW } from '@shared/model/currency-pair';
import { type Margin, marginOf } from '@shared/model/margin';

export interface WindowRequest {
  reportId: string;
  filter: ReportFilter;
  sort: ReportSortInput;
  expansion: ReportExpansion;
  /** Organization › service › subscription › line (the default), or service › organization › subscription › line. */
  hierarchy?: ReportHierarchy | undefined;
  offset: number;
  count: number;
}

/**
 * A visible row before margins and mismatch flags are worked out (they are, for the rows of a window only).
 * `mismatchOf` names what a stated total is checked for: `s:` and the service numbers the row stands for, or `u:` and
 * a subscription number.
 */
type RawRow = Omit<TreeRow, 'margin' | 'marginPercent' | 'mismatch'> & { mismatchOf: string | null };

/**
 * A state of the tree without its top rows (they stay in the ledger, see KeptTopRows): the open top rows, by their
 * place among the tops, each with every visible row below it in order.
 */
interface VisibleTree {
  open: { at: number; below: RawRow[] }[];
  rowCount: number;
}

/** What a money or quantity sort ranks by; NULL where the row has none (margin between two currencies, margin % without sales). */
const SORT_VALUE: Record<Exclude<ReportSortInput['key'], 'label'>, string> = {
  quantity: 'quantity',
  cost: 'cost',
  sales: 'sales',
  margin: `CASE WHEN contains(currency_key, '${PAIR_ARROW}') THEN NULL ELSE sales - cost END`,
  marginPercent: `CASE WHEN contains(currency_key, '${PAIR_ARROW}') OR sales = 0 THEN NULL ELSE (sales - cost) / sales END`,
};

/**
 * The order of siblings. Amounts of two currencies are never ranked against each other: rows go by currency (A→Z,
 * whichever the direction), by the value inside it, and rows without a value last. A level without quantities
 * (`quantities` false) sorted by quantity goes by name.
 */
function orderBy(sort: ReportSortInput, quantities: boolean): string {
  const byLabel = (direction: ReportSortInput['direction']) => `lower(label) ${direction === 'asc' ? 'ASC' : 'DESC'}, currency_key, key`;
  if (sort.key === 'label') return byLabel(sort.direction);
  if (sort.key === 'quantity' && !quantities) return byLabel('asc');
  const value = SORT_VALUE[sort.key];
  return `(${value}) IS NULL, currency_key, ${value} ${sort.direction === 'asc' ? 'ASC' : 'DESC'}, lower(label), key`;
}

const DEFAULT_SORT: ReportSortInput = { key: 'label', direction: 'asc' };

/** How many visible-tree states are kept per process: the last few filters a user flips between. */
const CACHED_STATES = 6;

/** The day of a date the service gave (`2026-10-07T00:00:00` → `2026-10-07`): the text cut, never shifted to a zone. */
function dayOf(value: string | null): string | null {
  const day = (value ?? '').slice(0, 10);
  return day === '' ? null : day;
}

const textOrNull = (value: string | null) => (value === null || value === '' ? null : value);

/** What every row of the tree gives: a top row, a row of the second level, a subscription, a billing line. */
const TREE_FIELDS = { key: 'text', currency_key: 'text', label: 'text?', detail: 'text?', lines: 'int', cost: 'decimal', sales: 'decimal' } as const;
type TreeSourceRow = Row<typeof TREE_FIELDS>;
const TOP_ROW = rowShape({ ...TREE_FIELDS, place: 'int' });
const OPEN_TOP = rowShape({ place: 'int', key: 'text' });
const SECOND_ROW = rowShape({ ...TREE_FIELDS, parent: 'text', service_nos: 'text', billing_date: 'text?' });
const SUBSCRIPTION_ROW = rowShape({ ...TREE_FIELDS, parent: 'text', po: 'text?', quantity: 'decimal' });
const LINE_ROW = rowShape({ ...TREE_FIELDS, parent: 'text', quantity: 'decimal', unit_cost: 'decimal', unit_price: 'decimal', billing_date: 'text?' });
const CURRENCY_SUM = rowShape({ currency_key: 'text', lines: 'int', cost: 'decimal', sales: 'decimal' });
const VALUE = rowShape({ value: 'text' });
const SERVICE_STATED = rowShape({ no: 'text', stated_cost: 'decimal', stated_sales: 'decimal', sum_cost: 'decimal', sum_sales: 'decimal', differs: 'bool' });
const SUBSCRIPTION_STATED = rowShape({ no: 'text', stated_cost: 'decimal', stated_sales: 'decimal', sum_cost: 'decimal', sum_sales: 'decimal' });

/**
 * The viewer's answers, from SQL: the filter choices, totals per currency, and windows of the visible tree
 * (organization per currency › service › subscription › billing line, or service per currency › organization ›
 * subscription › billing line). The top rows of a filter stay in the ledger (KeptTopRows) and the rows below open
 * ones are built once per expansion and kept, so scrolling asks for slices of a tree that already exists.
 */
export class ReportViewerQueries {
  private readonly trees = new Map<string, Promise<VisibleTree>>();
  /**
   * The top rows of recent filters (either arrangement, any sort): the totals per currency are their sums, so a
   * keystroke that asks for a window and the totals makes one pass over the lines, not two.
   */
  private readonly tops: KeptTopRows;

  constructor(
    private readonly ledger: () => Promise<Ledger>,
    private readonly library: ReportLibrary,
  ) {
    this.tops = new KeptTopRows(ledger, CACHED_STATES);
  }

  async view(reportId: string): Promise<ReportView> {
    const meta = await this.library.meta(reportId);
    const ledger = await this.ledger();
    const values = async (sql: string) => VALUE.all(await ledger.all(sql, [reportId])).map((row) => row.value);
    return {
      meta,
      groups: await values('SELECT DISTINCT group_name AS value FROM organization_groups WHERE report_id = $1 ORDER BY lower(group_name)'),
      services: await values('SELECT DISTINCT service_name AS value FROM services WHERE report_id = $1 ORDER BY lower(service_name)'),
      currencies: await values(`SELECT DISTINCT ${CURRENCY_KEY} AS value FROM services WHERE report_id = $1 ORDER BY value`),
    };
  }

  async totals(reportId: string, filter: ReportFilter): Promise<{ lineCount: number; totals: CurrencyTotalRow[] }> {
    await this.library.meta(reportId);
    // Any arrangement and sort of this filter's top rows will do (a window usually asked for it a moment ago); found
    // here, they are still kept when read below, so the query for the default ones is then not run.
    const prefix = `${passKey(reportId, filter)}|`;
    const key = this.tops.find(prefix) ?? topRowsKey(reportId, filter, 'organization', DEFAULT_SORT);
    return this.tops.read(
      key,
      () => topRowsQuery(reportId, filter, 'organization', DEFAULT_SORT),
      async (tops, ledger) =>
        totalsOf(
          CURRENCY_SUM.all(
            await ledger.all(`SELECT currency_key, sum(lines) AS lines, sum(cost) AS cost, sum(sales) AS sales FROM temp.${tops.table} GROUP BY currency_key`),
          ),
        ),
    );
  }

  async window(request: WindowRequest): Promise<ReportWindow> {
    const { reportId, filter, sort, hierarchy = 'organization', offset, count } = request;
    // Started before anything is awaited, so totals asked for in the same breath find these top rows and share them.
    const answer = this.tops.read(
      topRowsKey(reportId, filter, hierarchy, sort),
      () => topRowsQuery(reportId, filter, hierarchy, sort),
      async (tops, ledger) => {
        const tree = await this.tree(request, tops, ledger);
        return { tree, lineCount: tops.lines, slice: await sliceOf(tree, tops, ledger, hierarchy, offset, count) };
      },
    );
    answer.catch(() => undefined); // awaited below, unless the report is gone
    const meta = await this.library.meta(reportId);
    const { tree, lineCount, slice } = await answer;
    const mismatches = await this.mismatches(reportId, slice);
    return {
      rowCount: tree.rowCount,
      lineCount,
      totalLines: meta.counts.lines,
      offset,
      rows: slice.map(({ mismatchOf, ...row }) => ({
        ...row,
        ...margins(row.currencyKey, row.cost, row.sales),
        mismatch: mismatchOf ? (mismatches.get(mismatchOf) ?? null) : null,
      })),
    };
  }

  /** Forgets the kept trees of a report (it was deleted or replaced). */
  forget(reportId: string): void {
    for (const key of this.trees.keys()) if (key.startsWith(`${reportId}|`)) this.trees.delete(key);
    this.tops.forget(`${reportId}|`);
  }

  private tree(request: WindowRequest, tops: TopRows, ledger: Ledger): Promise<VisibleTree> {
    const { reportId, filter, sort, expansion, hierarchy = 'organization' } = request;
    const key = `${reportId}|${filterIdentity(filter)}|${JSON.stringify([hierarchy, sort, expansion.all, [...expansion.toggled].sort()])}`;
    let tree = this.trees.get(key);
    if (!tree) {
      tree = this.build(request, tops, ledger);
      remember(this.trees, key, tree);
    } else {
      this.trees.delete(key);
      this.trees.set(key, tree); // most recently used last
    }
    return tree;
  }

  private async build({ reportId, filter, sort, expansion, hierarchy = 'organization' }: WindowRequest, tops: TopRows, ledger: Ledger): Promise<VisibleTree> {
    const { where, params } = lineFilter(reportId, filter);
    const toggled = new Set(expansion.toggled);
    const next = `$${params.length + 1}`;
    const sums = (by: string, quantities: boolean) => `(${lineSums(where, by, quantities)}) a`;
    /** One level of the tree from `rows` (with key, parent, …); `within` keeps only the children of open rows, as a hash semi-join. */
    const level = async <S extends typeof SECOND_ROW | typeof SUBSCRIPTION_ROW>(shape: S, rows: string, quantities: boolean, open: string[] | null) =>
      shape.all(
        await ledger.all(
          `SELECT * FROM (${rows}) ${open ? `WHERE parent IN (SELECT unnest(${next}::VARCHAR[]))` : ''} ORDER BY ${orderBy(sort, quantities)}`,
          open ? [...params, open] : params,
        ),
      ) as ReturnType<S['all']>;
    const joinOrganizations = 'JOIN organizations o ON o.report_id = $1 AND o.org_no = a.org_no';
    const joinServices = 'JOIN services s ON s.report_id = $1 AND s.service_no = a.service_no';

    const allOpen = expansion.all === 'organizations';
    // The open top rows and their places: all but the toggled ones, or the toggled ones (none asked, none read).
    const toggledTops = toggled.size ? `${allOpen ? 'NOT ' : ''}(key IN (SELECT unnest($1::VARCHAR[])))` : null;
    const openTops =
      allOpen || toggledTops
        ? OPEN_TOP.all(
            await ledger.all(
              `SELECT place, key FROM temp.${tops.table} ${toggledTops ? `WHERE ${toggledTops}` : ''} ORDER BY place`,
              toggledTops ? [[...toggled]] : [],
            ),
          )
        : [];
    // Every top row open: no need to name them.
    const openNamed = allOpen && openTops.length === tops.count ? null : openTops.map((row) => row.key);
    const byOrganization = hierarchy === 'organization';
    // The second level: services of an organization (each service number, with its billing date), or organizations
    // with a service (its numbers in every billing entry, merged). `service_nos` is what its subscriptions hang from.
    const seconds = !openTops.length
      ? []
      : byOrganization
        ? await level(
            SECOND_ROW,
            `SELECT ${treeKeySql('service', 'a.service_no')} AS key, ${treeKeySql('organization', `${ORG_KEY} || '|' || a.currency_key`)} AS parent, a.currency_key, s.service_name AS label, '' AS detail,
               a.service_no::VARCHAR AS service_nos, e.billing_date, a.lines, a.cost, a.sales
             FROM ${sums('service_no, org_no', false)} ${joinOrganizations} ${joinServices}
             LEFT JOIN billing_entries e ON e.report_id = $1 AND e.entry_no = o.entry_no`,
            false,
            openNamed,
          )
        : await level(
            SECOND_ROW,
            `SELECT key, any_value(parent) AS parent, currency_key, min(label) AS label, min(detail) AS detail,
               string_agg(service_no::VARCHAR, ',' ORDER BY service_no) AS service_nos, NULL AS billing_date, sum(lines) AS lines, sum(cost) AS cost, sum(sales) AS sales
             FROM (SELECT ${treeKeySql('organizationUnderService', `a.currency_key || '|' || length(${SERVICE_KEY}) || '|' || ${SERVICE_KEY} || ${ORG_KEY}`)} AS key,
                     ${treeKeySql('serviceTop', `a.currency_key || '|' || ${SERVICE_KEY}`)} AS parent, a.currency_key, o.name AS label, o.customer_number AS detail, a.service_no, a.lines, a.cost, a.sales
                   FROM ${sums('service_no, org_no', false)} ${joinOrganizations} ${joinServices})
             GROUP BY key, currency_key`,
            false,
            openNamed,
          );
    const openSeconds = seconds.filter((row) => toggled.has(row.key));
    const secondOfService = new Map<string, string>(seconds.flatMap((row) => row.service_nos.split(',').map((no) => [treeKey('service', no), row.key])));
    const subscriptions = openSeconds.length
      ? await level(
          SUBSCRIPTION_ROW,
          `SELECT ${treeKeySql('subscription', 'a.subscription_no')} AS key, ${treeKeySql('service', 'a.service_no')} AS parent, a.currency_key, u.item_name AS label, u.po_number AS po, a.lines, a.quantity, a.cost, a.sales
           FROM ${sums('subscription_no, service_no', true)} JOIN subscriptions u ON u.report_id = $1 AND u.subscription_no = a.subscription_no`,
          true,
          openSeconds.flatMap((row) => row.service_nos.split(',').map((no) => treeKey('service', no))),
        )
      : [];
    const openSubscriptions = subscriptions.map((row) => row.key).filter((key) => toggled.has(key));
    const lines = openSubscriptions.length
      ? LINE_ROW.all(
          await ledger.all(
            `SELECT ${treeKeySql('line', 'l.line_no')} AS key, ${treeKeySql('subscription', 'l.subscription_no')} AS parent, ${CURRENCY_KEY} AS currency_key, l.product_name AS label, l.item_code AS detail,
             1 AS lines, l.quantity, l.cost_per_unit AS unit_cost, l.sales_per_unit AS unit_price, l.cost, l.sales, e.billing_date
           FROM billing_lines l JOIN organizations o ON o.report_id = $1 AND o.org_no = l.org_no
           LEFT JOIN billing_entries e ON e.report_id = $1 AND e.entry_no = o.entry_no
           WHERE ${where} AND (${treeKeySql('subscription', 'l.subscription_no')}) IN (SELECT unnest(${next}::VARCHAR[]))
           ORDER BY ${orderBy(sort, true)}`,
            [...params, openSubscriptions],
          ),
        )
      : [];

    const childrenOf = <R>(rows: R[], parentOf: (row: R) => string | undefined) => {
      const map = new Map<string, R[]>();
      for (const row of rows) {
        const parent = parentOf(row);
        if (parent === undefined) continue;
        const children = map.get(parent);
        if (children) children.push(row);
        else map.set(parent, [row]);
      }
      return map;
    };
    const secondsOf = childrenOf(seconds, (row) => row.parent);
    const subscriptionsOf = childrenOf(subscriptions, (row) => secondOfService.get(row.parent));
    const linesOf = childrenOf(lines, (row) => row.parent);
    const open = openTops.map((top) => {
      const below: RawRow[] = [];
      const push = (row: TreeSourceRow, level: TreeRow['level'], depth: number, open: boolean | null, fields: Partial<RawRow> = {}) =>
        below.push(rawRow(row, level, depth, open, fields));
      for (const second of secondsOf.get(top.key) ?? []) {
        const secondOpen = toggled.has(second.key);
        push(second, byOrganization ? 'service' : 'organization', 1, secondOpen, {
          billingDate: dayOf(second.billing_date),
          mismatchOf: treeKey('service', second.service_nos),
        });
        if (!secondOpen) continue;
        for (const subscription of subscriptionsOf.get(second.key) ?? []) {
          const subscriptionOpen = toggled.has(subscription.key);
          const poNumber = textOrNull(subscription.po);
          push(subscription, 'subscription', 2, subscriptionOpen, { detail: '', quantity: subscription.quantity, poNumber, mismatchOf: subscription.key });
          if (!subscriptionOpen) continue;
          for (const line of linesOf.get(subscription.key) ?? []) {
            push(line, 'line', 3, null, {
              quantity: line.quantity,
              unitCost: line.unit_cost,
              unitPrice: line.unit_price,
              poNumber,
              billingDate: dayOf(line.billing_date),
            });
          }
        }
      }
      return { at: top.place, below };
    });
    return { open, rowCount: open.reduce((sum, top) => sum + top.below.length, tops.count) };
  }

  /**
   * Stated totals that differ from the exact sum of the level below, for the rows of one window only: a service
   * against its subscriptions (a row that stands for several service numbers — an organization under a service, in
   * several billing entries — is flagged when any of them differs, with their sums), a subscription against its lines.
   */
  private async mismatches(reportId: string, rows: RawRow[]): Promise<Map<string, TreeRow['mismatch']>> {
    const serviceRows = [...new Set(rows.flatMap((row) => (row.mismatchOf && treeKeyId('service', row.mismatchOf) !== null ? [row.mismatchOf] : [])))];
    const services = [...new Set(serviceRows.flatMap((of) => (treeKeyId('service', of) ?? '').split(',')))];
    const subscriptions = rows.flatMap((row) => (row.mismatchOf ? (treeKeyId('subscription', row.mismatchOf) ?? []) : []));
    const found = new Map<string, TreeRow['mismatch']>();
    if (!services.length && !subscriptions.length) return found;
    const ledger = await this.ledger();
    if (services.length) {
      const stated = new Map(
        SERVICE_STATED.all(
          await ledger.all(
            `SELECT s.service_no AS no, s.stated_cost::VARCHAR AS stated_cost, s.stated_sales::VARCHAR AS stated_sales,
               coalesce(sum(u.stated_cost), 0)::VARCHAR AS sum_cost, coalesce(sum(u.stated_sales), 0)::VARCHAR AS sum_sales,
               s.stated_cost <> coalesce(sum(u.stated_cost), 0) OR s.stated_sales <> coalesce(sum(u.stated_sales), 0) AS differs
             FROM services s LEFT JOIN subscriptions u ON u.report_id = s.report_id AND u.service_no = s.service_no
             WHERE s.report_id = $1 AND list_contains($2, s.service_no::VARCHAR)
             GROUP BY s.service_no, s.stated_cost, s.stated_sales`,
            [reportId, services],
          ),
        ).map((row) => [row.no, row] as const),
      );
      for (const of of serviceRows) {
        const members = (treeKeyId('service', of) ?? '').split(',').flatMap((no) => stated.get(no) ?? []);
        if (!members.some((row) => row.differs)) continue;
        type Sum = 'stated_cost' | 'stated_sales' | 'sum_cost' | 'sum_sales';
        const sum = (column: Sum) => (members.length === 1 ? members[0]![column] : members.reduce((total, row) => total.plus(row[column]), money(0)).toFixed());
        found.set(of, { statedCost: sum('stated_cost'), statedSales: sum('stated_sales'), sumCost: sum('sum_cost'), sumSales: sum('sum_sales') });
      }
    }
    if (subscriptions.length) {
      const result = SUBSCRIPTION_STATED.all(
        await ledger.all(
          `SELECT u.subscription_no AS no, u.stated_cost::VARCHAR AS stated_cost, u.stated_sales::VARCHAR AS stated_sales,
           sum(l.cost)::VARCHAR AS sum_cost, sum(l.sales)::VARCHAR AS sum_sales
         FROM subscriptions u JOIN billing_lines l ON l.report_id = u.report_id AND l.subscription_no = u.subscription_no
         WHERE u.report_id = $1 AND list_contains($2, u.subscription_no::VARCHAR)
         GROUP BY u.subscription_no, u.stated_cost, u.stated_sales
         HAVING u.stated_cost <> sum(l.cost) OR u.stated_sales <> sum(l.sales)`,
          [reportId, subscriptions],
        ),
      );
      for (const row of result) {
        found.set(treeKey('subscription', row.no), {
          statedCost: row.stated_cost,
          statedSales: row.stated_sales,
          sumCost: row.sum_cost,
          sumSales: row.sum_sales,
        });
      }
    }
    return found;
  }
}

/**
 * The lines that pass the filter (`where`) summed by `by` and currency pair, on the lines table alone; grouped by
 * the two currency columns, so the pair's name is put together once per group rather than once per line.
 */
function lineSums(where: string, by: string, quantities: boolean): string {
  return `SELECT ${by}, ${CURRENCY_KEY} AS currency_key, count(*) AS lines, ${quantities ? 'sum(quantity) AS quantity, ' : ''}sum(cost) AS cost, sum(sales) AS sales
    FROM billing_lines l WHERE ${where} GROUP BY ${by}, currency, customer_currency`;
}

/** Where the top rows of a filter, an arrangement and a sort are kept. */
function topRowsKey(reportId: string, filter: ReportFilter, hierarchy: ReportHierarchy, sort: ReportSortInput): string {
  return `${passKey(reportId, filter)}|${hierarchy}|${sort.key} ${sort.direction}`;
}

/**
 * The top rows of a filter in an arrangement and a sort, each with its place (`place`, from 0): organizations (merged over the
 * billing entries they appear in) or services (merged over every organization), per currency pair.
 */
function topRowsQuery(reportId: string, filter: ReportFilter, hierarchy: ReportHierarchy, sort: ReportSortInput): { sql: string; params: LedgerValue[] } {
  const { where, params } = lineFilter(reportId, filter);
  const [by, named, join] =
    hierarchy === 'organization'
      ? [
          'org_no',
          `${treeKeySql('organization', `${ORG_KEY} || '|' || a.currency_key`)} AS key, o.name AS label, o.customer_number AS detail`,
          'JOIN organizations o ON o.report_id = $1 AND o.org_no = a.org_no',
        ]
      : [
          'service_no',
          `${treeKeySql('serviceTop', `a.currency_key || '|' || ${SERVICE_KEY}`)} AS key, s.service_name AS label, '' AS detail`,
          'JOIN services s ON s.report_id = $1 AND s.service_no = a.service_no',
        ];
  return {
    sql: `SELECT *, row_number() OVER (ORDER BY ${orderBy(sort, false)}) - 1 AS place FROM (
        SELECT key, currency_key, min(label) AS label, min(detail) AS detail, sum(lines) AS lines, sum(cost) AS cost, sum(sales) AS sales
        FROM (SELECT ${named}, a.currency_key, a.lines, a.cost, a.sales FROM (${lineSums(where, by, false)}) a ${join})
        GROUP BY key, currency_key)`,
    params,
  };
}

/** A visible row from its query row; `open` is null for a row with nothing below it. */
function rawRow(row: TreeSourceRow, level: TreeRow['level'], depth: number, open: boolean | null, fields: Partial<RawRow> = {}): RawRow {
  return {
    key: row.key,
    level,
    depth,
    label: row.label ?? '',
    detail: row.detail ?? '',
    currencyKey: row.currency_key,
    hasChildren: open !== null,
    expanded: open === true,
    lines: row.lines,
    quantity: null,
    unitCost: null,
    unitPrice: null,
    poNumber: null,
    billingDate: null,
    cost: row.cost,
    sales: row.sales,
    mismatchOf: null,
    ...fields,
  };
}

/**
 * The rows `offset … offset + count` of a tree: where they fall among the top rows and the rows below open ones,
 * the top rows among them read from their table by place.
 */
async function sliceOf(tree: VisibleTree, tops: TopRows, ledger: Ledger, hierarchy: ReportHierarchy, offset: number, count: number): Promise<RawRow[]> {
  const end = offset + count;
  const picked: (number | RawRow)[] = [];
  let visible = 0;
  let nextTop = 0;
  /** The top rows `from … to - 1`, shown one after the other from `visible` on. */
  const addTops = (from: number, to: number) => {
    for (let at = Math.max(from, from + offset - visible); at < Math.min(to, from + end - visible); at++) picked.push(at);
    visible += to - from;
  };
  for (const top of tree.open) {
    if (visible >= end) break;
    addTops(nextTop, top.at + 1);
    picked.push(...top.below.slice(Math.max(0, offset - visible), Math.max(0, end - visible)));
    visible += top.below.length;
    nextTop = top.at + 1;
  }
  if (visible < end) addTops(nextTop, tops.count);
  const places = picked.filter((entry): entry is number => typeof entry === 'number');
  if (!places.length) return picked as RawRow[];
  const read = TOP_ROW.all(await ledger.all(`SELECT * FROM temp.${tops.table} WHERE place BETWEEN $1 AND $2`, [places[0]!, places.at(-1)!]));
  const byPlace = new Map(read.map((row) => [row.place, row]));
  const open = new Set(tree.open.map((top) => top.at));
  const level = hierarchy === 'organization' ? 'organization' : 'service';
  return picked.map((entry) => (typeof entry === 'number' ? rawRow(byPlace.get(entry)!, level, 0, open.has(entry)) : entry));
}

/** Keeps a promise in a small most-recent-last cache; a failed one is dropped so the next ask tries again. */
function remember<T>(cache: Map<string, Promise<T>>, key: string, value: Promise<T>): void {
  value.catch(() => cache.delete(key));
  cache.delete(key);
  cache.set(key, value);
  while (cache.size > CACHED_STATES) cache.delete(cache.keys().next().value as string);
}

/** One key per report and filter, whatever the order or absence of the filter's fields. */
function passKey(reportId: string, filter: ReportFilter): string {
  return `${reportId}|${filterIdentity(filter)}`;
}

/** Totals per currency pair from sums per currency pair (exact decimals, never across currencies), A→Z. */
function totalsOf(tops: Row<typeof CURRENCY_SUM.columns>[]): { lineCount: number; totals: CurrencyTotalRow[] } {
  const sums = new Map<string, { lines: number; cost: Money; sales: Money }>();
  for (const row of tops) {
    const key = row.currency_key;
    const sum = sums.get(key) ?? { lines: 0, cost: money(0), sales: money(0) };
    sums.set(key, { lines: sum.lines + row.lines, cost: sum.cost.plus(row.cost), sales: sum.sales.plus(row.sales) });
  }
  const totals = [...sums.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currencyKey, sum]) => ({
      currencyKey,
      lines: sum.lines,
      cost: sum.cost.toFixed(6),
      sales: sum.sales.toFixed(6),
      ...margins(currencyKey, sum.cost.toFixed(6), sum.sales.toFixed(6)),
    }));
  return { lineCount: totals.reduce((total, row) => total + row.lines, 0), totals };
}

/** Margin and margin % where cost and sales are in one currency; null where they are not (never mixed). */
function margins(currencyKey: string, cost: string, sales: string): Margin {
  return marginOf(cost, sales, isSingleCurrency(currencyKey));
}
