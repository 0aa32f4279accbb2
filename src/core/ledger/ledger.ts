import { constants } from 'node:fs';
import { access, chmod, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import {
  type DuckDBAppender,
  DuckDBBitValue,
  DuckDBBlobValue,
  DuckDBBlobVector,
  type DuckDBConnection,
  type DuckDBDataChunk,
  DuckDBInstance,
  type DuckDBResultReader,
  type DuckDBValue,
  listValue,
} from '@duckdb/node-api';
import { AppError } from '@shared/errors';
import { SerialQueue } from '../storage/atomic-file';
import { isDiskFull } from '../storage/file-errors';
import { type OutputFolder, outputsFor } from '../storage/output-file';
import type { Logger } from '../ports/ports';
import { APPENDED, type AppendedTable, MIGRATIONS } from './schema';
import { errorMessage } from '@shared/error-message';

/**
 * A set of bits DuckDB made (a BIT value), read by bitSets and bound to a later statement as it came: a constant there,
 * where the same set made inside that statement would be joined to every row.
 */
export class LedgerBits {
  private share: number | undefined;

  constructor(readonly value: DuckDBBitValue) {}

  /** The share of its bits that are set, 0 to 1 (counted once: 1–2 ms for 600,000 bits). */
  setShare(): number {
    if (this.share !== undefined) return this.share;
    // DuckDB's BIT: a byte saying how many bits pad the next one, then the bits, the padding (bits set) first.
    const { data, length } = this.value;
    const padding = data[0] ?? 0;
    let set = -(BITS_SET[(data[1] ?? 0) & ((0xff << (8 - padding)) & 0xff)] ?? 0);
    for (let at = 1; at < data.length; at++) set += BITS_SET[data[at] ?? 0] ?? 0;
    this.share = length ? set / length : 0;
    return this.share;
  }
}

/** How many bits each byte value has set. */
const BITS_SET = Uint8Array.from({ length: 256 }, (_, byte) => [...byte.toString(2)].filter((bit) => bit === '1').length);

/** A value bound to a query or appended to a row: text (VARCHAR, exact DECIMAL text), whole numbers, null, a list of text, or a set of bits. */
export type LedgerValue = string | number | null | readonly string[] | LedgerBits;

function bound(params: LedgerValue[]): DuckDBValue[] {
  return params.map((value) => (value instanceof LedgerBits ? value.value : Array.isArray(value) ? listValue(value) : value) as DuckDBValue);
}
/** A result row as JSON: DECIMAL and BIGINT come back as exact strings. */
export type LedgerRow = Record<string, string | number | boolean | null>;

export interface RowAppender {
  row(values: LedgerValue[]): void;
  /** Hands buffered rows to the transaction, so a query in it sees them. */
  flush(): void;
}

/** What a write sees: statements, appenders and reads on the writing connection, inside one transaction. */
export interface LedgerTransaction {
  run(sql: string, params?: LedgerValue[]): Promise<void>;
  all(sql: string, params?: LedgerValue[]): Promise<LedgerRow[]>;
  appender(table: AppendedTable): Promise<RowAppender>;
}

/** Statements on one connection, as a transaction runs them (or, before it, a derivation's `prepare`: DeriveSteps). */
export type LedgerStatements = Pick<LedgerTransaction, 'run' | 'all'>;

/**
 * How a derivation (Ledger.derive) is made beyond its kept rows: `prepare` runs first on its connection, each
 * statement committed on its own — the temporary tables it makes on its way, and derived rows that stand on their own
 * (a month's product lines). DuckDB makes and reads temporary tables inside a transaction 1.3 to 1.9 times slower: in
 * a million-line comparison, naming the changes took 3.7 s against 2.9 s, keeping them 2.2–3.1 s against 1.5–1.6 s.
 * `memoryShare`: the share of the ledger's memory limit DuckDB is held to meanwhile (for memory it holds outside its
 * limit; see queries/compare.ts).
 */
export interface DeriveSteps {
  prepare?: (steps: LedgerStatements) => Promise<void>;
  memoryShare?: number;
}

/** Every row of a query on one connection, as objects by column name. */
async function rowsOn(connection: DuckDBConnection, sql: string, params: LedgerValue[]): Promise<LedgerRow[]> {
  return (await connection.runAndReadAll(sql, bound(params))).getRowObjectsJson() as LedgerRow[];
}

/** Statements and reads on one connection, as a write's transaction (or a read-only ledger's derived tables) runs them. */
function statementsOn(connection: DuckDBConnection): LedgerStatements {
  return {
    run: async (sql, params = []) => {
      await connection.run(sql, bound(params));
    },
    all: (sql, params = []) => rowsOn(connection, sql, params),
  };
}

/** Derived results are written by statements only. */
const noAppender = (): Promise<RowAppender> => Promise.reject(new AppError('internal', 'Derived results take no appended rows.'));

/** The column that marks the row a streamed query ends with (endMarked). */
const END_MARK = 'closebook_stream_end';

/**
 * `sql` with one row of its own after all of its rows, marked in a column of its own (UNION ALL keeps their order).
 * DuckDB, through @duckdb/node-api, ends a stream that fails part-way (interrupted, out of memory) just as one that is
 * complete: an Invoices tab once listed 1,971 of a month's 10,000 invoices so. A stream that ends without that row
 * was cut short, and fails (LedgerReadCutShort) instead of handing on part of an answer.
 */
function endMarked(sql: string): string {
  return `SELECT *, NULL::BOOLEAN AS ${END_MARK} FROM (${sql.trim().replace(/;$/, '')}\n) UNION ALL BY NAME SELECT true AS ${END_MARK}`;
}

async function* streamRows(connection: DuckDBConnection, sql: string, params: LedgerValue[]): AsyncGenerator<LedgerRow[]> {
  const result = await connection.stream(endMarked(sql), bound(params));
  let ended = false;
  for await (const rows of result.yieldRowObjectJson()) {
    if (rows.at(-1)?.[END_MARK] === true) {
      rows.pop();
      ended = true;
    }
    // The mark is each row's last property: V8 takes it off without making the row a slower kind of object (about
    // 0.1 s a million rows).
    for (const row of rows) delete row[END_MARK];
    if (rows.length) yield rows as LedgerRow[];
  }
  if (!ended) throw new LedgerReadCutShort();
}

const NOT_BYTES = 'Bytes were asked for, and DuckDB answered another kind of value.';

/** A one-column query's BLOB values joined into one buffer (NULLs left out). */
function joinedBytes(values: DuckDBValue[]): Buffer {
  const parts: Uint8Array[] = [];
  for (const value of values) {
    if (value instanceof DuckDBBlobValue) parts.push(value.bytes);
    else if (value !== null) throw new AppError('internal', NOT_BYTES);
  }
  return Buffer.concat(parts);
}

/**
 * A chunk's first column of BLOBs joined into one buffer (NULLs left out), each value's bytes read as DuckDB holds
 * them: as values (getItem) each is copied once more before the join — at 345,774 changes, the listing's bytes took
 * JavaScript 0.45–0.5 s against 0.62–0.7 s.
 */
function chunkBytes(chunk: DuckDBDataChunk): Buffer {
  const vector = chunk.getColumnVector(0);
  if (!(vector instanceof DuckDBBlobVector)) throw new AppError('internal', NOT_BYTES);
  const parts: Uint8Array[] = [];
  for (let index = 0; index < chunk.rowCount; index++) {
    const bytes = vector.getItemBytes(index);
    if (bytes) parts.push(bytes); // a view into the chunk for a short value: the join copies it before the chunk goes
  }
  return Buffer.concat(parts);
}

async function* streamBytes(connection: DuckDBConnection, sql: string, params: LedgerValue[]): AsyncGenerator<Buffer> {
  const result = await connection.stream(endMarked(sql), bound(params));
  let ended = false;
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    ended = chunk.getColumnVector(1).getItem(chunk.rowCount - 1) === true;
    yield chunkBytes(chunk); // the end's own row has no bytes (NULL)
  }
  if (!ended) throw new LedgerReadCutShort();
}

export interface LedgerOptions {
  /** DuckDB's memory limit; its default (80 % of RAM) would break the memory goal of a 1,000,000-line month. */
  memoryLimitMb?: number;
  threads?: number;
}

export const LEDGER_FILE = 'closebook.duckdb';

/**
 * The ledger: one DuckDB file in `ledger/` in the data folder holding every saved month. One process may open it
 * (DuckDB locks the file); a second one gets a clear refusal naming the first. Writes run one at a time, each in
 * one transaction, so a crash leaves the previous state; reads run beside them on their own connection.
 */
export class Ledger {
  private readonly writes = new SerialQueue();
  /** Derived results are made one at a time, beside the writes (derive). */
  private readonly derivations = new SerialQueue();
  /** Set when DuckDB has invalidated this instance (see `failed`): it answers nothing more, so LedgerHandle opens a new one. */
  private invalidated = false;
  /**
   * The calls into DuckDB not yet answered. Closing a connection while a statement of it still runs deadlocks
   * DuckDB's Node client as the statement ends (its context's destructor waits for the lock that statement holds),
   * and a process then never exits: `close` waits for these first.
   */
  private readonly running = new Set<Promise<unknown>>();
  /** Set when `close` starts (its closing): a call made from then on is refused, so the calls already running are all it waits for. */
  private closed: Promise<void> | null = null;
  /** The shares of the memory limit that work under way holds DuckDB to (holdingMemory): the smallest is in force. */
  private readonly memoryHolds: number[] = [];

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly writer: DuckDBConnection,
    private readonly reader: DuckDBConnection,
    readonly dir: string,
    /** What DuckDB may use: a read that works in steps sizes them by it. */
    readonly memoryLimitMb: number,
    /** Where exports are written before they are moved to the user's path: the only other folder DuckDB may write. */
    readonly outputs: OutputFolder,
    /** The data folder, when it is read-only: then every write is refused in words. */
    private readonly readOnlyFolder: string | null = null,
  ) {}

  static async open(dataDir: string, log: Logger, options: LedgerOptions = {}): Promise<Ledger> {
    const dir = join(dataDir, 'ledger');
    const memoryLimitMb = options.memoryLimitMb ?? 512;
    const outputs = outputsFor(dataDir);
    const readOnly = await isReadOnlyFolder(dataDir);
    // A read-only data folder (a read-only disk or share) still opens: months can be listed, opened and exported,
    // DuckDB spilling to the staging folder outside it; nothing can be saved.
    const temporary = readOnly ? await outputs.folder() : join(dir, 'spill');
    if (!readOnly) {
      await mkdir(temporary, { recursive: true, mode: 0o700 });
      await chmod(dir, 0o700);
    } else if (
      !(await access(join(dir, LEDGER_FILE)).then(
        () => true,
        () => false,
      ))
    ) {
      throw new AppError(
        'storage',
        `Closebook's data folder ${dataDir} is read-only and holds no saved months yet. Make it writable (or choose another data folder with CLOSEBOOK_DATA_DIR) to save months.`,
      );
    }
    let instance: DuckDBInstance;
    try {
      instance = await DuckDBInstance.create(join(dir, LEDGER_FILE), {
        memory_limit: `${memoryLimitMb}MB`,
        threads: String(options.threads ?? 2),
        temp_directory: temporary,
        autoinstall_known_extensions: 'false',
        autoload_known_extensions: 'false',
        ...(readOnly ? { access_mode: 'READ_ONLY' } : {}),
      });
    } catch (error) {
      throw openError(error, join(dir, LEDGER_FILE));
    }
    const connections: DuckDBConnection[] = [];
    const connect = async () => {
      const connection = await instance.connect();
      connections.push(connection);
      return connection;
    };
    try {
      const writer = await connect();
      await confine(writer, [dir, await outputs.folder()]);
      const ledger = new Ledger(instance, writer, await connect(), dir, memoryLimitMb, outputs, readOnly ? dataDir : null);
      await ledger.migrate(log);
      if (!readOnly) await ledger.ownerOnly();
      return ledger;
    } catch (error) {
      // A ledger that could not be brought up to date (a full disk) is let go whole, its file no longer held: the next
      // use, or another process, opens it afresh. Nothing runs on it: every step above was awaited.
      for (const connection of connections) connection.closeSync();
      instance.closeSync();
      throw error;
    }
  }

  /** Reads on the reading connection; it sees the last committed state, never a write in progress. */
  all(sql: string, params: LedgerValue[] = []): Promise<LedgerRow[]> {
    return this.read(sql, params, (reader) => reader.getRowObjectsJson() as LedgerRow[]);
  }

  /** The one row of a query whose columns are sets of bits (BIT), each as DuckDB made it (null where the column is NULL). */
  bitSets(sql: string, params: LedgerValue[] = []): Promise<(LedgerBits | null)[]> {
    return this.read(sql, params, (reader) =>
      (reader.getRows()[0] ?? []).map((value) => {
        if (value === null) return null;
        if (value instanceof DuckDBBitValue) return new LedgerBits(value);
        throw new AppError('internal', 'A set of bits was asked for, and DuckDB answered another kind of value.');
      }),
    );
  }

  /**
   * `all` for a read that `signal` can stop (a view typed over by a newer one): on a connection of its own, which
   * DuckDB interrupts when the signal aborts; the read then fails as 'cancelled'. In a read-only ledger, whose derived
   * tables are the reading connection's alone, it is read there and runs to its end.
   */
  async stoppableAll(sql: string, params: LedgerValue[], signal: AbortSignal): Promise<LedgerRow[]> {
    if (this.readOnlyFolder) return this.all(sql, params);
    return this.onItsOwn(
      async (connection) => {
        const stop = () => connection.interrupt();
        signal.addEventListener('abort', stop, { once: true });
        try {
          if (signal.aborted) throw readStopped();
          return await this.tracked(() => rowsOn(connection, sql, params));
        } finally {
          signal.removeEventListener('abort', stop);
        }
      },
      (error) => (signal.aborted ? readStopped() : this.failed(error)),
    );
  }

  /**
   * A read ahead of its use (it brings tables into DuckDB's memory, or answers what a later read will need), on a
   * connection of its own: the reading connection runs one statement at a time, and a read ahead there made the reads
   * after it queue behind it. It reads the ledger's own tables only, never a derived one (those may be the reading
   * connection's).
   */
  async readAhead(sql: string, params: LedgerValue[] = []): Promise<LedgerRow[]> {
    return this.onItsOwn((connection) => this.tracked(() => rowsOn(connection, sql, params)));
  }

  /** A read on the reading connection, its answer taken whole by `take`. */
  private read<T>(sql: string, params: LedgerValue[], take: (reader: DuckDBResultReader) => T): Promise<T> {
    return this.tracked(async () => {
      try {
        return take(await this.reader.runAndReadAll(sql, bound(params)));
      } catch (error) {
        throw this.failed(error);
      }
    });
  }

  /**
   * Keeps a query's answer as a temporary table of the reading connection (`name` is the caller's, never user text),
   * so later reads take slices of it instead of bringing every row into JavaScript. Gone when the ledger closes.
   */
  async keepTemporary(name: string, sql: string, params: LedgerValue[] = []): Promise<void> {
    await this.tracked(() => this.reader.run(`CREATE OR REPLACE TEMP TABLE ${name} AS ${sql}`, bound(params))).catch((error: unknown) => {
      throw this.failed(error);
    });
  }

  async dropTemporary(name: string): Promise<void> {
    await this.tracked(() => this.reader.run(`DROP TABLE IF EXISTS temp.${name}`));
  }

  /** Streams a large result in chunks (exports): memory stays flat whatever the number of rows. */
  stream(sql: string, params: LedgerValue[] = []): AsyncGenerator<LedgerRow[]> {
    return this.streamOnItsOwn((connection) => streamRows(connection, sql, params));
  }

  /**
   * Streams a one-column query of BLOBs (text made by DuckDB, `encode(…)`) over derived tables (see derive), each
   * chunk's values joined into one buffer, on a connection of its own as `stream` does: a large text crosses into
   * JavaScript as bytes, never as hundreds of thousands of strings (a listing of 345,774 changes: 1.4–1.9 s against
   * 2.3–2.8 s as strings joined). In a read-only ledger the derived tables are temporary tables of the reading
   * connection, which no other connection sees: read there, whole.
   */
  async *streamDerivedBytes(sql: string, params: LedgerValue[] = []): AsyncGenerator<Buffer> {
    if (this.readOnlyFolder) yield await this.read(sql, params, (reader) => joinedBytes(reader.getColumns()[0] ?? []));
    else yield* this.streamOnItsOwn((connection) => streamBytes(connection, sql, params));
  }

  /** A stream's steps on a connection of its own, closed however the stream ends. */
  private async *streamOnItsOwn<T>(steps: (connection: DuckDBConnection) => AsyncGenerator<T>): AsyncGenerator<T> {
    const connection = await this.tracked(() => this.instance.connect());
    try {
      yield* this.trackedSteps(steps(connection));
    } catch (error) {
      throw this.failed(error);
    } finally {
      connection.closeSync();
    }
  }

  /** `work` on a connection of its own, closed however it ends; a failure is said as `failure` says it (the ledger's words). */
  private async onItsOwn<T>(work: (connection: DuckDBConnection) => Promise<T>, failure = (error: unknown) => this.failed(error)): Promise<T> {
    const connection = await this.tracked(() => this.instance.connect());
    try {
      return await work(connection);
    } catch (error) {
      throw failure(error);
    } finally {
      connection.closeSync();
    }
  }

  /** Runs a statement outside any write transaction (COPY … TO, CHECKPOINT): in a read-only ledger too, as an export is no change. */
  async run(sql: string, params: LedgerValue[] = []): Promise<void> {
    await this.writes
      .run(() => this.tracked(() => this.writer.run(sql, bound(params))))
      .catch((error: unknown) => {
        throw isFatal(error) ? this.failed(error) : error; // a failed COPY is named by the export, for the user's file
      });
  }

  /** One write, all or nothing: committed when `work` resolves, rolled back when it throws. */
  write<T>(work: (transaction: LedgerTransaction) => Promise<T>): Promise<T> {
    if (this.readOnlyFolder) return Promise.reject(readOnlyError(this.readOnlyFolder));
    return this.writes.run(() => this.tracked(() => this.transaction(work)));
  }

  /** One write's transaction on the writing connection (see write). */
  private async transaction<T>(work: (transaction: LedgerTransaction) => Promise<T>): Promise<T> {
    await this.writer.run('BEGIN TRANSACTION');
    const appenders: DuckDBAppender[] = [];
    const transaction: LedgerTransaction = {
      ...statementsOn(this.writer),
      appender: async (table) => {
        const appender = await this.writer.createAppender(table);
        appenders.push(appender);
        const width = APPENDED[table].length;
        return {
          row: (values) => {
            if (values.length !== width) throw new AppError('internal', `A ${table} row needs ${width} values, not ${values.length}.`);
            for (const value of values) {
              if (value === null) appender.appendNull();
              else if (typeof value === 'number') appender.appendInteger(value);
              else if (typeof value === 'string')
                appender.appendVarchar(value); // VARCHAR as is, DECIMAL from its exact text
              else throw new AppError('internal', `Only text, numbers and nulls can be appended to ${table}.`);
            }
            appender.endRow();
          },
          flush: () => appender.flushSync(),
        };
      },
    };
    try {
      const result = await work(transaction);
      for (const appender of appenders.splice(0)) appender.closeSync();
      await this.writer.run('COMMIT');
      return result;
    } catch (error) {
      for (const appender of appenders.splice(0)) {
        try {
          appender.closeSync();
        } catch {
          // the rollback below discards whatever it held
        }
      }
      await this.writer.run('ROLLBACK').catch(() => undefined);
      throw this.failed(error, 'write');
    }
  }

  /** True when the data folder is read-only: nothing can be saved there. */
  get readOnly(): boolean {
    return this.readOnlyFolder !== null;
  }

  /**
   * Keeps what is derived from saved months (a comparison, a month's exceptions), all or nothing, in a transaction
   * on a connection of its own: derived results are written to tables no user action writes, so making one (seconds
   * at a million lines) never holds up a review or a rename; derivations run one at a time among themselves. In a
   * read-only ledger nothing can be saved, so `work` fills temporary tables of the reading connection instead, made
   * from `tables` (name → column declarations) and shadowing the saved ones: kept for this session only. `steps`:
   * what is prepared before the transaction, and the memory it is made in (DeriveSteps).
   */
  derive<T>(tables: Record<string, string>, work: (transaction: LedgerTransaction) => Promise<T>, steps: DeriveSteps = {}): Promise<T> {
    if (this.readOnlyFolder) {
      return this.derivations.run(() =>
        this.tracked(async () => {
          for (const [table, columns] of Object.entries(tables)) await this.reader.run(`CREATE TEMP TABLE IF NOT EXISTS ${table} (${columns})`);
          return this.inDerivationMemory(steps, async () => {
            await steps.prepare?.(statementsOn(this.reader));
            return work({ ...statementsOn(this.reader), appender: noAppender });
          });
        }),
      );
    }
    return this.derivations.run(() => this.tracked(() => this.derivedTransaction(work, steps)));
  }

  /** A derived result, prepared and then kept in a transaction, on a connection of its own (see derive). */
  private async derivedTransaction<T>(work: (transaction: LedgerTransaction) => Promise<T>, steps: DeriveSteps): Promise<T> {
    const connection = await this.instance.connect();
    try {
      return await this.inDerivationMemory(steps, async () => {
        await steps.prepare?.(statementsOn(connection));
        await connection.run('BEGIN TRANSACTION');
        try {
          const result = await work({ ...statementsOn(connection), appender: noAppender });
          await connection.run('COMMIT');
          return result;
        } catch (error) {
          await connection.run('ROLLBACK').catch(() => undefined);
          throw error;
        }
      });
    } catch (error) {
      throw this.failed(error, 'write');
    } finally {
      connection.closeSync();
    }
  }

  /** Runs `work` with DuckDB held to the derivation's share of the memory limit, if it names one (holdingMemory). */
  private inDerivationMemory<T>(steps: DeriveSteps, work: () => Promise<T>): Promise<T> {
    return steps.memoryShare === undefined ? work() : this.holdingMemory(steps.memoryShare, work);
  }

  /**
   * Runs `work` with DuckDB held to `share` (0–1) of the ledger's memory limit: for work whose process grows past
   * DuckDB's limit, by memory DuckDB holds outside it (a whole comparison, a month's save), so the process stays
   * within its own. The limit is the whole instance's: while several such works overlap the smallest share holds,
   * and the whole limit comes back when the last one ends, however it ends.
   */
  async holdingMemory<T>(share: number, work: () => Promise<T>): Promise<T> {
    this.memoryHolds.push(share);
    try {
      await this.applyMemoryLimit();
      return await work();
    } finally {
      this.memoryHolds.splice(this.memoryHolds.indexOf(share), 1);
      // A ledger closed meanwhile has no limit left to put back.
      await this.applyMemoryLimit().catch((error: unknown) => {
        if (!this.closed) throw error;
      });
    }
  }

  /**
   * holdingMemory for a read that can be made again: if DuckDB runs out of memory so held (or a stream of it is cut
   * short), `work` is run once more at the whole limit, so a month larger than the share was measured on is slower,
   * never refused for it.
   */
  async holdingMemoryIfItFits<T>(share: number, work: () => Promise<T>): Promise<T> {
    try {
      return await this.holdingMemory(share, work);
    } catch (error) {
      if (!isOutOfMemory(error) && !(error instanceof LedgerReadCutShort)) throw error;
      return work();
    }
  }

  private applyMemoryLimit(): Promise<void> {
    const megabytes = Math.floor(this.memoryLimitMb * Math.min(1, ...this.memoryHolds));
    return this.tracked(async () => {
      const connection = await this.instance.connect();
      try {
        await connection.run(`SET memory_limit = '${megabytes}MB'`);
      } finally {
        connection.closeSync();
      }
    });
  }

  /**
   * Folds what was written since the last checkpoint (kept in DuckDB's write-ahead log) into the database file now,
   * as closing would: a process about to end does it while it does other work (see Service.ledger).
   */
  foldIn(): Promise<void> {
    return this.run('CHECKPOINT');
  }

  /**
   * A consistent copy of the whole ledger in a new database file, made by the database (not a file copy, which
   * could catch it mid-write) in the staging folder, and moved to `path` when complete. The copy is checkpointed
   * and detached before it counts as made: until then part of it may be only in its write-ahead log, so a failure
   * there (a disk that fills) is the backup's, never a file moved into place without it.
   */
  async backup(path: string): Promise<void> {
    await this.outputs.write(path, (partial) =>
      this.writes.run(() =>
        this.tracked(async () => {
          const copying = (async () => {
            await this.writer.run(`ATTACH ${sqlPath(partial)} AS closebook_backup`);
            const [main] = (await (await this.writer.runAndReadAll('SELECT current_database() AS name')).getRowObjectsJson()) as LedgerRow[];
            await this.writer.run(`COPY FROM DATABASE "${String(main?.name).replaceAll('"', '""')}" TO closebook_backup`);
            await this.writer.run('CHECKPOINT closebook_backup');
          })();
          const failed = await copying.then(noFailure, (error: unknown) => ({ error }));
          const detachFailed = await this.writer.run('DETACH DATABASE IF EXISTS closebook_backup').then(noFailure, (error: unknown) => ({ error }));
          await rm(`${partial}.wal`, { force: true });
          // A failure copying is the one reported; after a copy, a failed detach is.
          const failure = failed ?? detachFailed;
          if (failure) throw failure.error;
        }),
      ),
    );
  }

  /**
   * The ledger's files as they are on disk now (size and modification time of the database and its WAL): another
   * value after any write to them, by this process or another. What a costly check of the ledger's content is kept by.
   */
  async fingerprint(): Promise<string> {
    const parts = await Promise.all(
      [LEDGER_FILE, `${LEDGER_FILE}.wal`].map((name) =>
        stat(join(this.dir, name)).then(
          (found) => `${found.size}@${found.mtimeMs}`,
          () => '-',
        ),
      ),
    );
    return parts.join('|');
  }

  /** True once DuckDB has invalidated this instance: nothing more can be read or written through it. */
  get broken(): boolean {
    return this.invalidated;
  }

  /**
   * Closes the ledger once no call into DuckDB is running. A call made from then on is refused in words: an export's
   * next chunk, a write still waiting its turn. A write or derived result under way is one call and finishes first;
   * should it still need a read of its own, that read is refused and the write rolled back: whole or not at all.
   */
  close(): Promise<void> {
    this.closed ??= this.closeWhenIdle();
    return this.closed;
  }

  private async closeWhenIdle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
    this.reader.closeSync();
    this.writer.closeSync();
    this.instance.closeSync();
  }

  /** Runs one call into DuckDB, counted in `running` until it is answered. */
  private tracked<T>(call: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(closedError());
    const answer = call();
    this.running.add(answer);
    void answer.then(
      () => this.running.delete(answer),
      () => this.running.delete(answer),
    );
    return answer;
  }

  /** A stream's steps, each counted as a call into DuckDB (a chunk is fetched on DuckDB's threads). */
  private async *trackedSteps<T>(steps: AsyncGenerator<T>): AsyncGenerator<T> {
    try {
      for (;;) {
        const step = await this.tracked(() => steps.next());
        if (step.done) return;
        yield step.value;
      }
    } finally {
      await steps.return(undefined);
    }
  }

  /**
   * A failed statement in words the user can act on. DuckDB gives up on the whole instance after a fatal error, such
   * as a checkpoint that found the disk full (a commit can start one): every later statement of this instance fails.
   * What was committed before is whole in the file and its WAL, so the instance is marked broken and LedgerHandle
   * opens a new one for the next step; the failed write's rows were never in either.
   */
  private failed(error: unknown, during: 'write' | 'read' = 'read'): unknown {
    const fatal = isFatal(error);
    if (fatal) this.invalidated = true;
    if (error instanceof AppError) return error; // already in words (a refusal, the user's own file on a full disk)
    if (isDiskFull(error)) {
      return new AppError(
        'storage',
        during === 'write'
          ? `The disk is full: the ledger at ${this.dir} could not save this. Nothing of it was kept and the months saved before are intact. Free some space on that disk and try again.`
          : `The disk is full: the ledger at ${this.dir} has no room to work this out. Nothing saved was changed. Free some space on that disk and try again.`,
      );
    }
    const detail = errorMessage(error).split('\n')[0]; // DuckDB's first line; the rest is advice for its own users
    if (isOutOfMemory(error)) {
      const kept = during === 'write' ? 'Nothing of it was kept and the months saved before are intact.' : 'Nothing saved was changed.';
      return new LedgerOutOfMemory(
        `The ledger needed more memory for this than it may use (${detail}). ${kept} Let other work in Closebook finish (an export, a comparison, a month being saved), then try again.`,
      );
    }
    if (!fatal) return error;
    return new AppError(
      'storage',
      `The ledger stopped after an error it cannot go on from (${detail}). Closebook opens it again for the next step: try again. The months saved before are intact.`,
    );
  }

  private async migrate(log: Logger): Promise<void> {
    if (!this.readOnlyFolder) await this.writer.run('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
    const [row] = (await (await this.writer.runAndReadAll('SELECT max(version) AS version FROM schema_version')).getRowObjectsJson()) as LedgerRow[];
    const current = Number(row?.version ?? 0);
    if (current > MIGRATIONS.length) {
      throw new AppError(
        'storage',
        `The ledger was written by a newer Closebook (schema ${current}; this one knows ${MIGRATIONS.length}). Update Closebook to open it.`,
      );
    }
    if (this.readOnlyFolder && current < MIGRATIONS.length) {
      throw new AppError(
        'storage',
        `The ledger in ${this.readOnlyFolder} was saved by an earlier Closebook and must be brought up to date once, which needs the data folder to be writable. Make it writable and open Closebook again.`,
      );
    }
    if (current === MIGRATIONS.length) return;
    // Every step still to take, in one transaction: the ledger is at its old schema or at the new one, never between
    // (and a new ledger is made in 139–149 ms rather than 177–199 ms: the tests make hundreds).
    await this.write(async (transaction) => {
      for (let version = current + 1; version <= MIGRATIONS.length; version++) {
        for (const statement of MIGRATIONS[version - 1] as string[]) await transaction.run(statement);
        await transaction.run('INSERT INTO schema_version VALUES ($1)', [version]);
      }
    });
    for (let version = current + 1; version <= MIGRATIONS.length; version++) log.info('ledger schema migrated', { version });
  }

  /** The database, its WAL and spill files hold the whole business: readable by this user only. */
  private async ownerOnly(): Promise<void> {
    for (const name of await readdir(this.dir)) {
      if (name.startsWith(LEDGER_FILE)) await chmod(join(this.dir, name), 0o600).catch(() => undefined);
    }
  }
}

/**
 * DuckDB may read and write files only in `folders` (the ledger's own and the staging folder): a query can then
 * never reach another file, whatever text reaches it. Fixed for the life of the database: it cannot be undone.
 */
async function confine(connection: DuckDBConnection, folders: string[]): Promise<void> {
  const list = folders.map((folder) => sqlPath(folder.endsWith(sep) ? folder : `${folder}${sep}`)).join(', ');
  await connection.run(`SET allowed_directories = [${list}]`);
  await connection.run('SET enable_external_access = false');
}

/** Can nothing be written in `folder`? (A read-only disk or share, or a folder this user may not write.) */
async function isReadOnlyFolder(folder: string): Promise<boolean> {
  try {
    await access(folder, constants.W_OK);
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'EROFS' || code === 'EACCES' || code === 'EPERM';
  }
}

function closedError(): AppError {
  return new AppError('storage', 'Closebook has closed its ledger, so this was not done. Open Closebook again and do it there.');
}

/** A stream that ended before its end (endMarked): a read that can be made again (Ledger.holdingMemoryIfItFits). */
class LedgerReadCutShort extends AppError {
  constructor() {
    super(
      'storage',
      "The ledger's read ended part-way through without saying why (most often, other work in Closebook held the memory it needed). Nothing saved was changed, and nothing was made of the part read: try again.",
    );
  }
}

function readStopped(): AppError {
  return new AppError('cancelled', 'This read was stopped before it finished: a newer request took its place.');
}

function readOnlyError(folder: string): AppError {
  return new AppError(
    'storage',
    `Closebook's data folder ${folder} is read-only: saved months can be listed, opened and exported, but nothing can be saved. Make the folder writable (or use another data folder) to save.`,
  );
}

/** A file path as an SQL string literal (COPY and ATTACH take no bound parameters for paths). */
export function sqlPath(path: string): string {
  // eslint-disable-next-line no-control-regex -- control characters have no place in a path given to SQL
  if (/[\u0000-\u001f]/.test(path)) throw new AppError('validation', 'That file name contains control characters; choose another.');
  return `'${path.replaceAll("'", "''")}'`;
}

/** DuckDB's refusal of a statement that needs more memory than its limit and cannot spill the rest, in words (failed). */
class LedgerOutOfMemory extends AppError {
  constructor(message: string) {
    super('storage', message);
  }
}

/** DuckDB ran out of memory: its own error, or the same in words. */
function isOutOfMemory(error: unknown): boolean {
  return error instanceof LedgerOutOfMemory || (error instanceof Error && /^Out of Memory Error/.test(error.message));
}

/** DuckDB's fatal errors (and every statement after one) invalidate the instance, not the file. */
function isFatal(error: unknown): boolean {
  return error instanceof Error && /^FATAL Error|database has been invalidated/.test(error.message);
}

/** A lock held by another process becomes a refusal that names it; anything else says the file is damaged. */
function openError(error: unknown, file: string): AppError {
  const text = errorMessage(error);
  if (/lock/i.test(text)) {
    const pid = /PID (\d+)/.exec(text)?.[1];
    return new AppError(
      'conflict',
      `The ledger is in use by another Closebook process${pid ? ` (PID ${pid})` : ''} — the desktop app or another command. ` +
        'Only one may write to it at a time: close the other one (or wait for it to finish) and try again.',
    );
  }
  return new AppError(
    'storage',
    `The ledger at ${file} cannot be opened (${text.split('\n')[0]}). Restore it from a backup (see README) or move it away to start a new one.`,
  );
}

/**
 * The ledger of one data folder, opened on first use (so a command that never touches it does not lock it) and
 * kept open until `close`. A failed open is not remembered: the next use tries again (e.g. once the other
 * process has let go). A ledger DuckDB has invalidated (Ledger.broken) is closed and opened again on the next use,
 * so a full disk costs the step that met it, not the session.
 */
export class LedgerHandle {
  private opening: Promise<Ledger> | null = null;
  /** Set by `close`: a call still arriving (a request the window sent as the app quit) must not open the ledger again. */
  private closed = false;
  /** The closing of a ledger DuckDB gave up on, let go by `get`. */
  private retired: Promise<void> = Promise.resolve();

  constructor(
    private readonly dataDir: string,
    private readonly log: Logger,
    private readonly options: LedgerOptions = {},
  ) {}

  readonly get = async (): Promise<Ledger> => {
    if (this.closed) throw closedError();
    const opening = (this.opening ??= Ledger.open(this.dataDir, this.log, this.options).catch((error: unknown) => {
      this.opening = null;
      throw error;
    }));
    const ledger = await opening;
    if (!ledger.broken) return ledger;
    if (this.opening === opening) {
      this.opening = null; // the first to see it broken opens the next; the others wait for that one
      this.log.warn('ledger reopened after a fatal error');
      // an invalidated instance may refuse to close cleanly; it is let go either way (close waits for it)
      this.retired = ledger.close().catch(() => undefined);
    }
    return this.get();
  };

  async close(): Promise<void> {
    this.closed = true;
    const opening = this.opening;
    this.opening = null;
    await (await opening?.catch(() => null))?.close();
    await this.retired;
  }
}

const noFailure = (): null => null;
