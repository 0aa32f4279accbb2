import { CustomerMapping, type InvoiceMapping, InvoiceSettings, ItemMapping, Invoice, Seller } from '@shared/schemas/invoices';
import { AppError } from '@shared/errors';
import { z } from 'zod';
import type { Ledger } from '@core/ledger/ledger';
import {
  type Broker,
  exportedMeanwhile,
  insertRun,
  type InvoiceRecord,
  issuedInMemory,
  type MappingChange,
  type RunPeriod,
  runBody,
  type RunSummary,
  type RunToWriteAgain,
  type StoredRun,
  summaryOf,
} from '../invoices';
import { iso } from './team-record';
import type { TeamConnection } from './team-connection';

/** A run as the team ledger keeps it (the jsonb a workstation sent), checked before it is used. */
const RunBody = z.object({
  issued: z.array(Invoice),
  inForce: z.array(Invoice),
  inputs: z.string().optional(),
  dateFormat: InvoiceSettings.shape.dateFormat,
  approved: z.boolean(),
  seller: Seller,
});

interface RunRow {
  run_id: string;
  content_hash: string;
  run: unknown;
  first_number: string;
  last_number: string;
  exported_by: string;
  exported_at: string;
}

/** The largest jsonb value PostgreSQL keeps (its limit, 268,435,455 bytes), less a margin for its own encoding. */
const TEAM_RUN_MAX_BYTES = 250 * 1024 * 1024;

/**
 * A run's body as the team ledger keeps it (one jsonb value of schema version 2), or a refusal in words before
 * anything is numbered, when it is larger than one value can be: a million-line month's first run (10,000
 * invoices, 601,268 lines, each invoice issued and in force) is past the longest text JavaScript can make.
 */
export function teamRunBody(run: StoredRun, maxBytes = TEAM_RUN_MAX_BYTES): string {
  const lines = run.issued.reduce((sum, invoice) => sum + invoice.lines.length, 0);
  const tooLarge = (size: string) =>
    new AppError(
      'storage',
      `The team ledger cannot keep this run of ${run.issued.length.toLocaleString('en-US')} invoices (${lines.toLocaleString('en-US')} lines) as one record: it would be ${size}, and PostgreSQL keeps at most 255 MB in one. Nothing was numbered or exported. This workstation's own ledger keeps runs of any size; the team ledger's will in a later schema version — ask your administrator.`,
    );
  let body: string;
  try {
    body = runBody(run);
  } catch (error) {
    if (error instanceof RangeError) throw tooLarge('more than 512 MB');
    throw error;
  }
  const bytes = Buffer.byteLength(body);
  if (bytes > maxBytes) throw tooLarge(`${Math.round(bytes / 1024 / 1024)} MB`);
  return body;
}

/**
 * Invoicing on the team ledger: one mapping and one number sequence for the team, and every exported run, each
 * written by a function of the schema (version 2) under the month's lock. A run the server recorded is copied into
 * the workstation's ledger too, so it is written again byte for byte offline, and the month is not reopened here.
 */
export class TeamInvoiceRecord implements InvoiceRecord {
  readonly where = 'the team ledger';

  constructor(
    private readonly connection: TeamConnection,
    private readonly ledger: () => Promise<Ledger>,
    private readonly workstation: string,
  ) {}

  async mapping(broker: Broker): Promise<InvoiceMapping> {
    const rows = await this.connection.query<{ kind: string; key: string; mapping: unknown }>(
      'SELECT kind, key, mapping FROM closebook.invoice_mapping WHERE host = $1 AND reseller_id = $2 ORDER BY kind, key',
      [broker.host, broker.resellerId],
    );
    const entry = <T>(schema: z.ZodType<T>, row: (typeof rows)[number]): T => {
      const parsed = schema.safeParse(row.mapping);
      if (!parsed.success)
        throw new AppError('bad-response', `The team ledger's mapping of ${row.kind} ${row.key} cannot be read: import the mapping again to replace it.`);
      return parsed.data;
    };
    return {
      customers: rows.filter((row) => row.kind === 'customer').map((row) => entry(CustomerMapping, row)),
      items: rows.filter((row) => row.kind === 'item').map((row) => entry(ItemMapping, row)),
    };
  }

  async mappingHistory(broker: Broker, key: string | null): Promise<MappingChange[] | null> {
    const [kept] = await this.connection.query<{ kept: boolean }>("SELECT to_regclass('closebook.invoice_mapping_log') IS NOT NULL AS kept");
    if (!kept?.kept) return null; // a team ledger before schema version 3
    const rows = await this.connection.query<{ kind: string; key: string; entry: string | null; changed_by: string; workstation: string; changed_at: string }>(
      `SELECT kind, key, mapping::text AS entry, changed_by, workstation, to_char(changed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS changed_at
       FROM closebook.invoice_mapping_log WHERE host = $1 AND reseller_id = $2 AND ($3::text IS NULL OR key = $3) ORDER BY seq`,
      [broker.host, broker.resellerId, key],
    );
    return rows.map((row) => ({
      kind: row.kind === 'item' ? 'item' : 'customer',
      key: row.key,
      entry: row.entry,
      changedBy: row.changed_by,
      workstation: row.workstation,
      changedAt: row.changed_at,
    }));
  }

  async saveMapping(broker: Broker, mapping: InvoiceMapping, replaceAll: boolean): Promise<void> {
    await this.connection.query('SELECT closebook.set_invoice_mapping($1, $2, $3, $4::jsonb, $5::jsonb, $6)', [
      broker.host,
      broker.resellerId,
      replaceAll,
      JSON.stringify(mapping.customers),
      JSON.stringify(mapping.items),
      this.workstation,
    ]);
  }

  async counter(broker: Broker): Promise<{ prefix: string | null; next: number }> {
    const [row] = await this.connection.query<{ prefix: string; next_number: string }>(
      'SELECT prefix, next_number FROM closebook.invoice_counters WHERE host = $1 AND reseller_id = $2',
      [broker.host, broker.resellerId],
    );
    return row ? { prefix: row.prefix, next: Number(row.next_number) } : { prefix: null, next: 1 };
  }

  async setCounter(broker: Broker, prefix: string, next: number): Promise<void> {
    await this.connection.query('SELECT closebook.set_invoice_counter($1, $2, $3, $4)', [broker.host, broker.resellerId, prefix, next]);
  }

  async runs(broker: Broker, period: RunPeriod): Promise<StoredRun[]> {
    const rows = await this.connection.query<RunRow>(
      `SELECT r.run_id, r.content_hash, r.run, r.first_number, r.last_number, r.exported_by, ${iso('r.exported_at')} AS exported_at
       FROM closebook.invoice_runs r JOIN closebook.months m USING (month_id)
       WHERE m.host = $1 AND m.reseller_id = $2 AND m.period_start = $3::date AND m.period_end = $4::date ORDER BY r.exported_at, r.run_id`,
      [broker.host, broker.resellerId, period.start, period.end],
    );
    return rows.map((row) => {
      const body = RunBody.safeParse(row.run);
      if (!body.success) throw new AppError('bad-response', `The team ledger's invoice run ${row.first_number}–${row.last_number} cannot be read.`);
      return {
        runId: row.run_id,
        reportId: '',
        contentHash: row.content_hash,
        ...body.data,
        firstNumber: row.first_number,
        lastNumber: row.last_number,
        exportedAt: row.exported_at,
        exportedBy: row.exported_by,
      };
    });
  }

  /** Made from the runs whole: the team ledger keeps each in one value, read whole. */
  async runSummaries(broker: Broker, period: RunPeriod): Promise<RunSummary[]> {
    return (await this.runs(broker, period)).map(summaryOf);
  }

  async recordRun(broker: Broker, period: RunPeriod, run: StoredRun, previousRunId: string | null, prefix: string, first: number): Promise<void> {
    const body = teamRunBody(run);
    await this.connection.query(
      'SELECT closebook.record_invoice_run($1, $2, $3::date, $4::date, $5::uuid, $6::uuid, $7, $8, $9, $10::text[], $11::jsonb, $12)',
      [
        broker.host,
        broker.resellerId,
        period.start,
        period.end,
        run.runId,
        previousRunId,
        run.contentHash,
        prefix,
        first,
        run.issued.map((invoice) => invoice.number ?? ''),
        body,
        this.workstation,
      ],
    );
    await this.keepCopy(broker, period, run);
  }

  /** Read whole, as the team ledger keeps it; the workstation keeps its copy (kept twice, it is left as it is). */
  async runToWriteAgain(broker: Broker, period: RunPeriod, runId: string, reportId: string): Promise<RunToWriteAgain> {
    const last = (await this.runs(broker, period)).at(-1);
    if (last?.runId !== runId) throw exportedMeanwhile();
    await this.keepCopy(broker, period, { ...last, reportId: last.reportId || reportId });
    const { issued, inForce: _inForce, ...run } = last;
    return { ...run, issued: issuedInMemory(issued) };
  }

  /** The workstation's copy of a run: written again offline, and the month not reopened here either. */
  private async keepCopy(broker: Broker, period: RunPeriod, run: StoredRun): Promise<void> {
    await (await this.ledger()).write((transaction) => insertRun(transaction, broker, period, run));
  }
}
