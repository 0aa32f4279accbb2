import type { CurrencyTotalRow, ReportExpansion, ReportSortInput, ReportView, ReportWindow, TreeRow } from '../../../shared/contract';
import { marginPercent, type Money, money } from '../../../shared/money';
import type { ReportFilter } from '../../../shared/report-filter';
import type { Ledger, LedgerRow } from '../ledger/ledger';
import { CURRENCY_KEY, lineFilter, ORG_KEY } from './report-query';
import type { ReportLibrary } from './report-library';

export interface WindowRequest {
  reportId: string;
  filter: ReportFilter;
  sort: ReportSortInput;
  expansion: ReportExpansion;
  offset: number;
  count: number;
}

type Level = TreeRow['level'];
/** A visible row before margins are worked out (they are, for the rows of a window only). */
type RawRow = Omit<TreeRow, 'margin' | 'marginPercent' | 'mismatch'> & { mismatchOf: string | null };

interface VisibleTree {
  rows: RawRow[];
  lineCount: number;
}

const SORT_SQL: Record<ReportSortInput['key'], string> = {
  label: 'lower(label)',
  quantity: 'quantity',
  cost: 'cost',
  sales: 'sales',
  margin: 'sales - cost',
  // Rows without sales have no margin %: they rank lowest.
  marginPercent: 'CASE WHEN sales = 0 THEN NULL ELSE (sales - cost) / sales END',
};

function orderBy(sort: ReportSortInput): string {
  const direction = sort.direction === 'asc' ? 'ASC NULLS FIRST' : 'DESC NULLS LAST';
  return `${SORT_SQL[sort.key]} ${direction}, lower(label), currency_key, key`;
}

const DEFAULT_SORT: ReportSortInput = { key: 'label', direction: 'asc' };

/** How many visible-tree states are kept per process: the last few filters a user flips between. */
const CACHED_STATES = 6;

/**
 * The viewer's answers, from SQL: the filter choices, totals per currency, and windows of the visible tree
 * (organization per currency › service › subscription › billing line). The visible rows of one filter, sort and
 * expansion are built once and kept, so scrolling asks for slices of a list that already exists.
 */
export class ReportViewerQueries {
  private readonly trees = new Map<string, Promise<VisibleTree>>();
  /**
   * The organization rows of recent filters (any sort): the totals per currency are their sums, so a keystroke that
   * asks for a window and the totals makes one pass over the lines, not two.
   */
  private readonly organizationPasses = new Map<string, Promise<LedgerRow[]>>();

  constructor(
    private readonly ledger: () => Promise<Ledger>,
    private readonly library: ReportLibrary,
  ) {}

  async view(reportId: string): Promise<ReportView> {
    const meta = await this.library.meta(reportId);
    const ledger = await this.ledger();
    const values = async (sql: string) => (await ledger.all(sql, [reportId])).map((row) => String(row.value));
    return {
      meta,
      groups: await values('SELECT DISTINCT group_name AS value FROM organization_groups WHERE report_id = $1 ORDER BY lower(group_name)'),
      services: await values('SELECT DISTINCT service_name AS value FROM services WHERE report_id = $1 ORDER BY lower(service_name)'),
      currencies: await values(
        `SELECT DISTINCT CASE WHEN currency = customer_currency THEN currency ELSE currency || '→' || customer_currency END AS value FROM services WHERE report_id = $1 ORDER BY value`,
      ),
    };
  }

  async totals(reportId: string, filter: ReportFilter): Promise<{ lineCount: number; totals: CurrencyTotalRow[] }> {
    await this.library.meta(reportId);
    // Any sort of this filter's organization rows will do (a window usually asked for it a moment ago).
    const prefix = `${passKey(reportId, filter)}|`;
    const kept = [...this.organizationPasses.entries()].find(([key]) => key.startsWith(prefix))?.[1];
    return totalsOf(await (kept ?? this.organizationPass(reportId, filter, DEFAULT_SORT)));
  }

  async window(request: WindowRequest): Promise<ReportWindow> {
    const meta = await this.library.meta(request.reportId);
    const tree = await this.tree(request);
    const slice = tree.rows.slice(request.offset, request.offset + request.count);
    const mismatches = await this.mismatches(request.reportId, slice);
    return {
      rowCount: tree.rows.length,
      lineCount: tree.lineCount,
      totalLines: meta.counts.lines,
      offset: request.offset,
      rows: slice.map(({ mismatchOf, ...row }) => ({ ...row, ...margins(row.currencyKey, row.cost, row.sales), mismatch: mismatchOf ? (mismatches.get(mismatchOf) ?? null) : null })),
    };
  }

  /** Forgets the kept trees of a report (it was deleted or replaced). */
  forget(reportId: string): void {
    for (const map of [this.trees, this.organizationPasses]) for (const key of map.keys()) if (key.startsWith(`${reportId}|`)) map.delete(key);
  }

  private tree(request: WindowRequest): Promise<VisibleTree> {
    const { reportId, filter, sort, expansion } = request;
    const key = `${reportId}|${JSON.stringify([filter, sort, expansion.all, [...expansion.toggled].sort()])}`;
    let tree = this.trees.get(key);
    if (!tree) {
      tree = this.build(request);
      tree.catch(() => this.trees.delete(key));
      remember(this.trees, key, tree);
    } else {
      this.trees.delete(key);
      this.trees.set(key, tree); // most recently used last
    }
    return tree;
  }

  private async build({ reportId, filter, sort, expansion }: WindowRequest): Promise<VisibleTree> {
    const ledger = await this.ledger();
    const { where, params } = lineFilter(reportId, filter);
    const toggled = new Set(expansion.toggled);
    const next = `$${params.length + 1}`;
    /**
     * One level of the tree: the lines that pass the filter summed by `by` (numbers on the lines table alone), then
     * named from their small table. `within` keeps only the children of open rows, as a hash semi-join.
     */
    const level = (by: string, named: string, joins: string, within: string | null, open: string[]) =>
      ledger.all(
        `SELECT * FROM (
           SELECT ${named}, a.lines, a.quantity, a.cost, a.sales
           FROM (SELECT ${by}, ${CURRENCY_KEY} AS currency_key, count(*) AS lines, sum(quantity) AS quantity, sum(cost) AS cost, sum(sales) AS sales
                 FROM billing_lines l WHERE ${where} GROUP BY ${by}, currency_key) a
           ${joins}
         ) ${within ? `WHERE ${within} IN (SELECT unnest(${next}::VARCHAR[]))` : ''}
         ORDER BY ${orderBy(sort)}`,
        within ? [...params, open] : params,
      );

    const organizations = await this.organizationPass(reportId, filter, sort);
    const lineCount = organizations.reduce((sum, row) => sum + Number(row.lines), 0);
    const allOpen = expansion.all === 'organizations';
    const openOrganizations = organizations.map((row) => String(row.key)).filter((key) => allOpen !== toggled.has(key));
    const orgKey = `'o:' || ${ORG_KEY} || '|' || a.currency_key`;
    const services = openOrganizations.length
      ? await level(
          'service_no, org_no',
          `'s:' || a.service_no AS key, ${orgKey} AS parent, a.currency_key, s.service_name AS label, o.entry_no`,
          'JOIN organizations o ON o.report_id = $1 AND o.org_no = a.org_no JOIN services s ON s.report_id = $1 AND s.service_no = a.service_no',
          // Every organization open and none closed: no need to name them.
          allOpen && openOrganizations.length === organizations.length ? null : 'parent',
          openOrganizations,
        )
      : [];
    const billingDates = services.length ? await this.billingDates(reportId) : new Map<string, string>();
    const openServices = services.map((row) => String(row.key)).filter((key) => toggled.has(key));
    const subscriptions = openServices.length
      ? await level(
          'subscription_no, service_no',
          `'u:' || a.subscription_no AS key, 's:' || a.service_no AS parent, a.currency_key, u.item_name AS label, u.po_number AS po`,
          'JOIN subscriptions u ON u.report_id = $1 AND u.subscription_no = a.subscription_no',
          'parent',
          openServices,
        )
      : [];
    const openSubscriptions = subscriptions.map((row) => String(row.key)).filter((key) => toggled.has(key));
    const lines = openSubscriptions.length
      ? await ledger.all(
          `SELECT 'l:' || line_no AS key, 'u:' || subscription_no AS parent, ${CURRENCY_KEY} AS currency_key, product_name AS label, item_code AS detail,
             1 AS lines, quantity, cost, sales
           FROM billing_lines l WHERE ${where} AND ('u:' || subscription_no) IN (SELECT unnest(${next}::VARCHAR[]))
           ORDER BY ${orderBy(sort)}`,
          [...params, openSubscriptions],
        )
      : [];

    const childrenOf = (rows: LedgerRow[]) => {
      const map = new Map<string, LedgerRow[]>();
      for (const row of rows) map.set(String(row.parent), [...(map.get(String(row.parent)) ?? []), row]);
      return map;
    };
    const servicesOf = childrenOf(services);
    const subscriptionsOf = childrenOf(subscriptions);
    const linesOf = childrenOf(lines);
    const rows: RawRow[] = [];
    const push = (row: LedgerRow, level: Level, depth: number, detail: string, hasChildren: boolean, expanded: boolean, mismatchOf: string | null) =>
      rows.push({
        key: String(row.key), level, depth, label: String(row.label ?? ''), detail, currencyKey: String(row.currency_key), hasChildren, expanded,
        lines: Number(row.lines), quantity: row.quantity === null ? null : String(row.quantity), cost: String(row.cost), sales: String(row.sales), mismatchOf,
      });
    for (const organization of organizations) {
      const key = String(organization.key);
      const open = openOrganizations.includes(key);
      push(organization, 'organization', 0, String(organization.detail ?? ''), true, open, null);
      if (!open) continue;
      for (const service of servicesOf.get(key) ?? []) {
        const serviceOpen = toggled.has(String(service.key));
        push(service, 'service', 1, billingDates.get(String(service.entry_no)) ?? '', true, serviceOpen, String(service.key));
        if (!serviceOpen) continue;
        for (const subscription of subscriptionsOf.get(String(service.key)) ?? []) {
          const subscriptionOpen = toggled.has(String(subscription.key));
          push(subscription, 'subscription', 2, subscription.po ? `PO ${String(subscription.po)}` : '', true, subscriptionOpen, String(subscription.key));
          if (!subscriptionOpen) continue;
          for (const line of linesOf.get(String(subscription.key)) ?? []) push(line, 'line', 3, String(line.detail ?? ''), false, false, null);
        }
      }
    }
    return { rows, lineCount };
  }

  /**
   * The organization rows of a filter in a sort: summed per organization number and currency pair, then merged by
   * organization (one that appears in several billing entries is one row). Kept for a few filters, and shared with
   * the totals, which are their sums.
   */
  private organizationPass(reportId: string, filter: ReportFilter, sort: ReportSortInput): Promise<LedgerRow[]> {
    const key = `${passKey(reportId, filter)}|${sort.key} ${sort.direction}`;
    const kept = this.organizationPasses.get(key);
    if (kept) return kept;
    const { where, params } = lineFilter(reportId, filter);
    const pass = this.ledger().then((ledger) =>
      ledger.all(
        `SELECT * FROM (
         SELECT key, currency_key, any_value(name) AS label, any_value(detail) AS detail, sum(lines) AS lines, sum(quantity) AS quantity, sum(cost) AS cost, sum(sales) AS sales
         FROM (SELECT 'o:' || ${ORG_KEY} || '|' || a.currency_key AS key,
                 a.currency_key, o.name, o.customer_number AS detail, a.lines, a.quantity, a.cost, a.sales
               FROM (SELECT org_no, ${CURRENCY_KEY} AS currency_key, count(*) AS lines, sum(quantity) AS quantity, sum(cost) AS cost, sum(sales) AS sales
                     FROM billing_lines l WHERE ${where} GROUP BY org_no, currency_key) a
               JOIN organizations o ON o.report_id = $1 AND o.org_no = a.org_no)
         GROUP BY key, currency_key) ORDER BY ${orderBy(sort)}`,
        params,
      ),
    );
    remember(this.organizationPasses, key, pass);
    return pass;
  }

  private async billingDates(reportId: string): Promise<Map<string, string>> {
    const rows = await (await this.ledger()).all('SELECT entry_no, billing_date FROM billing_entries WHERE report_id = $1', [reportId]);
    return new Map(rows.map((row) => [String(row.entry_no), String(row.billing_date ?? '').slice(0, 10)]));
  }

  /**
   * Stated totals that differ from the exact sum of the level below (a service against its subscriptions, a
   * subscription against its billing lines), for the rows of one window only.
   */
  private async mismatches(reportId: string, rows: RawRow[]): Promise<Map<string, TreeRow['mismatch']>> {
    const services = rows.filter((row) => row.mismatchOf?.startsWith('s:')).map((row) => Number(row.key.slice(2)));
    const subscriptions = rows.filter((row) => row.mismatchOf?.startsWith('u:')).map((row) => Number(row.key.slice(2)));
    const found = new Map<string, TreeRow['mismatch']>();
    if (!services.length && !subscriptions.length) return found;
    const ledger = await this.ledger();
    const collect = (prefix: string, result: LedgerRow[]) => {
      for (const row of result) {
        found.set(`${prefix}${String(row.no)}`, { statedCost: String(row.stated_cost), statedSales: String(row.stated_sales), sumCost: String(row.sum_cost), sumSales: String(row.sum_sales) });
      }
    };
    if (services.length) {
      collect(
        's:',
        await ledger.all(
          `SELECT s.service_no AS no, s.stated_cost::VARCHAR AS stated_cost, s.stated_sales::VARCHAR AS stated_sales,
             coalesce(sum(u.stated_cost), 0)::VARCHAR AS sum_cost, coalesce(sum(u.stated_sales), 0)::VARCHAR AS sum_sales
           FROM services s LEFT JOIN subscriptions u ON u.report_id = s.report_id AND u.service_no = s.service_no
           WHERE s.report_id = $1 AND list_contains($2, s.service_no::VARCHAR)
           GROUP BY s.service_no, s.stated_cost, s.stated_sales
           HAVING s.stated_cost <> coalesce(sum(u.stated_cost), 0) OR s.stated_sales <> coalesce(sum(u.stated_sales), 0)`,
          [reportId, services.map(String)],
        ),
      );
    }
    if (subscriptions.length) {
      collect(
        'u:',
        await ledger.all(
          `SELECT u.subscription_no AS no, u.stated_cost::VARCHAR AS stated_cost, u.stated_sales::VARCHAR AS stated_sales,
             sum(l.cost)::VARCHAR AS sum_cost, sum(l.sales)::VARCHAR AS sum_sales
           FROM subscriptions u JOIN billing_lines l ON l.report_id = u.report_id AND l.subscription_no = u.subscription_no
           WHERE u.report_id = $1 AND list_contains($2, u.subscription_no::VARCHAR)
           GROUP BY u.subscription_no, u.stated_cost, u.stated_sales
           HAVING u.stated_cost <> sum(l.cost) OR u.stated_sales <> sum(l.sales)`,
          [reportId, subscriptions.map(String)],
        ),
      );
    }
    return found;
  }
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
  return `${reportId}|${JSON.stringify([filter.group ?? '', filter.organization?.trim() ?? '', filter.service ?? '', filter.currency ?? '', filter.text?.trim() ?? ''])}`;
}

/** Totals per currency pair from organization rows: exact decimal sums, never across currencies. */
function totalsOf(organizations: LedgerRow[]): { lineCount: number; totals: CurrencyTotalRow[] } {
  const sums = new Map<string, { lines: number; cost: Money; sales: Money }>();
  for (const row of organizations) {
    const key = String(row.currency_key);
    const sum = sums.get(key) ?? { lines: 0, cost: money(0), sales: money(0) };
    sums.set(key, { lines: sum.lines + Number(row.lines), cost: sum.cost.plus(String(row.cost)), sales: sum.sales.plus(String(row.sales)) });
  }
  const totals = [...sums.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currencyKey, sum]) => ({ currencyKey, lines: sum.lines, cost: sum.cost.toFixed(6), sales: sum.sales.toFixed(6), ...margins(currencyKey, sum.cost.toFixed(6), sum.sales.toFixed(6)) }));
  return { lineCount: totals.reduce((total, row) => total + row.lines, 0), totals };
}

/** Margin and margin % where cost and sales are in one currency; null where they are not (never mixed). */
function margins(currencyKey: string, cost: string, sales: string): { margin: string | null; marginPercent: string | null } {
  if (currencyKey.includes('→')) return { margin: null, marginPercent: null };
  const percent = marginPercent(money(cost), money(sales));
  return { margin: money(sales).minus(cost).toFixed(), marginPercent: percent === null ? null : percent.toFixed(2) };
}
