import type { CurrencyTotalRow, ReportExpansion, ReportHierarchy, ReportSortInput, ReportWindow, TreeRow } from '@shared/contract';
import { filterIdentity, type ReportFilter } from '@shared/report-filter';

export type { ReportFilter } from '@shared/report-filter';

/** Everything that decides which rows the tree shows, in which order. */
export interface TreeQuery {
  reportId: string;
  filter: ReportFilter;
  sort: ReportSortInput;
  expansion: ReportExpansion;
  /** Organization › service, or service › organization: another tree, with keys of its own. */
  hierarchy: ReportHierarchy;
}

export type FetchWindow = (request: TreeQuery & { offset: number; count: number }) => Promise<ReportWindow>;

/** What the viewer draws: the counts of one tree state and the rows of it fetched so far. */
export interface TreeSnapshot {
  stateKey: string;
  /** The list these rows belong to (listKeyOf): a new one is shown from its top, without the old one's selection. */
  listKey: string;
  /** The filter these rows answer. */
  filter: ReportFilter;
  rowCount: number;
  lineCount: number;
  totalLines: number;
  /** The totals per currency of the lines these rows show (they came with the rows). */
  totals: CurrencyTotalRow[];
  /** The row at `index`, or undefined while its window is not here yet. */
  rowAt(index: number): TreeRow | undefined;
  /** Where the row with `key` stands, among the rows fetched so far. */
  indexOf(key: string): number | undefined;
}

export interface TreeWindowCacheOptions {
  /** Rows per request (the contract allows up to 500). */
  pageSize?: number;
  /** Pages kept per state; the ones farthest from view go first, so memory stays flat however far one scrolls. */
  maxPages?: number;
  /** Requests at once: while the user drags the scrollbar, only where the view ends up is worth asking for. */
  maxInFlight?: number;
}

interface LoadedState {
  generation: number;
  stateKey: string;
  listKey: string;
  filter: ReportFilter;
  rowCount: number;
  lineCount: number;
  totalLines: number;
  totals: CurrencyTotalRow[];
  pages: Map<number, TreeRow[]>;
}

/** One string per tree state; the order of toggled keys does not matter. */
export function stateKeyOf(query: TreeQuery): string {
  const { reportId, filter, sort, expansion, hierarchy } = query;
  return JSON.stringify([reportId, hierarchy, filterIdentity(filter), sort, expansion.all, [...expansion.toggled].sort()]);
}

/** Which list a state shows: its report, filter, sort and hierarchy — rows opened or closed are the same list. */
export function listKeyOf(query: TreeQuery): string {
  const { reportId, filter, sort, hierarchy } = query;
  return JSON.stringify([reportId, hierarchy, filterIdentity(filter), sort]);
}

/**
 * Windows of the report tree, fetched around what is in view and cached by offset for the current state only.
 * A new state (filter, sort, hierarchy, expansion) starts a new generation: answers for older ones are dropped, and the rows
 * of the previous state stay on screen until the first window of the new one arrives (no flash of empty rows).
 */
export class TreeWindowCache {
  private readonly pageSize: number;
  private readonly maxPages: number;
  private readonly maxInFlight: number;
  private generation = 0;
  private query: TreeQuery | null = null;
  private stateKey = '';
  private loaded: LoadedState | null = null;
  private readonly inFlight = new Set<number>();
  private failed = false;
  private wanted = { start: 0, end: 0 };

  constructor(
    private readonly fetchWindow: FetchWindow,
    private readonly onChange: (snapshot: TreeSnapshot) => void,
    private readonly onError: (error: unknown) => void,
    options: TreeWindowCacheOptions = {},
  ) {
    this.pageSize = options.pageSize ?? 200;
    this.maxPages = options.maxPages ?? 40;
    this.maxInFlight = options.maxInFlight ?? 2;
    this.wanted = { start: 0, end: this.pageSize - 1 };
  }

  /** Shows `query`; a state already shown keeps its cache. */
  setQuery(query: TreeQuery): void {
    const stateKey = stateKeyOf(query);
    if (stateKey === this.stateKey) return;
    // The viewer goes back to the top on a new filter, sort or hierarchy (not on opening rows): ask for the top first.
    const previous = this.query;
    if (previous && listKeyOf(previous) !== listKeyOf(query)) {
      this.wanted = { start: 0, end: this.wanted.end - this.wanted.start };
    }
    this.query = query;
    this.stateKey = stateKey;
    this.generation += 1;
    this.inFlight.clear();
    this.failed = false;
    this.fill();
  }

  /** The rows the view needs (visible plus a margin to prefetch), inclusive. */
  setWanted(start: number, end: number): void {
    this.wanted = { start: Math.max(0, start), end: Math.max(start, end) };
    this.fill();
  }

  /**
   * The rows `start … end` of the state shown now (e.g. a range the user selected): from the cache, and the pages
   * it has not (or no longer) got asked for. Fails if the state changes meanwhile.
   */
  async rowsIn(start: number, end: number): Promise<TreeRow[]> {
    const { generation, query } = this;
    const current = this.current();
    if (!query || !current) throw new Error('The rows are still on their way.');
    const last = Math.min(end, current.rowCount - 1);
    const rows: TreeRow[] = [];
    for (let offset = Math.floor(Math.max(0, start) / this.pageSize) * this.pageSize; offset <= last; offset += this.pageSize) {
      const page = current.pages.get(offset) ?? (await this.fetchWindow({ ...query, offset, count: this.pageSize })).rows;
      if (generation !== this.generation) throw new Error('The tree changed while its rows were read: select them again.');
      rows.push(...page.slice(Math.max(0, start - offset), last - offset + 1));
    }
    return rows;
  }

  /** Asks again after a failed window. */
  retry(): void {
    this.failed = false;
    this.fill();
  }

  /** Drops every answer still to come (the viewer closed). A later setQuery starts afresh (StrictMode remounts). */
  dispose(): void {
    this.generation += 1;
    this.query = null;
    this.stateKey = '';
    this.inFlight.clear();
  }

  private current(): LoadedState | null {
    return this.loaded?.generation === this.generation ? this.loaded : null;
  }

  private fill(): void {
    if (!this.query || this.failed) return;
    const current = this.current();
    if (current?.rowCount === 0) return;
    // Until the first answer of a state, its row count is unknown: ask for what is wanted and learn it.
    const last = current ? Math.min(this.wanted.end, current.rowCount - 1) : this.wanted.end;
    const first = Math.floor(this.wanted.start / this.pageSize) * this.pageSize;
    for (let offset = first; offset <= Math.max(first, last); offset += this.pageSize) {
      if (this.inFlight.size >= this.maxInFlight) return;
      if (current?.pages.has(offset) || this.inFlight.has(offset)) continue;
      void this.load(offset);
    }
  }

  private async load(offset: number): Promise<void> {
    const { generation, query, stateKey } = this;
    if (!query) return;
    this.inFlight.add(offset);
    let window: ReportWindow;
    try {
      window = await this.fetchWindow({ ...query, offset, count: this.pageSize });
    } catch (error) {
      if (generation !== this.generation) return;
      this.inFlight.delete(offset);
      this.failed = true;
      this.onError(error);
      return;
    }
    if (generation !== this.generation) return; // an answer for a state no longer shown
    this.inFlight.delete(offset);
    const current = this.current();
    const pages = new Map(current?.pages ?? []);
    pages.set(offset, window.rows);
    this.evictFarPages(pages, offset);
    const { rowCount, lineCount, totalLines } = window;
    // Every window of a state brings the same totals: the first's stay, so scrolling does not redraw them.
    const totals = current?.totals ?? window.totals;
    this.loaded = { generation, stateKey, listKey: listKeyOf(query), filter: query.filter, rowCount, lineCount, totalLines, totals, pages };
    this.onChange(this.snapshot(this.loaded));
    this.fill(); // the view may have moved while this answer was on its way
  }

  private evictFarPages(pages: Map<number, TreeRow[]>, keep: number): void {
    if (pages.size <= this.maxPages) return;
    const centre = (this.wanted.start + this.wanted.end) / 2;
    const byDistance = [...pages.keys()].filter((offset) => offset !== keep).sort((a, b) => Math.abs(b - centre) - Math.abs(a - centre));
    for (const offset of byDistance.slice(0, pages.size - this.maxPages)) pages.delete(offset);
  }

  private snapshot(state: LoadedState): TreeSnapshot {
    const { pageSize } = this;
    return {
      stateKey: state.stateKey,
      listKey: state.listKey,
      filter: state.filter,
      rowCount: state.rowCount,
      lineCount: state.lineCount,
      totalLines: state.totalLines,
      totals: state.totals,
      rowAt: (index) => {
        const offset = Math.floor(index / pageSize) * pageSize;
        return state.pages.get(offset)?.[index - offset];
      },
      indexOf: (key) => {
        for (const [offset, rows] of state.pages) {
          const at = rows.findIndex((row) => row.key === key);
          if (at >= 0) return offset + at;
        }
        return undefined;
      },
    };
  }
}
