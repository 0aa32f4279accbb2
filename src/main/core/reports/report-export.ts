import { createWriteStream } from 'node:fs';
import { chmod, rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { AppError } from '../../../shared/errors';
import type { ReportFilter } from '../../../shared/report-model';
import { type Ledger, sqlPath } from '../ledger/ledger';
import { CSV_BOM, csvCell, csvLine } from '../platform/csv';
import { ReportLibrary } from './report-library';
import { filteredLines } from './report-query';
import { writeReportWorkbook, type WorkbookOptions } from './report-workbook';

export type ExportFormat = 'xlsx' | 'parquet' | 'csv';

/**
 * The billing-line columns of the CSV and Parquet exports, in this order (the CSV's header row is these names).
 * Amounts are exact decimals with a point; text as sent.
 */
export const LINE_EXPORT_COLUMNS = [
  ['Organization', 'org_name', 'text'],
  ['Customer number', 'customer_number', 'text'],
  ['Org ID', 'org_id', 'text'],
  ['Service', 'service_name', 'text'],
  ['Service ID', 'service_id', 'text'],
  ['Subscription', 'item_name', 'text'],
  ['Subscription ID', 'subscription_id', 'text'],
  ['PO number', 'po_number', 'text'],
  ['Product', 'product_name', 'text'],
  ['Product ID', 'product_id', 'text'],
  ['Item code', 'item_code', 'text'],
  ['Quantity', 'quantity', 'number'],
  ['Reseller price per unit', 'cost_per_unit', 'number'],
  ['Customer price per unit', 'sales_per_unit', 'number'],
  ['Cost', 'cost', 'number'],
  ['Sales', 'sales', 'number'],
  ['Currency', 'currency', 'text'],
  ['Customer currency', 'customer_currency', 'text'],
  ['Billing date', 'billing_date', 'text'],
  ['Item details', 'item_details', 'text'],
] as const;

/** Writes a saved report (or what the filter keeps) to `path` in one format; returns the number of lines written. */
export async function exportReport(ledger: () => Promise<Ledger>, reportId: string, format: ExportFormat, path: string, options: WorkbookOptions): Promise<{ lines: number }> {
  const opened = await ledger();
  const meta = await new ReportLibrary(ledger).meta(reportId);
  if (format === 'xlsx') return writeReportWorkbook(opened, meta, path, options);
  if (format === 'parquet') return writeParquet(opened, reportId, path, options.filter);
  return writeCsv(opened, reportId, path, options.filter);
}

/** A numeric value as the ledger gives it, trailing zeros of its scale dropped ("12.500000" → "12.5"). */
function plainDecimal(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/**
 * CSV for ERP import: UTF-8 with BOM, comma-separated, point decimals, CRLF line ends, a header row of
 * LINE_EXPORT_COLUMNS; text escaped against formulas, numbers as they are.
 */
async function writeCsv(ledger: Ledger, reportId: string, path: string, filter?: ReportFilter): Promise<{ lines: number }> {
  const { sql, params } = filteredLines(reportId, filter);
  const partial = `${path}.${process.pid}.part`;
  const out = createWriteStream(partial, { mode: 0o600 });
  let lines = 0;
  try {
    const write = async (text: string) => {
      if (!out.write(text)) await once(out, 'drain');
    };
    await write(CSV_BOM + csvLine(LINE_EXPORT_COLUMNS.map(([header]) => csvCell(header))));
    for await (const rows of ledger.stream(`SELECT * FROM (${sql}) ORDER BY line_no`, params)) {
      let chunk = '';
      for (const row of rows) {
        chunk += csvLine(LINE_EXPORT_COLUMNS.map(([, column, kind]) => (kind === 'number' ? csvCell(plainDecimal(row[column]), 'number') : csvCell(row[column] as string | null))));
        lines++;
      }
      await write(chunk);
    }
    out.end();
    await finished(out);
    await rename(partial, path);
    return { lines };
  } catch (error) {
    out.destroy();
    await rm(partial, { force: true });
    throw error;
  }
}

/** Parquet for BI tools and warehouses, written by DuckDB itself (amounts stay DECIMAL in the file). */
async function writeParquet(ledger: Ledger, reportId: string, path: string, filter?: ReportFilter): Promise<{ lines: number }> {
  const { sql, params } = filteredLines(reportId, filter);
  const partial = `${path}.${process.pid}.part`;
  const columns = LINE_EXPORT_COLUMNS.map(([header, column]) => `${column} AS "${header}"`).join(', ');
  try {
    // COPY takes no bound parameters for the path; the filter's own values stay bound.
    await ledger.run(`COPY (SELECT ${columns} FROM (${sql})) TO ${sqlPath(partial)} (FORMAT PARQUET, COMPRESSION ZSTD)`, params);
    await chmod(partial, 0o600);
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    if (error instanceof AppError) throw error;
    throw new AppError('storage', `The Parquet file could not be written to ${path} (${error instanceof Error ? error.message.split('\n')[0] : String(error)}).`);
  }
  const [count] = await ledger.all(`SELECT count(*) AS lines FROM (${sql})`, params);
  return { lines: Number(count?.lines ?? 0) };
}
