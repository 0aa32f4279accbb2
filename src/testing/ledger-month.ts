import { afterAll, beforeAll } from 'vitest';
import { money } from '@shared/money';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { Ledger } from '@core/ledger/ledger';
import { MONTH_TABLES } from '@core/ledger/migrations/001-months';
import { MIGRATIONS } from '@core/ledger/schema';
import { silentLogger } from '@core/ports/ports';
import { contentHashOf } from '@core/reports';
import { ingestReport, type ReportIdentity } from '@core/reports/report-ingest';
import { buildBillingReport } from '@twin/billing-report';
import { generateOrganizations } from '@twin/dataset';
import { temporaryDir } from './test-support';

export type ServedEntries = ReturnType<typeof buildBillingReport>;

/** Restates every subscription's and service's totals from their lines, as a service that follows the spec does (after a test changed lines). */
export function restateTotals(entries: ServedEntries): void {
  for (const service of entries.flatMap((entry) => entry.organizations.flatMap((organization) => organization.services))) {
    for (const item of service.items) {
      item.totalCustomerPrice = item.products.reduce((sum, product) => sum.plus(product.totalCustomerPrice), money(0)).toFixed();
      item.totalResellerPrice = item.products.reduce((sum, product) => sum.plus(product.totalResellerPrice), money(0)).toFixed();
    }
    service.totalCustomerPrice = service.items.reduce((sum, item) => sum.plus(item.totalCustomerPrice), money(0)).toFixed();
    service.totalResellerPrice = service.items.reduce((sum, item) => sum.plus(item.totalResellerPrice), money(0)).toFixed();
  }
}

/** The identity a test month is saved under; override what a test cares about. */
export function testIdentity(reportId: string, change: Partial<ReportIdentity> = {}): ReportIdentity {
  const period = change.period ?? { startDate: '2026-10-01', endDate: '2026-10-31' };
  // Fetched on the 7th of the month after its period, as a month end does (a fetch before its end cannot be prepared).
  const after = new Date(`${period.endDate}T08:00:00.000Z`);
  after.setUTCMonth(after.getUTCMonth() + 1, 7);
  return {
    reportId,
    jobId: null,
    name: 'Billing 2026-10',
    profileId: 'p',
    profileName: 'Prod',
    host: 'billing.example.com',
    resellerId: 'r',
    period,
    fetchedAt: after.toISOString(),
    source: 'service',
    sourceFile: null,
    ...change,
  };
}

/**
 * A ledger in a temporary folder holding one twin month (optionally changed before it is "served"), for the
 * tests of what reads the ledger: the viewer, exports, sharing. `close` closes it and removes the folder.
 */
export async function ledgerWithMonth(options: {
  reportId: string;
  seed: number;
  organizations: number;
  linesPerOrganization: number;
  change?: (entries: ServedEntries) => void;
}) {
  const dir = await temporaryDir();
  const ledger = await Ledger.open(dir.path, silentLogger);
  const entries = buildBillingReport(
    generateOrganizations({ seed: options.seed, organizations: options.organizations, linesPerOrganization: options.linesPerOrganization }),
    '2026-10-01',
    '2026-10-31',
    { seed: options.seed },
  );
  options.change?.(entries);
  async function* body() {
    yield JSON.stringify({ status: 5, data: entries });
  }
  await ingestReport(ledger, testIdentity(options.reportId), body());
  const lines = entries.flatMap((entry) =>
    entry.organizations.flatMap((organization) =>
      organization.services.flatMap((service) => service.items.flatMap((item) => item.products.map((line) => ({ organization, service, item, line })))),
    ),
  );
  return {
    dir: dir.path,
    ledger,
    entries,
    lines,
    close: async () => {
      await ledger.close();
      await dir.remove();
    },
  };
}

/**
 * Copies the saved months of a ledger saved by today's Closebook (`donorFile`) into an older one on `connection`
 * (made by the first migrations only): the columns the older tables have, by name; later columns stay behind.
 */
export async function copyMonthsInto(connection: DuckDBConnection, donorFile: string): Promise<void> {
  await connection.run(`ATTACH '${donorFile}' AS donor (READ_ONLY)`);
  for (const table of Object.keys(MONTH_TABLES)) {
    const reader = await connection.runAndReadAll(
      `SELECT string_agg(column_name, ', ' ORDER BY column_index) AS columns FROM duckdb_columns() WHERE database_name <> 'donor' AND table_name = '${table}'`,
    );
    const columns = String(reader.getRowObjects()[0]?.columns);
    await connection.run(`INSERT INTO ${table} (${columns}) SELECT ${columns} FROM donor.${table}`);
  }
  await connection.run('DETACH donor');
}

/**
 * A ledger folder as an earlier Closebook left it (`version`: its schema), holding the months of a ledger saved by
 * today's (`donorFile`); the connection stays open for a test to add what that Closebook kept, then `close`.
 */
export async function ledgerAtSchema(dataDir: string, version: number, donorFile: string): Promise<{ connection: DuckDBConnection; close(): void }> {
  await mkdir(join(dataDir, 'ledger'), { recursive: true, mode: 0o700 });
  const instance = await DuckDBInstance.create(join(dataDir, 'ledger', 'closebook.duckdb'));
  const connection = await instance.connect();
  await connection.run('CREATE TABLE schema_version (version INTEGER NOT NULL)');
  for (const [at, statements] of MIGRATIONS.slice(0, version).entries()) {
    for (const statement of statements) await connection.run(statement);
    await connection.run(`INSERT INTO schema_version VALUES (${at + 1})`);
  }
  await copyMonthsInto(connection, donorFile);
  return {
    connection,
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/**
 * An empty ledger in a folder of its own for the tests of one file: opened before them (then `setUp`, to save months
 * into it), closed and its folder removed after. Returns the ledger, for use inside the tests.
 */
export function useLedger(setUp: (ledger: Ledger) => Promise<void> = async () => {}): () => Ledger {
  let opened: { ledger: Ledger; remove: () => Promise<void> } | undefined;
  beforeAll(async () => {
    const dir = await temporaryDir('closebook-ledger-');
    opened = { ledger: await Ledger.open(dir.path, silentLogger), remove: dir.remove };
    await setUp(opened.ledger);
  });
  afterAll(async () => {
    await opened?.ledger.close();
    await opened?.remove();
  });
  return () => {
    if (!opened) throw new Error('The ledger is opened before the tests run.');
    return opened.ledger;
  };
}

/**
 * A data folder's ledger opened directly, as no host may (a CLI process has closed it): to read what an export kept,
 * or to alter it as damage would. `hashOf` hashes a saved report's lines again.
 */
export async function withLedgerAt<T>(dataDir: string, use: (ledger: Ledger, hashOf: (reportId: string) => Promise<string>) => Promise<T>): Promise<T> {
  const ledger = await Ledger.open(dataDir, silentLogger);
  try {
    return await use(ledger, (reportId) => contentHashOf(ledger, reportId));
  } finally {
    await ledger.close();
  }
}
