import {
  type CurrencyTotalRow,
  OPENING_SORT,
  type ReportExpansion,
  type ReportHierarchy,
  type ReportSortInput,
  type ReportView,
  type ReportWindow,
  type TreeRow,
} from '@shared/contract';
import { type Money, money } from '@shared/money';
import { filterIdentity, type ReportFilter } from '@shared/report-filter';
import { treeKey, treeKeyId } from '@shared/model/tree-keys';
import { isSingleCurrency } from '@shared/model/currency-pair';
import { type Margin, marginOf } from '@shared/model/margin';
import type { Ledger } from '@core/ledger/ledger';
import type { ReportLibrary } from './report-library';
import type { NameOrders } from './name-orders';
import { KeptTopRows, type TopRows } from './viewer-top-rows';
import { TypedWordMatches } from './typed-word-matches';
import { BackgroundWork } from '../runtime/background-work';
import { forgetStartingWith, recentAnswer } from '../runtime/recent-map';
import { AppError } from '@shared/errors';
import { PerReport } from './per-report';
import { levelNumbers, type LineCondition, lineFilter, searchTextRead, typedWords } from './queries/lines';
import {
  type CurrencySum,
  filterChoices,
  keptTopRowsBetween,
  openTopRows,
  statedServiceSums,
  subscriptionsUnlikeTheirLines,
  topRowKey,
  type TopName,
  topRowNames,
  topRowsQuery,
  treeLevels,
  type TreeSourceRow,
} from './queries/viewer';

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

/** How many visible-tree states are kept per process: the last few filters a user flips between. */
const CACHED_STATES = 6;
/**
 * Of how many reports and arrangements the top rows' names are kept: the months a user flips between (a
 * 1,000,000-line month has about 10,000 organizations and 60,000 services).
 */
const NAMED_REPORTS = 4;

/** A report's organizations or services by number (topRowNames): what its top rows show. */
type TopNames = Map<number, TopName>;

/** The day of a date the service gave (`2026-10-07T00:00:00` → `2026-10-07`): the text cut, never shifted to a zone. */
function dayOf(value: string | null): string | null {
  const day = (value ?? '').slice(0, 10);
  return day === '' ? null : day;
}

const textOrNull = (value: string | null) => (value === null || value === '' ? null : value);

/**
 * The viewer's answers, from SQL: the filter choices, totals per currency, and windows of the visible tree
 * (organization per currency › service › subscription › billing line, or service per currency › organization ›
 * subscription › billing line). The top rows of a filter stay in the ledger (KeptTopRows) and the rows below open
 * ones are built once per expansion and kept, so scrolling asks for slices of a tree that already exists.
 */
export class ReportViewerQueries {
  private readonly trees = new Map<string, Promise<VisibleTree>>();
  private readonly lineCounts = new PerReport((reportId) => this.library.lineCount(reportId));
  /**
   * The bounds of a typed word's matches (see wordMatches), read ahead from the month's opening beside its first
   * window, as its search text is: read after that window on the reading connection (13–17 ms at 1,000,000 lines, a
   * pass over the lines), a word typed at once waited for them.
   */
  private readonly levelNumbers = new PerReport(async (reportId) => levelNumbers(await this.ledger(), reportId, { ahead: true }));
  /**
   * A typed word's first statement reads every level's search text from disk into DuckDB's memory: 208 ms of the
   * first keystroke at 1,000,000 lines, 21–25 ms for a word after it. It is read ahead from the month's opening, on a
   * connection of its own (Ledger.readAhead) beside the first window: read after that window on the reading
   * connection, a keystroke typed at once queued behind it (at 1,000,000 lines the first filter 136–180 ms against
   * 99–126 ms now, the opening about 50 ms longer; three runs each, alternating).
   */
  private readonly searchRead = new PerReport(async (reportId) => {
    const { sql, params } = searchTextRead(reportId);
    await (await this.ledger()).readAhead(sql, params);
  });
  /** The matches of the words typed last: a word typed on is looked for among what the word before it matched. */
  private readonly typedMatches = new TypedWordMatches();
  /**
   * The top rows of recent filters (either arrangement, any sort): a window's totals per currency are their sums, so
   * a keystroke makes one pass over the lines.
   */
  private readonly tops: KeptTopRows;
  /** The names of recent reports' top rows, per arrangement (`<report>|<hierarchy>`): a window names its rows from them. */
  private readonly names = new Map<string, Promise<TopNames>>();
  /** Work started ahead of the viewer (see view). */
  private readonly background = new BackgroundWork();

  constructor(
    private readonly ledger: () => Promise<Ledger>,
    private readonly library: ReportLibrary,
    private readonly orders: NameOrders,
  ) {
    this.tops = new KeptTopRows(ledger, CACHED_STATES);
  }

  /**
   * The summary and filter choices of a report. Given the arrangement the viewer will show first, its first top
   * rows (no filter, OPENING_SORT) are started as this answer goes: at 1,000,000 lines they take about 0.2 s, which
   * then overlaps the answer's way to the viewer and its first render.
   */
  async view(reportId: string, firstHierarchy?: ReportHierarchy): Promise<ReportView> {
    const meta = await this.library.meta(reportId);
    const view = { meta, ...(await filterChoices(await this.ledger(), reportId, await this.orders.of(reportId))) };
    this.background.add(this.firstKeystrokeReads(reportId));
    if (firstHierarchy) {
      this.background.add(
        this.tops.prepare(topRowsKey(reportId, {}, firstHierarchy, OPENING_SORT), async () =>
          topRowsQuery(lineFilter(reportId, {}, undefined), firstHierarchy, OPENING_SORT),
        ),
      );
      this.background.add(this.namesOf(reportId, firstHierarchy).then(noAnswer, noAnswer)); // a failure is the window's to see
    }
    return view;
  }

  /** Waits for the work started ahead of the viewer (see view) and the top rows' drops: the ledger may close only after them. */
  async settled(): Promise<void> {
    await this.background.settled();
    await this.tops.settled();
  }

  async window(request: WindowRequest): Promise<ReportWindow> {
    const { reportId, filter, sort, hierarchy = 'organization', offset } = request;
    await this.orders.of(reportId); // the top rows sort by the names' ranks; kept after the first read, so a keystroke waits for nothing here
    const names = this.namesOf(reportId, hierarchy);
    names.catch(noAnswer); // awaited below, unless the report is gone
    const words = typedWords(filter);
    // Made once for this answer, and only if rows not kept need it: typed words' matches are a statement of their own.
    const condition = once(async () =>
      lineFilter(
        reportId,
        filter,
        words.length ? await this.typedMatches.of(await this.ledger(), reportId, words, await this.levelNumbers.of(reportId)) : undefined,
      ),
    );
    // Started before anything is awaited, so the line count below is read while DuckDB makes the top rows.
    const answer = this.tops.read(
      topRowsKey(reportId, filter, hierarchy, sort),
      async () => topRowsQuery(await condition(), hierarchy, sort),
      async (tops, ledger) => {
        const tree = await this.tree(request, tops, ledger, condition);
        return { tree, sums: tops.sums, slice: await sliceOf(tree, tops, ledger, names, request) };
      },
    );
    answer.catch(() => undefined); // awaited below, unless the report is gone
    const totalLines = await this.lineCounts.of(reportId);
    const { tree, sums, slice } = await answer;
    const mismatches = await this.mismatches(reportId, slice);
    // Either arrangement's top rows hold every line once: their sums per currency are the filter's totals.
    const { lineCount, totals } = totalsOf(sums);
    // The bounds of a typed filter, read while this answer is shown, and the search text (if the month was not opened
    // through view), so that the first keystroke waits for neither (a failure is that keystroke's to see).
    if (!words.length) this.background.add(this.firstKeystrokeReads(reportId));
    return {
      rowCount: tree.rowCount,
      lineCount,
      totalLines,
      offset,
      rows: slice.map(({ mismatchOf, ...row }) => ({
        ...row,
        ...margins(row.currencyKey, row.cost, row.sales),
        mismatch: mismatchOf ? (mismatches.get(mismatchOf) ?? null) : null,
      })),
      totals,
    };
  }

  /** What a month's first typed word reads first (its level numbers and search text), read ahead once; a failure is that word's to see. */
  private firstKeystrokeReads(reportId: string): Promise<void> {
    return Promise.all([this.levelNumbers.of(reportId), this.searchRead.of(reportId)]).then(noAnswer, noAnswer);
  }

  /** Forgets the kept trees of a report (it was deleted or replaced), or of every report (names in another order). */
  forget(reportId?: string): void {
    const prefix = reportId === undefined ? '' : `${reportId}|`;
    forgetStartingWith(this.trees, prefix);
    this.lineCounts.forget(reportId);
    this.levelNumbers.forget(reportId);
    this.searchRead.forget(reportId);
    this.typedMatches.forget(reportId);
    this.tops.forget(prefix);
    forgetStartingWith(this.names, prefix);
  }

  private namesOf(reportId: string, hierarchy: ReportHierarchy): Promise<TopNames> {
    return recentAnswer(this.names, `${reportId}|${hierarchy}`, NAMED_REPORTS, async () => {
      const names = await topRowNames(await this.ledger(), reportId, hierarchy);
      return new Map(names.map((name) => [name.no, name]));
    });
  }

  private tree(request: WindowRequest, tops: TopRows, ledger: Ledger, condition: () => Promise<LineCondition>): Promise<VisibleTree> {
    const { reportId, filter, sort, expansion, hierarchy = 'organization' } = request;
    const key = `${reportId}|${filterIdentity(filter)}|${JSON.stringify([hierarchy, sort, expansion.all, [...expansion.toggled].sort()])}`;
    return recentAnswer(this.trees, key, CACHED_STATES, () => this.build(request, tops, ledger, condition));
  }

  private async build(
    { reportId, sort, expansion, hierarchy = 'organization' }: WindowRequest,
    tops: TopRows,
    ledger: Ledger,
    condition: () => Promise<LineCondition>,
  ): Promise<VisibleTree> {
    const order = await this.orders.of(reportId);
    const levels = once(async () => treeLevels(ledger, await condition(), sort, order));
    const toggled = new Set(expansion.toggled);
    const allOpen = expansion.all === 'organizations';
    const openTops = await openTopRows(ledger, tops.table, reportId, hierarchy, allOpen, [...toggled]);
    // Every top row open: no need to name them.
    const openNamed = allOpen && openTops.length === tops.count ? null : openTops.map((row) => row.key);
    const byOrganization = hierarchy === 'organization';
    const seconds = !openTops.length
      ? []
      : byOrganization
        ? await (await levels()).servicesOfOrganizations(openNamed)
        : await (await levels()).organizationsOfServices(openNamed);
    const openSeconds = seconds.filter((row) => toggled.has(row.key));
    const secondOfService = new Map<string, string>(seconds.flatMap((row) => row.service_nos.split(',').map((no) => [treeKey('service', no), row.key])));
    const subscriptions = openSeconds.length
      ? await (await levels()).subscriptions(openSeconds.flatMap((row) => row.service_nos.split(',').map((no) => treeKey('service', no))))
      : [];
    const openSubscriptions = subscriptions.map((row) => row.key).filter((key) => toggled.has(key));
    const lines = openSubscriptions.length ? await (await levels()).lines(openSubscriptions) : [];

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
      const stated = new Map((await statedServiceSums(ledger, reportId, services)).map((row) => [row.no, row] as const));
      for (const of of serviceRows) {
        const members = (treeKeyId('service', of) ?? '').split(',').flatMap((no) => stated.get(no) ?? []);
        if (!members.some((row) => row.differs)) continue;
        type Sum = 'stated_cost' | 'stated_sales' | 'sum_cost' | 'sum_sales';
        const sum = (column: Sum) => (members.length === 1 ? members[0]![column] : members.reduce((total, row) => total.plus(row[column]), money(0)).toFixed());
        found.set(of, { statedCost: sum('stated_cost'), statedSales: sum('stated_sales'), sumCost: sum('sum_cost'), sumSales: sum('sum_sales') });
      }
    }
    if (subscriptions.length) {
      const result = await subscriptionsUnlikeTheirLines(ledger, reportId, subscriptions);
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

/** Where the top rows of a filter, an arrangement and a sort are kept. */
function topRowsKey(reportId: string, filter: ReportFilter, hierarchy: ReportHierarchy, sort: ReportSortInput): string {
  return `${passKey(reportId, filter)}|${hierarchy}|${sort.key} ${sort.direction}`;
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
async function sliceOf(
  tree: VisibleTree,
  tops: TopRows,
  ledger: Ledger,
  names: Promise<TopNames>,
  { hierarchy = 'organization', offset, count }: WindowRequest,
): Promise<RawRow[]> {
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
  const read = await keptTopRowsBetween(ledger, tops.table, places[0]!, places.at(-1)!);
  const named = await names;
  const nameOf = (no: number) => {
    const name = named.get(no);
    // The top rows are made from the same saved month as its names: one missing is a mistake in Closebook.
    if (!name) throw new AppError('internal', `A row of the report names number ${no}, which the month does not hold. Please report this.`);
    return name;
  };
  const byPlace = new Map(
    read.map((row) => {
      const name = nameOf(row.label_no);
      const detail = row.detail_no === null ? name.detail : nameOf(row.detail_no).detail;
      const source: TreeSourceRow = {
        key: topRowKey(hierarchy, name, row.currency_key),
        currency_key: row.currency_key,
        label: name.label,
        detail,
        lines: row.lines,
        cost: row.cost,
        sales: row.sales,
      };
      return [row.place, source] as const;
    }),
  );
  const open = new Set(tree.open.map((top) => top.at));
  const level = hierarchy === 'organization' ? 'organization' : 'service';
  return picked.map((entry) => (typeof entry === 'number' ? rawRow(byPlace.get(entry)!, level, 0, open.has(entry)) : entry));
}

const noAnswer = () => undefined;

/** `make` run at the first call, its answer shared by the calls after. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/** One key per report and filter, whatever the order or absence of the filter's fields. */
function passKey(reportId: string, filter: ReportFilter): string {
  return `${reportId}|${filterIdentity(filter)}`;
}

/** Totals per currency pair from sums per currency pair (exact decimals, never across currencies), A→Z. */
function totalsOf(tops: CurrencySum[]): { lineCount: number; totals: CurrencyTotalRow[] } {
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
