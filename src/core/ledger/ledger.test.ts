import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { silentLogger } from '../ports/ports';
import { inProcess, temporaryDir } from '@testing/test-support';
import { Ledger, LedgerHandle, type LedgerRow, type LedgerStatements, sqlPath } from './ledger';

const cleanups = cleanupsAfterEach();

async function folder() {
  const dir = await temporaryDir();
  cleanups.push(() => dir.remove());
  return dir.path;
}

describe('the ledger', () => {
  it('keeps its folder and files owner-only, and money as DECIMAL', async () => {
    const dir = await folder();
    const ledger = await Ledger.open(dir, silentLogger);
    cleanups.push(() => ledger.close());
    expect((await stat(join(dir, 'ledger'))).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'ledger', 'closebook.duckdb'))).mode & 0o777).toBe(0o600);
    const types = await ledger.all(
      `SELECT DISTINCT data_type FROM information_schema.columns WHERE column_name IN ('cost', 'sales', 'quantity', 'stated_cost', 'cost_per_unit')`,
    );
    expect(types.every((row) => String(row.data_type).startsWith('DECIMAL'))).toBe(true);
  });

  it('rolls a failed write back whole', async () => {
    const ledger = await Ledger.open(await folder(), silentLogger);
    cleanups.push(() => ledger.close());
    await expect(
      ledger.write(async (transaction) => {
        await transaction.run(`INSERT INTO billing_entries VALUES ('r', 0, 'd', '', '')`);
        throw new Error('stop');
      }),
    ).rejects.toThrow('stop');
    expect(await ledger.all('SELECT * FROM billing_entries')).toEqual([]);
  });

  it("prepares a derivation statement by statement before its transaction, held to the derivation's memory, given back however it ends", async () => {
    const ledger = await Ledger.open(await folder(), silentLogger);
    cleanups.push(() => ledger.close());
    await ledger.write((transaction) => transaction.run('CREATE TABLE derived_rows (n INTEGER)'));
    const setting = async (statements: LedgerStatements) => String((await statements.all("SELECT current_setting('memory_limit') AS limit"))[0]?.limit);
    const transactionOf = async (statements: LedgerStatements) => String((await statements.all('SELECT txid_current() AS id'))[0]?.id);
    const full = await setting(ledger);
    const seen: { limit: string; transactions: string[] }[] = [];
    const look = async (statements: LedgerStatements) =>
      seen.push({ limit: await setting(statements), transactions: [await transactionOf(statements), await transactionOf(statements)] });
    const prepare = async (steps: LedgerStatements) => {
      await look(steps);
      await steps.run('CREATE TEMP TABLE step AS SELECT 41 AS n');
    };

    const kept = await ledger.derive(
      {},
      async (transaction) => {
        await look(transaction);
        await transaction.run('INSERT INTO derived_rows SELECT n + 1 FROM step');
        return 'kept';
      },
      { prepare, memoryShare: 0.5 },
    );
    expect(kept).toBe('kept');
    expect(await ledger.all('SELECT n FROM derived_rows')).toEqual([{ n: 42 }]);
    const [prepared, transaction] = seen as [(typeof seen)[0], (typeof seen)[0]];
    // Prepared statement by statement (each its own transaction), kept in one; both within half the memory.
    expect(prepared.transactions[0]).not.toBe(prepared.transactions[1]);
    expect(transaction.transactions[0]).toBe(transaction.transactions[1]);
    expect(prepared.limit).not.toBe(full);
    expect(transaction.limit).toBe(prepared.limit);
    expect(await setting(ledger)).toBe(full);

    // A transaction that fails keeps none of its rows; a preparation that fails keeps none either. The memory comes back.
    const failing = (where: 'prepare' | 'keep') =>
      ledger.derive(
        {},
        async (transaction) => {
          await transaction.run('INSERT INTO derived_rows VALUES (7)');
          if (where === 'keep') throw new Error('No space left on device');
        },
        {
          prepare: async (steps) => {
            if (where === 'prepare') throw new Error('No space left on device');
            await steps.run('SELECT 1');
          },
          memoryShare: 0.5,
        },
      );
    for (const where of ['prepare', 'keep'] as const) {
      await expect(failing(where)).rejects.toThrow(/The disk is full/);
      expect(await setting(ledger)).toBe(full);
    }
    expect(await ledger.all('SELECT n FROM derived_rows')).toEqual([{ n: 42 }]);
  });

  it('holds DuckDB to the smallest share of its memory that work under way asks for, and gives the whole back when the last ends', async () => {
    const ledger = await Ledger.open(await folder(), silentLogger);
    cleanups.push(() => ledger.close());
    const megabytes = async () => {
      const limit = String((await ledger.all("SELECT current_setting('memory_limit') AS limit"))[0]?.limit);
      return Math.round(Number(/^([\d.]+) MiB$/.exec(limit)?.[1] ?? Number.NaN) * 1.048576); // DuckDB says MiB of the MB it was set to
    };
    expect(await megabytes()).toBe(512);
    // The half's work tells when it runs (the limit is set before it): ending it before then would wait for ever.
    let endHalf = () => undefined as void;
    let halfRuns = () => undefined as void;
    const running = new Promise<void>((resolve) => (halfRuns = resolve));
    const half = ledger.holdingMemory(
      0.5,
      () =>
        new Promise<void>((resolve) => {
          endHalf = resolve;
          halfRuns();
        }),
    );
    await running;
    expect(await megabytes()).toBe(256);
    // A quarter while the half holds: the quarter is in force; when it ends (failing), the half is again.
    await expect(
      ledger.holdingMemory(0.25, async () => {
        expect(await megabytes()).toBe(128);
        throw new Error('stop');
      }),
    ).rejects.toThrow('stop');
    expect(await megabytes()).toBe(256);
    endHalf();
    await half;
    expect(await megabytes()).toBe(512);
  });

  it('reads again at the whole limit a read that runs out of the share it is held to, and only such a read', async () => {
    const ledger = await Ledger.open(await folder(), silentLogger);
    cleanups.push(() => ledger.close());
    // A list of two million numbers is 16 MB that DuckDB cannot spill: beyond 1 MB of its 512.
    const listed = async () => (await ledger.all('SELECT len(list(i)) AS n FROM range(2000000) t(i)'))[0]?.n;
    const tiny = 1 / 512;
    await expect(ledger.holdingMemory(tiny, listed)).rejects.toThrow(
      /^The ledger needed more memory for this than it may use \(Out of Memory Error: .*\)\. Nothing saved was changed\. Let other work in Closebook finish/,
    );
    const runs: number[] = [];
    const limit = async () => String((await ledger.all("SELECT current_setting('memory_limit') AS limit"))[0]?.limit);
    const counted = async () => {
      runs.push(runs.length);
      return listed();
    };
    expect(Number(await ledger.holdingMemoryIfItFits(tiny, counted))).toBe(2_000_000);
    expect(runs).toHaveLength(2);
    expect(await limit()).toMatch(/^48[78]\.\d+ MiB$/); // the whole 512 MB back (DuckDB says MiB)
    const failing = async () => {
      runs.push(runs.length);
      throw new Error('not memory');
    };
    await expect(ledger.holdingMemoryIfItFits(tiny, failing)).rejects.toThrow('not memory');
    expect(runs).toHaveLength(3);
  });

  it('stops a stoppable read when its signal aborts, as cancelled, and answers one left to run', async () => {
    const ledger = await Ledger.open(await folder(), silentLogger);
    cleanups.push(() => ledger.close());
    // Minutes of work for two threads, unless stopped.
    const endless = 'SELECT sum(hash(i)) AS n FROM range(100000000000) t(i)';
    const stopping = new AbortController();
    const started = performance.now();
    const read = ledger.stoppableAll(endless, [], stopping.signal);
    setTimeout(() => stopping.abort(), 100);
    await expect(read).rejects.toMatchObject({ code: 'cancelled', message: expect.stringMatching(/^This read was stopped before it finished/) });
    expect(performance.now() - started).toBeLessThan(5_000);
    // Stopped on a connection of its own: the ledger reads on.
    expect(await ledger.stoppableAll('SELECT 42 AS n', [], new AbortController().signal)).toEqual([{ n: 42 }]);
    expect(await ledger.all('SELECT 43 AS n')).toEqual([{ n: 43 }]);
    // A signal aborted before the read starts stops it at once; a failure of its own is said as DuckDB's.
    await expect(ledger.stoppableAll('SELECT 1', [], AbortSignal.abort())).rejects.toMatchObject({ code: 'cancelled' });
    await expect(ledger.stoppableAll('SELECT * FROM no_such_table', [], new AbortController().signal)).rejects.toThrow(/no_such_table/);
  });

  it('reads ahead beside the reading connection: a read asked meanwhile is answered first, and the ledger closes after both', async () => {
    const ledger = await Ledger.open(await folder(), silentLogger);
    expect(await ledger.readAhead('SELECT $1::INTEGER AS n', [7])).toEqual([{ n: 7 }]); // its answer, for whoever wants it
    const events: string[] = [];
    // About a second of work for two threads.
    const ahead = ledger.readAhead('SELECT sum(hash(i)) AS n FROM range($1::BIGINT) t(i)', ['100000000']).then(() => events.push('read ahead'));
    await new Promise((resolve) => setTimeout(resolve, 50)); // running in DuckDB
    expect(await ledger.all('SELECT 42 AS n')).toEqual([{ n: 42 }]);
    events.push('read');
    await ledger.close(); // waits for the read ahead, as for any call into DuckDB
    await ahead;
    expect(events).toEqual(['read', 'read ahead']);
    await expect(ledger.readAhead('SELECT 1')).rejects.toThrow(/closed/i);
  });

  it('folds what was written into its file while open, as closing would, and keeps it', async () => {
    const dir = await folder();
    const wal = join(dir, 'ledger', 'closebook.duckdb.wal');
    const walSize = () =>
      stat(wal).then(
        (found) => found.size,
        () => 0,
      );
    let ledger = await Ledger.open(dir, silentLogger);
    await ledger.write((transaction) => transaction.run(`INSERT INTO billing_entries VALUES ('r', 0, 'd', '', '')`));
    expect(await walSize()).toBeGreaterThan(0);
    await ledger.foldIn();
    expect(await walSize()).toBe(0);
    await ledger.close();
    ledger = await Ledger.open(dir, silentLogger);
    cleanups.push(() => ledger.close());
    expect(await ledger.all('SELECT report_id FROM billing_entries')).toEqual([{ report_id: 'r' }]);
  });

  it('streams a column of bytes a chunk at a time, each chunk joined, and refuses a column of anything else', async () => {
    const ledger = await Ledger.open(await folder(), silentLogger);
    cleanups.push(() => ledger.close());
    // Long values, and short ones (12 bytes or fewer: DuckDB holds those inside the chunk's own vector).
    const line = (i: number) => (i % 5 === 0 ? `${i}→\n` : `  change ${i}: qty 3 → 4 — ✓\n`);
    const chunks: Buffer[] = [];
    const sql = `SELECT CASE WHEN i % 7 = 3 THEN NULL WHEN i % 5 = 0 THEN encode(i || '→' || chr(10))
      ELSE encode('  change ' || i || ': qty 3 → 4 — ✓' || chr(10)) END FROM range(5000) t(i) ORDER BY i`;
    for await (const chunk of ledger.streamDerivedBytes(sql)) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1); // DuckDB's chunks of 2,048 rows
    const expected = Array.from({ length: 5000 }, (_, i) => (i % 7 === 3 ? '' : line(i))).join('');
    expect(Buffer.concat(chunks).toString('utf8')).toBe(expected);
    const drain = async () => {
      for await (const chunk of ledger.streamDerivedBytes("SELECT 'text, not bytes'")) expect(chunk).toBeUndefined();
    };
    await expect(drain()).rejects.toThrow(/Bytes were asked for/);
  });

  it('fails a stream that DuckDB ends part-way, rather than handing on part of an answer as the whole', async () => {
    const ledger = await Ledger.open(await folder(), silentLogger);
    cleanups.push(() => ledger.close());
    // Whole: every row in its order, and nothing of the mark that shows it ended.
    const rows: LedgerRow[] = [];
    for await (const chunk of ledger.stream('SELECT i::INTEGER AS i, (i * 2)::INTEGER AS twice FROM range(5000) t(i) ORDER BY i DESC;')) rows.push(...chunk);
    expect(rows).toHaveLength(5000);
    expect(rows[0]).toEqual({ i: 4999, twice: 9998 });
    expect(rows.every((row, index) => Object.keys(row).length === 2 && row.i === 4999 - index)).toBe(true);
    // Failing long after its first chunks were handed on (DuckDB, through @duckdb/node-api, then ends the stream as
    // if it were complete).
    const failing = "SELECT CASE WHEN i < 1000000 THEN i::INTEGER ELSE error('failed part-way') END AS i FROM range(2000000) t(i)";
    const read: LedgerRow[] = [];
    const drain = async () => {
      for await (const chunk of ledger.stream(failing)) read.push(...chunk);
    };
    await expect(drain()).rejects.toThrow(/The ledger's read ended part-way through without saying why/);
    expect(read.length).toBeGreaterThan(0);
    const bytes = async () => {
      for await (const chunk of ledger.streamDerivedBytes(`SELECT encode(i::VARCHAR) FROM (${failing})`)) expect(chunk.length).toBeGreaterThan(0);
    };
    await expect(bytes()).rejects.toThrow(/ended part-way through/);
    // A read made again at the whole limit (holdingMemoryIfItFits) is made once more when its stream is cut short.
    let attempts = 0;
    const again = await ledger.holdingMemoryIfItFits(0.5, async () => {
      attempts++;
      const sql = attempts === 1 ? failing : 'SELECT i::INTEGER AS i FROM range(3) t(i)';
      const all: LedgerRow[] = [];
      for await (const chunk of ledger.stream(sql)) all.push(...chunk);
      return all;
    });
    expect([attempts, again]).toEqual([2, [{ i: 0 }, { i: 1 }, { i: 2 }]]);
  });

  it('refuses a second process clearly, naming the one that holds it', async () => {
    const dir = await folder();
    const holder = await Ledger.open(dir, silentLogger);
    cleanups.push(() => holder.close());
    const script = `require('./src/core/ledger/ledger').Ledger.open(${JSON.stringify(dir)}, { info() {}, warn() {} }).then(() => process.exit(0), (e) => { process.stderr.write(e.code + ': ' + e.message); process.exit(3); });`;
    const { code, stderr } = await inProcess(script);
    expect(code).toBe(3);
    expect(stderr).toMatch(new RegExp(`conflict: The ledger is in use by another Closebook process \\(PID ${process.pid}\\)`));
  });

  it('makes a consistent backup through the database that opens as a ledger of its own', async () => {
    const dir = await folder();
    const ledger = await Ledger.open(dir, silentLogger);
    cleanups.push(() => ledger.close());
    await ledger.write((transaction) => transaction.run(`INSERT INTO billing_entries VALUES ('r', 0, '2026-10-07', '', '')`));
    const target = join(await folder(), 'copy.duckdb');
    await ledger.backup(target);
    const copyDir = await folder();
    const { copyFile, mkdir } = await import('node:fs/promises');
    await mkdir(join(copyDir, 'ledger'));
    await copyFile(target, join(copyDir, 'ledger', 'closebook.duckdb'));
    const restored = await Ledger.open(copyDir, silentLogger);
    cleanups.push(() => restored.close());
    expect(await restored.all('SELECT billing_date FROM billing_entries')).toEqual([{ billing_date: '2026-10-07' }]);
  });

  it('fails a backup whose copy cannot be completed when it is detached, and moves nothing into place', async () => {
    const dir = await folder();
    const ledger = await Ledger.open(dir, silentLogger);
    cleanups.push(() => ledger.close());
    await ledger.write((transaction) => transaction.run(`INSERT INTO billing_entries VALUES ('r', 0, '2026-10-07', '', '')`));
    // DuckDB's own write of the copy failing as it is detached (a disk that fills then), once.
    const writer = (ledger as unknown as { writer: { run: (sql: string) => Promise<unknown> } }).writer;
    const run = writer.run.bind(writer);
    let failed = false;
    writer.run = async (sql: string) => {
      if (!failed && sql.startsWith('DETACH')) {
        failed = true;
        await run(sql);
        throw new Error('IO Error: Could not write file: No space left on device');
      }
      return run(sql);
    };
    const target = join(await folder(), 'copy.duckdb');
    await expect(ledger.backup(target)).rejects.toThrow(/space|disk/i);
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(dirname(target))).toEqual([]);
    await ledger.backup(target); // and the next one is made
    expect(await readdir(dirname(target))).toEqual(['copy.duckdb']);
  });

  it('reads and writes no file outside its own folder and the staging folder, whatever SQL reaches it', async () => {
    const dir = await folder();
    const ledger = await Ledger.open(dir, silentLogger);
    cleanups.push(() => ledger.close());
    const outside = join(await folder(), 'elsewhere.csv');
    const { writeFile, readdir } = await import('node:fs/promises');
    await writeFile(outside, 'a\n1\n');
    await expect(ledger.all('SELECT * FROM read_csv($1)', [outside])).rejects.toThrow(/disabled by configuration/);
    await expect(ledger.run(`COPY (SELECT 1 AS a) TO ${sqlPath(join(dir, 'escaped.csv'))}`)).rejects.toThrow(/disabled by configuration/);
    await expect(ledger.run('SET enable_external_access = true')).rejects.toThrow(/Cannot enable external access/);
    const staged = join(await ledger.outputs.folder(), 'allowed.csv');
    await ledger.run(`COPY (SELECT 1 AS a) TO ${sqlPath(staged)}`);
    expect(await readdir(dir)).not.toContain('escaped.csv');
  });

  // Closing DuckDB's connection under a running statement deadlocks its Node client as the statement ends, and the
  // process never exits (seen in CI: a worker that quit as the window asked for rows). Each kind of call runs in a
  // process of its own, which must print the answer and exit without being told to.
  const SLOW = 'SELECT sum(i)::VARCHAR AS total FROM range(300000000) t(i)';
  it.each([
    ['a read', `ledger.all(${JSON.stringify(SLOW)})`],
    ['a write', `ledger.write(async (t) => { await t.run(${JSON.stringify(`CREATE TABLE slow AS ${SLOW}`)}); return t.all('SELECT total FROM slow'); })`],
    ['a derived result', `ledger.derive({}, (t) => t.all(${JSON.stringify(SLOW)}))`],
    ['a stream step', `ledger.stream(${JSON.stringify(SLOW)}).next().then((step) => step.value)`],
  ])(
    'closes under %s only once it is answered, so the process can still exit',
    async (_kind, call) => {
      const dir = await folder();
      const script = `
      const { Ledger } = require('./src/core/ledger/ledger');
      (async () => {
        const ledger = await Ledger.open(${JSON.stringify(dir)}, { info() {}, warn() {} }, { threads: 1 });
        const idle = ledger.stream('SELECT i FROM range(100000) t(i)');
        await idle.next(); // a stream left open, on a connection of its own
        let answered = false;
        const running = (${call}).then((rows) => ((answered = true), rows));
        await new Promise((resolve) => setTimeout(resolve, 20));
        const runningWhenClosed = !answered;
        const closing = ledger.close();
        const refused = (what) => what.then(() => 'answered', (error) => error.message);
        const whileClosing = await refused(ledger.all('SELECT 1'));
        await closing;
        await new Promise((resolve) => setImmediate(resolve)); // the answer's own promise chain has run by then
        const answeredBeforeClosed = answered;
        const rows = await running;
        process.stdout.write(JSON.stringify({ runningWhenClosed, answeredBeforeClosed, rows, whileClosing, after: await refused(ledger.all('SELECT 1')) }));
      })();`;
      const { code, signal, stdout } = await inProcess(script);
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      const refusal = 'Closebook has closed its ledger, so this was not done. Open Closebook again and do it there.';
      expect(JSON.parse(stdout)).toEqual({
        runningWhenClosed: true,
        answeredBeforeClosed: true,
        rows: [{ total: '44999999850000000' }],
        whileClosing: refusal,
        after: refusal,
      });
    },
    60_000,
  );

  it('opens no ledger again once closed: a request still arriving is refused in words', async () => {
    const handle = new LedgerHandle(await folder(), silentLogger, { threads: 1 });
    await (await handle.get()).all('SELECT 1');
    await handle.close();
    await expect(handle.get()).rejects.toThrow('Closebook has closed its ledger');
  });
});
