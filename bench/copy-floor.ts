import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

/**
 * The floor of a line export: DuckDB's own COPY of the same month's lines — every line with its organization,
 * service and subscription joined — to Parquet and to CSV, in this one process, with the ledger's memory limit and
 * threads. Unordered: the cost of writing those rows at all (Closebook's exports also sort them in the tree's order,
 * and escape the CSV's text). Read-only on the ledger, so run it when no CLI process holds it.
 */
export async function copyFloor(dataDir: string, reportId: string): Promise<{ parquetMs: number; csvMs: number }> {
  const out = await mkdtemp(join(tmpdir(), 'closebook-floor-'));
  const instance = await DuckDBInstance.create(join(dataDir, 'ledger', 'closebook.duckdb'), {
    access_mode: 'READ_ONLY',
    memory_limit: '512MB',
    threads: '2',
    temp_directory: out,
  });
  const connection = await instance.connect();
  const rows = `SELECT o.name, o.customer_number, o.org_id, s.service_name, s.service_id, u.item_name, u.subscription_id, u.po_number,
      l.product_id, l.product_name, l.item_code, l.quantity, l.cost_per_unit, l.sales_per_unit, l.cost, l.sales, l.item_details,
      l.currency, l.customer_currency
    FROM billing_lines l
    JOIN organizations o ON o.report_id = l.report_id AND o.org_no = l.org_no
    JOIN services s ON s.report_id = l.report_id AND s.service_no = l.service_no
    JOIN subscriptions u ON u.report_id = l.report_id AND u.subscription_no = l.subscription_no
    WHERE l.report_id = '${reportId.replaceAll("'", "''")}'`;
  const timed = async (file: string, format: string) => {
    const started = performance.now();
    await connection.run(`COPY (${rows}) TO '${join(out, file)}' (${format})`);
    return performance.now() - started;
  };
  try {
    return { parquetMs: await timed('lines.parquet', 'FORMAT PARQUET'), csvMs: await timed('lines.csv', 'FORMAT CSV, HEADER') };
  } finally {
    connection.closeSync();
    instance.closeSync();
    await rm(out, { recursive: true, force: true });
  }
}
