import { AppError } from '@shared/errors';
import type { LedgerTransaction, Ledger } from '@core/ledger/ledger';
import { rowShape } from '@core/ledger/rows';
import { InvoiceSettings, type Seller } from '@shared/schemas/invoices';
import type { Invoice } from './invoice-run';
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

export async function readSettings(reader: Ledger | LedgerTransaction, broker: Broker): Promise<{ settings: InvoiceSettings; next: number }> {
  const [row] = SETTINGS.all(
    await reader.all('SELECT settings, next_number FROM invoice_settings WHERE host = $1 AND reseller_id = $2', [broker.host, broker.resellerId]),
  );
  if (!row) return { settings: DEFAULT_SETTINGS, next: 1 };
  const parsed = InvoiceSettings.safeParse(JSON.parse(row.settings));
  return { settings: parsed.success ? parsed.data : DEFAULT_SETTINGS, next: row.next_number };
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

/** The month's exported runs, oldest first. */
export async function storedRuns(reader: Ledger | LedgerTransaction, broker: Broker, period: { start: string; end: string }): Promise<StoredRun[]> {
  const rows = RUN.all(
    await reader.all(
      `SELECT run_id, report_id, content_hash, run, run_hash, first_number, last_number, exported_at, exported_by FROM invoice_runs
       WHERE host = $1 AND reseller_id = $2 AND period_start = $3 AND period_end = $4 ORDER BY exported_at, run_id`,
      [broker.host, broker.resellerId, period.start, period.end],
    ),
  );
  return rows.map((row) => {
    const run = JSON.parse(row.run) as Pick<StoredRun, 'issued' | 'inForce' | 'dateFormat' | 'approved' | 'seller'>;
    return {
      runId: row.run_id,
      reportId: row.report_id,
      contentHash: row.content_hash,
      issued: run.issued,
      inForce: run.inForce,
      dateFormat: run.dateFormat,
      approved: run.approved,
      seller: run.seller,
      firstNumber: row.first_number,
      lastNumber: row.last_number,
      exportedAt: row.exported_at,
      exportedBy: row.exported_by,
    };
  });
}

export async function recordFile(ledger: Ledger, runId: string, format: string, name: string, sha256: string, at: string): Promise<void> {
  await ledger.write((transaction) => transaction.run('INSERT OR REPLACE INTO invoice_files VALUES ($1, $2, $3, $4, $5)', [runId, format, name, sha256, at]));
}

const FILE = rowShape({ name: 'text', sha256: 'text' });

/** The hashes of the files written from a run in a format, by name. */
export async function fileHashes(ledger: Ledger, runId: string, format: string): Promise<Map<string, string>> {
  const rows = FILE.all(await ledger.all('SELECT name, sha256 FROM invoice_files WHERE run_id = $1 AND format = $2', [runId, format]));
  return new Map(rows.map((row) => [row.name, row.sha256]));
}
