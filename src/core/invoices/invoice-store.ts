import { createHash } from 'node:crypto';
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import { AppError } from '@shared/errors';
import type { LedgerTransaction, Ledger } from '@core/ledger/ledger';
import { rowShape } from '@core/ledger/rows';
import { keptJson } from '@core/ledger/kept-json';
import { InvoiceSettings, type Seller } from '@shared/schemas/invoices';
import type { Invoice } from './invoice-run';
import { type IssuedInvoices, issuedInMemory } from './invoice-files';
import type { Broker } from './mapping-store';

const DEFAULT_SETTINGS: InvoiceSettings = InvoiceSettings.parse({
  prefix: 'INV-',
  dateFormat: 'DD/MM/YYYY',
  linesPer: 'subscription',
  splitByPo: false,
});

const SETTINGS = rowShape({ settings: 'text', next_number: 'int' });
const RUN = rowShape({
  run_id: 'text',
  report_id: 'text',
  content_hash: 'text',
  run: 'text',
  run_hash: 'text',
  first_number: 'text',
  last_number: 'text',
  exported_at: 'text',
  exported_by: 'text',
});

/**
 * A Broker's invoice settings and next number. Settings kept that cannot be read (written by another version, or
 * changed by hand) read as the defaults with `unreadable` set: shown so, to be checked and saved again (which
 * replaces them), and never used to make invoices (draftInputs refuses).
 */
export async function readSettings(
  reader: Ledger | LedgerTransaction,
  broker: Broker,
): Promise<{ settings: InvoiceSettings; next: number; unreadable: boolean }> {
  const [row] = SETTINGS.all(
    await reader.all('SELECT settings, next_number FROM invoice_settings WHERE host = $1 AND reseller_id = $2', [broker.host, broker.resellerId]),
  );
  if (!row) return { settings: DEFAULT_SETTINGS, next: 1, unreadable: false };
  const parsed = InvoiceSettings.safeParse(keptJson(row.settings));
  return parsed.success
    ? { settings: parsed.data, next: row.next_number, unreadable: false }
    : { settings: DEFAULT_SETTINGS, next: row.next_number, unreadable: true };
}

/**
 * Changes the settings; a new next number may only move the sequence forward past every number already given, so
 * no number is given twice.
 */
export async function saveSettings(ledger: Ledger, broker: Broker, settings: InvoiceSettings, next: number | undefined): Promise<void> {
  await ledger.write(async (transaction) => {
    const current = await readSettings(transaction, broker);
    const runs = await transaction.all('SELECT count(*)::INTEGER AS runs FROM invoice_runs WHERE host = $1 AND reseller_id = $2', [
      broker.host,
      broker.resellerId,
    ]);
    const numbered = Number(runs[0]?.runs ?? 0) > 0;
    if (next !== undefined && numbered && next < current.next)
      throw new AppError(
        'control',
        `Invoice numbers up to ${current.next - 1} were given already; the next number can only move forward (from ${current.next}).`,
      );
    await transaction.run('INSERT OR REPLACE INTO invoice_settings VALUES ($1, $2, $3, $4)', [
      broker.host,
      broker.resellerId,
      JSON.stringify(settings),
      next ?? current.next,
    ]);
  });
}

/** An exported run: the invoices it issued (numbered) and every invoice of the month in force after it. */
export interface StoredRun {
  runId: string;
  reportId: string;
  contentHash: string;
  /** What its invoices were made from (runInputs): none in a run kept before it was kept with one. */
  inputs?: string;
  issued: Invoice[];
  inForce: Invoice[];
  dateFormat: InvoiceSettings['dateFormat'];
  /** The month was Approved when the run was numbered (else Prepared on a workstation alone). */
  approved: boolean;
  /** The seller as it was when the run was numbered: its e-invoices say what they said then. */
  seller: Seller;
  firstNumber: string;
  lastNumber: string;
  exportedAt: string;
  exportedBy: string;
}

/** The runs of a Broker's month, with monthRuns's parameters. */
const MONTH_RUNS = 'host = $1 AND reseller_id = $2 AND period_start = $3 AND period_end = $4';
const monthRuns = (broker: Broker, period: { start: string; end: string }) => [broker.host, broker.resellerId, period.start, period.end];

/** An invoice's content without what numbering and dating give it: two runs invoice the same when these are equal. */
const substance = (invoice: Invoice) => JSON.stringify({ ...invoice, number: null, invoiceDate: '', dueDate: '' });

/** The SHA-256 of an invoice's substance (hex). */
export const substanceHash = (invoice: Invoice) => createHash('sha256').update(substance(invoice)).digest('hex');

/** What an invoice is made for: its customer, currency and PO number. A run has one invoice for each. */
export const invoiceKey = (invoice: Pick<Invoice, 'orgKey' | 'currency' | 'po'>) => `${invoice.orgKey}|${invoice.currency}|${invoice.po}`;

/** Each invoice's key and substance hash: what the invoices in force after a run are compared by. */
export const substancesOf = (invoices: readonly Invoice[]) => new Map(invoices.map((invoice) => [invoiceKey(invoice), substanceHash(invoice)]));

/**
 * What a run's row says besides its invoices (kept in parts): the invoices in force after it, by number, with each
 * one's key and substance hash (parallel to the numbers), so the month's invoices now are compared with them
 * without reading the invoices back (runs kept before this say numbers alone); and how many it issued.
 */
interface RunHeader {
  inForce: string[];
  inForceKeys?: string[];
  inForceSubstances?: string[];
  issuedCount?: number;
  inputs?: string;
  dateFormat: StoredRun['dateFormat'];
  approved: boolean;
  seller: Seller;
}

/** An exported run as it is compared and listed: without its invoices. */
export interface RunSummary extends Omit<StoredRun, 'issued' | 'inForce'> {
  issuedCount: number;
  /** The invoices in force after it: each one's number, key (invoiceKey) and substance hash (substanceHash). */
  inForce: { number: string; key: string; substance: string }[];
}

/** A run's summary, made from its invoices. */
export function summaryOf({ issued, inForce, ...run }: StoredRun): RunSummary {
  return {
    ...run,
    issuedCount: issued.length,
    inForce: inForce.map(inForceEntry),
  };
}

/** A run as the ledger kept it before its invoices were kept in parts: everything in one JSON text. */
type WholeRun = Pick<StoredRun, 'issued' | 'inForce' | 'inputs' | 'dateFormat' | 'approved' | 'seller'>;

/** How many invoices one part of a run holds (a row of invoice_run_invoices). */
const INVOICES_PER_PART = 100;

/** A run as the ledger keeps it: its row (`header`, JSON), its issued invoices' parts, and the SHA-256 of both. */
export interface RunRows {
  header: string;
  parts: string[];
  hash: string;
  /** How many invoices the parts hold. */
  issued: number;
}

/**
 * The row a run is kept as and the parts its issued invoices are kept in (JSON, gzipped, as base64 text), with the
 * SHA-256 of the row and the parts' JSON. Gzipped, a million-line month's first run is about a tenth of its 327 MB
 * of JSON: what the ledger holds in memory while the run is kept, and on disk after.
 */
export function runRows(run: StoredRun): RunRows {
  const parts = new RunParts();
  for (const invoice of run.issued) parts.add(invoice);
  return parts.rows(run.inForce.map(inForceEntry), run);
}

/** An invoice in force after a run, as the run's row names it. */
export const inForceEntry = (invoice: Invoice): RunSummary['inForce'][number] => ({
  number: invoice.number ?? '',
  key: invoiceKey(invoice),
  substance: substanceHash(invoice),
});

/**
 * A run's parts made an issued invoice at a time, in order (runRows; an export keeps each invoice so as it is made
 * and lets it go: handlers.ts), and then its row.
 */
export class RunParts {
  private readonly parts: string[] = [];
  private pending: Buffer[] = [];
  private count = 0;
  /** Set once the row is made: the parts are then the run's, hashed. */
  private sealed = false;

  add(invoice: Invoice): void {
    if (this.sealed) throw new AppError('internal', "An invoice was added to a run's parts after its row was made. Please report this.");
    // The part's JSON (the array's text) made an invoice at a time into bytes: as one string, a 3 MB part lives
    // until the next full garbage collection, and a million-line month's 100 parts raised the export's peak so.
    this.pending.push(Buffer.from(`${this.pending.length ? ',' : '['}${JSON.stringify(invoice)}`));
    this.count++;
    if (this.pending.length === INVOICES_PER_PART) this.close();
  }

  /** The row and parts of a run that issued the invoices added, with the invoices in force after it. */
  rows(inForce: readonly RunSummary['inForce'][number][], run: Pick<StoredRun, 'inputs' | 'dateFormat' | 'approved' | 'seller'>): RunRows {
    if (this.pending.length) this.close();
    this.sealed = true;
    const header: RunHeader = {
      inForce: inForce.map((entry) => entry.number),
      inForceKeys: inForce.map((entry) => entry.key),
      inForceSubstances: inForce.map((entry) => entry.substance),
      issuedCount: this.count,
      ...(run.inputs ? { inputs: run.inputs } : {}),
      dateFormat: run.dateFormat,
      approved: run.approved,
      seller: run.seller,
    };
    const text = JSON.stringify(header);
    // The row first, then each part's JSON: the parts are read back to be hashed, as the row is known only now.
    const hash = createHash('sha256').update(text);
    for (const part of this.parts) hash.update(gunzipSync(Buffer.from(part, 'base64')));
    return { header: text, parts: this.parts, hash: hash.digest('hex'), issued: this.count };
  }

  private close(): void {
    const part = Buffer.concat([...this.pending, Buffer.from(']')]);
    this.pending = [];
    // The fastest level: 1.9 s for a million-line month's 326 MB, against 3.9 s at the default, for 46 MB against 39.
    this.parts.push(gzipSync(part, { level: constants.Z_BEST_SPEED }).toString('base64'));
  }
}

const PART = rowShape({ invoices_gzip: 'text' });

/**
 * The month's exported runs, oldest first. The invoices in force after a run are named by number: each was issued
 * by that run or one before it.
 */
export async function storedRuns(reader: Ledger | LedgerTransaction, broker: Broker, period: { start: string; end: string }): Promise<StoredRun[]> {
  const rows = await monthRunRows(reader, broker, period);
  const issuedSoFar = new Map<string, Invoice>();
  const runs: StoredRun[] = [];
  for (const row of rows) {
    const kept = JSON.parse(row.run) as WholeRun | RunHeader;
    const issued =
      'issued' in kept
        ? kept.issued
        : PART.all(await reader.all('SELECT invoices_gzip FROM invoice_run_invoices WHERE run_id = $1 ORDER BY part', [row.run_id])).flatMap(
            (part) => JSON.parse(gunzipSync(Buffer.from(part.invoices_gzip, 'base64')).toString('utf8')) as Invoice[],
          );
    for (const invoice of issued) issuedSoFar.set(invoice.number ?? '', invoice);
    const inForce =
      'issued' in kept
        ? kept.inForce
        : kept.inForce.map((number) => {
            const invoice = issuedSoFar.get(number);
            if (!invoice)
              throw new AppError(
                'internal',
                `The exported invoice run ${row.first_number}–${row.last_number} names invoice ${number}, which no run issued. Please report this.`,
              );
            return invoice;
          });
    runs.push({ ...runOf(row, kept), issued, inForce });
  }
  return runs;
}

/** A kept run as its files are written again: its issued invoices read as they are taken. */
export type RunToWriteAgain = Omit<StoredRun, 'issued' | 'inForce'> & { issued: IssuedInvoices };

/**
 * The month's run `runId` as its files are written again, or null when the month's last run is another (one was
 * exported meanwhile). Its issued invoices are read from the ledger a part at a time as the files take them: at a
 * million lines, the 10,000 invoices as objects were half a gigabyte, and their 100 parts read at once (61 MB of
 * text) took the process up by 400 MB.
 */
export async function lastRunForFiles(reader: Ledger, broker: Broker, period: { start: string; end: string }, runId: string): Promise<RunToWriteAgain | null> {
  const row = (await monthRunRows(reader, broker, period)).at(-1);
  if (row?.run_id !== runId) return null;
  const kept = JSON.parse(row.run) as WholeRun | RunHeader;
  if ('issued' in kept) return { ...runOf(row, kept), issued: issuedInMemory(kept.issued) };
  return { ...runOf(row, kept), issued: await issuedInParts(reader, row, kept.issuedCount) };
}

const PARTS = rowShape({ parts: 'int' });

/**
 * A run's issued invoices read from its parts (gzipped JSON as base64, as runRows made them) one at a time: every
 * part but the last holds INVOICES_PER_PART, so an invoice's part is known without reading those before it. A part
 * that is missing or does not hold what it should is said, never skipped.
 */
async function issuedInParts(
  reader: Ledger,
  row: { run_id: string; first_number: string; last_number: string },
  issuedCount: number | undefined,
): Promise<IssuedInvoices> {
  const notWhole = () =>
    new AppError(
      'internal',
      `The exported invoice run ${row.first_number}–${row.last_number} is not whole in this workstation's ledger: its invoices cannot be written again. Please report this.`,
    );
  const read = async (part: number) => {
    const [kept] = PART.all(await reader.all('SELECT invoices_gzip FROM invoice_run_invoices WHERE run_id = $1 AND part = $2', [row.run_id, part]));
    if (!kept) throw notWhole();
    return JSON.parse(gunzipSync(Buffer.from(kept.invoices_gzip, 'base64')).toString('utf8')) as Invoice[];
  };
  const parts = PARTS.all(await reader.all('SELECT count(*)::INTEGER AS parts FROM invoice_run_invoices WHERE run_id = $1', [row.run_id]))[0]?.parts ?? 0;
  // A run kept before its row said how many it issued: its last part is counted.
  const count = issuedCount ?? (parts ? (parts - 1) * INVOICES_PER_PART + (await read(parts - 1)).length : 0);
  if (parts !== Math.ceil(count / INVOICES_PER_PART)) throw notWhole();
  return {
    count,
    async *range(from, to) {
      const end = Math.min(to, count);
      for (let part = Math.floor(from / INVOICES_PER_PART); part * INVOICES_PER_PART < end; part++) {
        const first = part * INVOICES_PER_PART;
        const invoices = await read(part);
        if (invoices.length !== Math.min(INVOICES_PER_PART, count - first)) throw notWhole();
        yield* invoices.slice(Math.max(0, from - first), end - first);
      }
    },
  };
}

/** The rows of the month's exported runs, oldest first. */
async function monthRunRows(reader: Ledger | LedgerTransaction, broker: Broker, period: { start: string; end: string }) {
  return RUN.all(
    await reader.all(
      `SELECT run_id, report_id, content_hash, run, run_hash, first_number, last_number, exported_at, exported_by FROM invoice_runs
       WHERE ${MONTH_RUNS} ORDER BY exported_at, run_id`,
      monthRuns(broker, period),
    ),
  );
}

/** What a run's row says of it, besides its invoices. */
function runOf(row: ReturnType<typeof RUN.all>[number], kept: WholeRun | RunHeader): Omit<StoredRun, 'issued' | 'inForce'> {
  return {
    runId: row.run_id,
    reportId: row.report_id,
    contentHash: row.content_hash,
    ...(kept.inputs ? { inputs: kept.inputs } : {}),
    dateFormat: kept.dateFormat,
    approved: kept.approved,
    seller: kept.seller,
    firstNumber: row.first_number,
    lastNumber: row.last_number,
    exportedAt: row.exported_at,
    exportedBy: row.exported_by,
  };
}

/**
 * The month's exported runs without their invoices, oldest first: from their rows alone, unless one was kept
 * before its rows named the invoices' keys and substance (then every run is read whole).
 */
export async function runSummaries(reader: Ledger | LedgerTransaction, broker: Broker, period: { start: string; end: string }): Promise<RunSummary[]> {
  const rows = await monthRunRows(reader, broker, period);
  const summaries: RunSummary[] = [];
  for (const row of rows) {
    const kept = JSON.parse(row.run) as WholeRun | RunHeader;
    if ('issued' in kept || !kept.inForceKeys || !kept.inForceSubstances || kept.issuedCount === undefined)
      return (await storedRuns(reader, broker, period)).map(summaryOf);
    const { inForceKeys: keys, inForceSubstances: substances } = kept;
    summaries.push({
      ...runOf(row, kept),
      issuedCount: kept.issuedCount,
      inForce: kept.inForce.map((number, index) => ({ number, key: keys[index] ?? '', substance: substances[index] ?? '' })),
    });
  }
  return summaries;
}

/** The id of the month's last exported run, or null (read without its invoices). */
export async function lastRunId(reader: Ledger | LedgerTransaction, broker: Broker, period: { start: string; end: string }): Promise<string | null> {
  const [last] = LAST.all(
    await reader.all(`SELECT run_id FROM invoice_runs WHERE ${MONTH_RUNS} ORDER BY exported_at DESC, run_id DESC LIMIT 1`, monthRuns(broker, period)),
  );
  return last?.run_id ?? null;
}

const LAST = rowShape({ run_id: 'text' });

/**
 * Records the files written from a run in a format, with their hashes, in one transaction: a transaction each took
 * most of the two and a half minutes a million-line month's 10,000 e-invoices took to write.
 */
export async function recordFiles(ledger: Ledger, runId: string, format: string, files: { name: string; sha256: string }[], at: string): Promise<void> {
  if (!files.length) return;
  await ledger.write((transaction) =>
    transaction.run('INSERT OR REPLACE INTO invoice_files SELECT $1, $2, unnest($3::VARCHAR[]), unnest($4::VARCHAR[]), $5', [
      runId,
      format,
      files.map((file) => file.name),
      files.map((file) => file.sha256),
      at,
    ]),
  );
}

const FILE = rowShape({ name: 'text', sha256: 'text' });

/** The hashes of the files written from a run in a format, by name. */
export async function fileHashes(ledger: Ledger, runId: string, format: string): Promise<Map<string, string>> {
  const rows = FILE.all(await ledger.all('SELECT name, sha256 FROM invoice_files WHERE run_id = $1 AND format = $2', [runId, format]));
  return new Map(rows.map((row) => [row.name, row.sha256]));
}
