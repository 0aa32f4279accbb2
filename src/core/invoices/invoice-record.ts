import { createHash } from 'node:crypto';
import { AppError } from '@shared/errors';
import type { InvoiceMapping } from '@shared/schemas/invoices';
import type { Ledger, LedgerTransaction } from '@core/ledger/ledger';
import {
  lastRunForFiles,
  lastRunId,
  readSettings,
  runRows,
  type RunSummary,
  runSummaries,
  type RunRows,
  type RunToWriteAgain,
  saveSettings,
  type StoredRun,
  storedRuns,
} from './invoice-store';
import { type Broker, readMapping, saveMapping } from './mapping-store';

/** One change of a Broker's mapping, as the team ledger keeps it (its invoice_mapping_log). */
export interface MappingChange {
  kind: 'customer' | 'item';
  /** The org id, or the item's match and id ("product:P-1"). */
  key: string;
  /** The entry as it was set (its JSON), or null: a mapping imported whole left it out. */
  entry: string | null;
  changedBy: string;
  workstation: string;
  changedAt: string;
}

/** A month of a Broker, as the invoice runs are kept under it. */
export interface RunPeriod {
  start: string;
  end: string;
}

/**
 * Where a Broker's mapping, invoice numbers and exported runs are kept: the workstation's ledger, or — while one is
 * connected — the team ledger, whose functions give each number once to the whole team.
 */
export interface InvoiceRecord {
  /** "the team ledger" or "this workstation", for messages. */
  readonly where: string;
  mapping(broker: Broker): Promise<InvoiceMapping>;
  saveMapping(broker: Broker, mapping: InvoiceMapping, replaceAll: boolean, who: string, at: string): Promise<void>;
  /**
   * Every change of the Broker's mapping (of one entry's `key`), oldest first: kept by the team ledger from its schema
   * version 3; null where no history is kept (this workstation keeps each entry as last set).
   */
  mappingHistory(broker: Broker, key: string | null): Promise<MappingChange[] | null>;
  /** The prefix and next number of the Broker's sequence (`prefix` null: the workstation's settings say). */
  counter(broker: Broker): Promise<{ prefix: string | null; next: number }>;
  setCounter(broker: Broker, prefix: string, next: number): Promise<void>;
  runs(broker: Broker, period: RunPeriod): Promise<StoredRun[]>;
  /** The month's runs without their invoices: what the month's invoices now are compared with, and the runs listed. */
  runSummaries(broker: Broker, period: RunPeriod): Promise<RunSummary[]>;
  /**
   * Keeps a numbered run: refused (a control error, say "export again") when the month's last run is no longer
   * `previousRunId` or the sequence no longer starts at `first` — a colleague exported meanwhile.
   */
  recordRun(broker: Broker, period: RunPeriod, run: StoredRun, previousRunId: string | null, prefix: string, first: number): Promise<void>;
  /**
   * Keeps a month's first run as recordRun does, from its row and parts made an invoice at a time (RunParts): by a
   * record that keeps runs so (this workstation's ledger), which the files are then written from (runToWriteAgain).
   */
  recordFirstRunInParts?(broker: Broker, period: RunPeriod, run: KeptRun, first: number): Promise<void>;
  /**
   * The month's run `runId` as its files are written again: refused (a control error, say "export again") when the
   * month's last run is no longer that one. A run another workstation recorded is kept here too, under `reportId`.
   */
  runToWriteAgain(broker: Broker, period: RunPeriod, runId: string, reportId: string): Promise<RunToWriteAgain>;
}

/** Said when the month's last run is not the one the export was about to write. */
export const exportedMeanwhile = () => new AppError('control', "This month's invoices were exported meanwhile: export again to write that run.");

/** The SHA-256 of a text (a run's body, a file's content), as hex. */
export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The body a run is kept as in the team ledger (its `run` jsonb): every invoice issued and in force, whole. */
export function runBody(run: StoredRun): string {
  return JSON.stringify({
    issued: run.issued,
    inForce: run.inForce,
    ...(run.inputs ? { inputs: run.inputs } : {}),
    dateFormat: run.dateFormat,
    approved: run.approved,
    seller: run.seller,
  });
}

/**
 * Inserts a run into the workstation's ledger (its own, or the copy of one the team ledger recorded): its row, and
 * its issued invoices in parts (runRows). Inserted again (a copy kept twice), it is left as it is.
 */
export async function insertRun(transaction: LedgerTransaction, broker: Broker, period: RunPeriod, run: StoredRun): Promise<void> {
  await insertRunRows(transaction, broker, period, { ...run, rows: runRows(run) });
}

/** A run as it is kept: what its row says beside its invoices, and its row and parts (RunRows). */
export type KeptRun = Omit<StoredRun, 'issued' | 'inForce' | 'inputs' | 'dateFormat' | 'approved' | 'seller'> & { rows: RunRows };

async function insertRunRows(transaction: LedgerTransaction, broker: Broker, period: RunPeriod, run: KeptRun): Promise<void> {
  const { header, parts, hash } = run.rows;
  for (const [part, invoices] of parts.entries())
    await transaction.run('INSERT OR IGNORE INTO invoice_run_invoices VALUES ($1, $2, $3)', [run.runId, part, invoices]);
  await transaction.run('INSERT OR IGNORE INTO invoice_runs VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)', [
    run.runId,
    broker.host,
    broker.resellerId,
    period.start,
    period.end,
    run.reportId,
    run.contentHash,
    header,
    hash,
    run.firstNumber,
    run.lastNumber,
    run.exportedAt,
    run.exportedBy,
  ]);
}

/** The workstation's own record: the ledger, one process at a time (DuckDB's lock), each run in one transaction. */
export class LocalInvoiceRecord implements InvoiceRecord {
  readonly where = 'this workstation';

  constructor(private readonly ledger: () => Promise<Ledger>) {}

  /** One person's workstation keeps each entry as last set, with who set it and when. */
  async mappingHistory(): Promise<null> {
    return null;
  }

  async mapping(broker: Broker): Promise<InvoiceMapping> {
    return readMapping(await this.ledger(), broker);
  }

  async saveMapping(broker: Broker, mapping: InvoiceMapping, replaceAll: boolean, who: string, at: string): Promise<void> {
    await saveMapping(await this.ledger(), broker, mapping, who, at, replaceAll);
  }

  async counter(broker: Broker): Promise<{ prefix: string | null; next: number }> {
    return { prefix: null, next: (await readSettings(await this.ledger(), broker)).next };
  }

  async setCounter(broker: Broker, prefix: string, next: number): Promise<void> {
    const ledger = await this.ledger();
    await saveSettings(ledger, broker, { ...(await readSettings(ledger, broker)).settings, prefix }, next);
  }

  async runs(broker: Broker, period: RunPeriod): Promise<StoredRun[]> {
    return storedRuns(await this.ledger(), broker, period);
  }

  async runSummaries(broker: Broker, period: RunPeriod): Promise<RunSummary[]> {
    return runSummaries(await this.ledger(), broker, period);
  }

  async runToWriteAgain(broker: Broker, period: RunPeriod, runId: string): Promise<RunToWriteAgain> {
    // The workstation's ledger is where its runs are kept: no copy to keep.
    const run = await lastRunForFiles(await this.ledger(), broker, period, runId);
    if (!run) throw exportedMeanwhile();
    return run;
  }

  async recordRun(broker: Broker, period: RunPeriod, run: StoredRun, previousRunId: string | null, _prefix: string, first: number): Promise<void> {
    await this.keep(broker, period, { ...run, rows: runRows(run) }, previousRunId, first);
  }

  async recordFirstRunInParts(broker: Broker, period: RunPeriod, run: KeptRun, first: number): Promise<void> {
    await this.keep(broker, period, run, null, first);
  }

  /** Keeps a run and moves the sequence past the invoices it numbered, unless another was kept meanwhile. */
  private async keep(broker: Broker, period: RunPeriod, run: KeptRun, previousRunId: string | null, first: number): Promise<void> {
    await (
      await this.ledger()
    ).write(async (transaction) => {
      const last = await lastRunId(transaction, broker, period);
      const { settings, next } = await readSettings(transaction, broker);
      if (last !== previousRunId || next !== first) throw exportedMeanwhile();
      await insertRunRows(transaction, broker, period, run);
      await transaction.run(
        'INSERT INTO invoice_settings VALUES ($1, $2, $3, $4) ON CONFLICT (host, reseller_id) DO UPDATE SET next_number = excluded.next_number',
        [broker.host, broker.resellerId, JSON.stringify(settings), next + run.rows.issued],
      );
    });
  }
}
