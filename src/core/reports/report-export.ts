import type { ReportFilter } from '@shared/report-filter';
import { type Ledger, sqlPath } from '../ledger/ledger';
import { CSV_BOM, csvCell, csvLine } from '../formats/csv';
import { exportLines, LINE_FIELDS, LINE_ORDER, ORGANIZATION_ORDER } from './report-export-lines';
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
function plainDecimal(value: string | null | undefined): string {
  if (value === null || value === undefined) return '';
  return value.includes('.') ? value.replace(/0+$/, '').replace(/\.$/, '') : value;
}

/** Where each CSV column's value sits in an exported line. */
const CSV_FIELDS = LINE_EXPORT_COLUMNS.map(([, column, kind]) => [LINE_FIELDS.indexOf(column), kind] as const);

/**
 * CSV for ERP import (the format is stated in the README): UTF-8 with BOM, comma-separated, point decimals, CRLF
 * line ends, a header row of LINE_EXPORT_COLUMNS; text escaped against formulas, numbers as they are.
 */
async function writeCsv(ledger: Ledger, reportId: string, path: string, filter?: ReportFilter): Promise<{ lines: number }> {
  return ledger.outputs.writeStream(path, async (sink) => {
    let lines = 0;
    await sink.put(CSV_BOM + csvLine(LINE_EXPORT_COLUMNS.map(([header]) => csvCell(header))));
    for await (const batch of exportLines(ledger, reportId, filter)) {
      let chunk = '';
      for (const line of batch) chunk += csvLine(CSV_FIELDS.map(([index, kind]) => (kind === 'number' ? csvCell(plainDecimal(line[index]), 'number') : csvCell(line[index]))));
      lines += batch.length;
      await sink.put(chunk);
    }
    return { lines };
  });
}

/** Parquet for BI tools and warehouses, written by DuckDB itself (amounts stay DECIMAL in the file), lines in the workbook's order. */
async function writeParquet(ledger: Ledger, reportId: string, path: string, filter?: ReportFilter): Promise<{ lines: number }> {
  const { sql, params } = filteredLines(reportId, filter);
  const columns = LINE_EXPORT_COLUMNS.map(([header, column]) => `${column} AS "${header}"`).join(', ');
  await ledger.outputs.write(path, async (temporary) => {
    // COPY takes no bound parameter for the path: sqlPath quotes it (and refuses control characters); the filter's values stay bound.
    const ordered = `SELECT ${columns} FROM (${sql}) JOIN (SELECT org_no, org_rank FROM (${ORGANIZATION_ORDER})) USING (org_no) ORDER BY ${LINE_ORDER}`;
    await ledger.run(`COPY (${ordered}) TO ${sqlPath(temporary)} (FORMAT PARQUET, COMPRESSION ZSTD)`, params);
  });
  const [count] = await ledger.all(`SELECT count(*) AS lines FROM (${sql})`, params);
  return { lines: Number(count?.lines ?? 0) };
}
