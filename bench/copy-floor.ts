import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DuckDBBitValue, DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';
import {
  createService,
  fileLines,
  LedgerBits,
  LEVEL_NUMBERS_SQL,
  type LedgerValue,
  type LevelNumbers,
  lineFilter,
  PARQUET_OPTIONS,
  topRowsQuery,
  wordMatchesQuery,
} from '@core';
import { OPENING_SORT } from '@shared/contract';
import { testPorts } from '@testing/test-support';
import { median } from './median';

/** An export's time beside one floor's (ms, medians of the rounds), each round's ratio of the two in the order run, and their median. */
export interface BesideFloor {
  exportMs: number;
  floorMs: number;
  ratios: number[];
  ratio: number;
}

/**
 * One line export beside its floors, measured in this one process over alternating rounds: DuckDB's COPY of the same
 * lines unordered (the goal's measure), and — the CSV — of the same lines in the file's order, its columns as they
 * are (`ordered`).
 */
export interface BesideCopy extends BesideFloor {
  ordered?: BesideFloor;
}

type Format = 'parquet' | 'csv';
const timed = async (work: () => Promise<unknown>) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};

/**
 * The Parquet and CSV exports of a month beside their floor, in this one process, as the goal is stated: the
 * export as the desktop app runs it (the service's `reports:export`, the ledger already open, the file saved where
 * the save dialog would put it), then — the service closed, as DuckDB lets one instance hold the file — DuckDB's
 * own COPY of the same month's lines, every line with its organization, service and subscription joined, with the
 * ledger's memory limit and threads, the Parquet in the export's compression (PARQUET_OPTIONS), joined as the exports
 * join them (LEFT JOIN, the lines streamed: see fileLines; with inner joins, in the bench's ledger of one month,
 * DuckDB hashed the lines and the floor took 3.5–4.4 s instead of about 1 s). That floor is unordered (the cost of
 * writing those rows at all); Closebook's exports are also sorted in the tree's order and (the CSV) escaped against
 * formulas. The CSV has a second floor: DuckDB's own CSV of the rows the file holds, in its order — the Parquet
 * export's statement (the file columns as they are, sorted as every export is) written by DuckDB's CSV writer,
 * quoting as it does, escaping nothing.
 *
 * Export and floors alternate, round after round, so each round's ratio compares runs made seconds apart: on a shared
 * two-core machine one pair of single runs moved the ratio by half from run to run. In each round every export and
 * every floor is run twice and the second counted (the first reads the ledger from disk). Run it when no CLI process
 * holds the ledger.
 */
export async function exportsBesideCopy(dataDir: string, reportId: string, rounds: number): Promise<Record<Format, BesideCopy>> {
  const out = await mkdtemp(join(tmpdir(), 'closebook-floor-'));
  try {
    const counted: { exportMs: Record<Format, number>; floorMs: Record<Format | 'orderedCsv', number> }[] = [];
    for (let round = 0; round < rounds; round++)
      counted.push({ exportMs: await exportTimes(dataDir, reportId, out), floorMs: await copyTimes(dataDir, reportId, out) });
    const beside = (format: Format, floor: Format | 'orderedCsv' = format): BesideFloor => {
      const ratios = counted.map((round) => round.exportMs[format] / round.floorMs[floor]);
      return {
        exportMs: median(counted.map((round) => round.exportMs[format])),
        floorMs: median(counted.map((round) => round.floorMs[floor])),
        ratios,
        ratio: median(ratios),
      };
    };
    return { parquet: beside('parquet'), csv: { ...beside('csv'), ordered: beside('csv', 'orderedCsv') } };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

async function exportTimes(dataDir: string, reportId: string, out: string): Promise<Record<Format, number>> {
  const { ports, cleanup } = await testPorts({
    dataDir,
    deliver: async (fileName, _kind, write) => {
      const path = join(out, fileName);
      await write(path);
      await rm(path, { force: true });
      return { kind: 'saved', path };
    },
  });
  const service = createService(ports);
  try {
    const once = (format: Format) => timed(() => service.handlers['reports:export']({ reportId, format }));
    const times = { parquet: 0, csv: 0 };
    for (const format of ['parquet', 'csv'] as const) for (let round = 0; round < 2; round++) times[format] = await once(format);
    return times;
  } finally {
    await service.dispose();
    await cleanup(); // the data folder is the bench's: this closes only what the ports opened
  }
}

/** The data folder's ledger opened read-only by DuckDB alone, with the ledger's memory limit and threads. */
async function ledgerAlone(dataDir: string, temporary: string) {
  const instance = await DuckDBInstance.create(join(dataDir, 'ledger', 'closebook.duckdb'), {
    access_mode: 'READ_ONLY',
    memory_limit: '512MB',
    threads: '2',
    temp_directory: temporary,
  });
  return { instance, connection: await instance.connect() };
}

/**
 * The floor of a keystroke's answer: DuckDB making the top rows of each of `texts` — the statements the viewer runs
 * for it, the typed word's matches (looked for among those of the text before it, when it holds that text, as the
 * viewer does) and the top rows kept as a temporary table as the viewer keeps them — alone; the median of the
 * second round (the first reads the month from disk). Run when no process holds the ledger.
 */
export async function topRowsAloneMs(dataDir: string, reportId: string, texts: readonly string[]): Promise<number> {
  const out = await mkdtemp(join(tmpdir(), 'closebook-floor-'));
  const { instance, connection } = await ledgerAlone(dataDir, out);
  try {
    const times: number[] = [];
    const [numbers] = (await connection.runAndReadAll(LEVEL_NUMBERS_SQL, [reportId])).getRowObjectsJson() as unknown as LevelNumbers[];
    const values = (params: LedgerValue[]) => params.map((value) => (value instanceof LedgerBits ? value.value : value)) as DuckDBValue[];
    for (let round = 0; round < 2; round++) {
      let before: { text: string; sets: (LedgerBits | null)[] } | null = null;
      for (const text of texts) {
        // Both statements the viewer runs: the typed word's matches, then the top rows that bind them.
        const ms = await timed(async () => {
          const within = before && text.includes(before.text) ? [before.sets] : [];
          const matches = wordMatchesQuery(reportId, [text], numbers as LevelNumbers, within);
          const made = matches ? (await connection.runAndReadAll(matches.sql, values(matches.params))).getRows()[0]! : [null, null, null, null];
          const sets = made.map((set) => (set === null ? null : new LedgerBits(set as DuckDBBitValue)));
          before = { text, sets };
          const condition = lineFilter(reportId, { text }, [sets]);
          const { sql, params } = topRowsQuery(condition, 'organization', OPENING_SORT);
          await connection.run(`CREATE OR REPLACE TEMP TABLE bench_top_rows AS ${sql}`, values(params));
        });
        if (round === 1) times.push(ms);
      }
    }
    return median(times);
  } finally {
    connection.closeSync();
    instance.closeSync();
    await rm(out, { recursive: true, force: true });
  }
}

async function copyTimes(dataDir: string, reportId: string, out: string): Promise<Record<Format | 'orderedCsv', number>> {
  const { instance, connection } = await ledgerAlone(dataDir, out);
  const rows = `SELECT o.name, o.customer_number, o.org_id, s.service_name, s.service_id, u.item_name, u.subscription_id, u.po_number,
      l.product_id, l.product_name, l.item_code, l.quantity, l.cost_per_unit, l.sales_per_unit, l.cost, l.sales, l.item_details,
      l.currency, l.customer_currency
    FROM billing_lines l
    LEFT JOIN organizations o ON o.report_id = l.report_id AND o.org_no = l.org_no
    LEFT JOIN services s ON s.report_id = l.report_id AND s.service_no = l.service_no
    LEFT JOIN subscriptions u ON u.report_id = l.report_id AND u.subscription_no = l.subscription_no
    WHERE l.report_id = '${reportId.replaceAll("'", "''")}'`;
  const inOrder = lineFilter(reportId, {}, undefined);
  const once = async (file: string, query: { sql: string; params: LedgerValue[] }, options: string) => {
    const ms = await timed(() => connection.run(`COPY (${query.sql}) TO '${join(out, file)}' (${options})`, query.params as DuckDBValue[]));
    await rm(join(out, file), { force: true });
    return ms;
  };
  try {
    const times = { parquet: 0, csv: 0, orderedCsv: 0 };
    for (let round = 0; round < 2; round++) {
      times.parquet = await once('lines.parquet', { sql: rows, params: [] }, PARQUET_OPTIONS);
      times.csv = await once('lines.csv', { sql: rows, params: [] }, 'FORMAT CSV, HEADER');
      times.orderedCsv = await once('ordered.csv', { sql: fileLines(inOrder.where, 'file'), params: inOrder.params }, 'FORMAT CSV, HEADER');
    }
    return times;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
