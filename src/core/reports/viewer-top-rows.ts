import type { Ledger, LedgerValue } from '@core/ledger/ledger';
import { BackgroundWork } from '../runtime/background-work';
import { type CurrencySum, currencySums } from './queries/viewer';

/**
 * The top rows of one filter, arrangement and sort, kept in the ledger (`place` is each row's place, 0-based), with
 * their sums per currency pair — read once when they are made, as the window's line count and the totals need them.
 */
export interface TopRows {
  table: string;
  count: number;
  lines: number;
  sums: CurrencySum[];
}

/** The statement of a filter's top rows, made when they are not kept (it may read the ledger first). */
export type TopRowsQuery = () => Promise<{ sql: string; params: LedgerValue[] }>;

interface Kept {
  table: string;
  rows: Promise<TopRows>;
  /** The ledger whose reading connection holds the table: one opened again (LedgerHandle) holds none of them. */
  ledger: Ledger;
  users: number;
  evicted: boolean;
}

/**
 * The top rows (organizations or services per currency pair) of the last few filters, each a temporary table of the
 * ledger's reading connection. At 1,000,000 lines a filter keeps tens of thousands of them, and bringing them all into
 * JavaScript cost more than summing the lines: a window takes its slice, the totals their per-currency sums, in SQL.
 * A table no longer kept is dropped once no read of it is running, in the background once the read that let it go
 * has answered (a drop before the next table's making was up to 10 ms of a keystroke); whoever closes the ledger
 * waits for the drops first (settled).
 */
export class KeptTopRows {
  private readonly kept = new Map<string, Kept>();
  private readonly unused: string[] = [];
  private readonly dropping = new BackgroundWork();
  private made = 0;

  constructor(
    private readonly ledger: () => Promise<Ledger>,
    private readonly capacity: number,
  ) {}

  /** Runs `read` on the top rows of `key`, made from `query` (rows with the column `place`) unless they are kept. */
  async read<T>(key: string, query: TopRowsQuery, read: (rows: TopRows, ledger: Ledger) => Promise<T>): Promise<T> {
    const ledger = await this.ledger();
    const kept = this.keep(key, query, ledger);
    kept.users += 1;
    try {
      return await read(await kept.rows, ledger);
    } finally {
      kept.users -= 1;
      this.dropIfUnused(kept);
      this.dropUnused(ledger);
    }
  }

  /** Resolves once every table let go so far is dropped (or failed to be): the ledger may close only after. */
  settled(): Promise<void> {
    return this.dropping.settled();
  }

  /**
   * Makes the top rows of `key` for a read about to come, unless they are kept; settles when they are made. A failure
   * is that read's to see (it makes them again).
   */
  prepare(key: string, query: TopRowsQuery): Promise<void> {
    return this.read(key, query, async () => undefined).catch(() => undefined);
  }

  /** Lets go of every kept table whose key starts with `prefix` (a report deleted or replaced); dropped with the next one made. */
  forget(prefix: string): void {
    for (const key of [...this.kept.keys()]) if (key.startsWith(prefix)) this.evict(key);
  }

  private keep(key: string, query: TopRowsQuery, ledger: Ledger): Kept {
    const found = this.kept.get(key);
    if (found && found.ledger !== ledger)
      this.kept.delete(key); // its table went with the ledger closed
    else if (found) {
      this.kept.delete(key);
      this.kept.set(key, found); // most recently used last
      return found;
    }
    // The oldest is given up first: dropped once this read has answered.
    while (this.kept.size >= this.capacity) this.evict(this.kept.keys().next().value as string);
    const table = `viewer_top_rows_${++this.made}`;
    const kept: Kept = { table, rows: this.make(ledger, table, query), ledger, users: 0, evicted: false };
    kept.rows.catch(() => this.kept.get(key) === kept && this.kept.delete(key)); // the next read tries again
    this.kept.set(key, kept);
    return kept;
  }

  private async make(ledger: Ledger, table: string, query: TopRowsQuery): Promise<TopRows> {
    const { sql, params } = await query();
    await ledger.keepTemporary(table, sql, params);
    const sums = await currencySums(ledger, table);
    return { table, sums, count: sums.reduce((total, sum) => total + sum.tops, 0), lines: sums.reduce((total, sum) => total + sum.lines, 0) };
  }

  private evict(key: string): void {
    const kept = this.kept.get(key);
    if (!kept) return;
    this.kept.delete(key);
    kept.evicted = true;
    this.dropIfUnused(kept);
  }

  /**
   * Drops the tables let go, in the background. A table that cannot be dropped is left to go with the connection (on
   * a ledger opened anew, it went with the one before): no read fails for it.
   */
  private dropUnused(ledger: Ledger): void {
    if (!this.unused.length) return;
    const tables = this.unused.splice(0);
    this.dropping.add(
      (async () => {
        for (const table of tables) await ledger.dropTemporary(table).catch(() => undefined);
      })(),
    );
  }

  private dropIfUnused(kept: Kept): void {
    if (!kept.evicted || kept.users > 0) return;
    kept.users = -1; // given up once; no read of it is running, so its making is over (a failed one left no table)
    this.unused.push(kept.table);
  }
}
