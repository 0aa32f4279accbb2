import type { ReportFilter } from '@shared/report-filter';
import { type Ledger, sqlPath } from '../ledger/ledger';
import { CSV_BOM, csvCell, csvLine } from '../formats/csv';
import { FILE_COLUMNS, LINE_FIELDS } from './billing-line-columns';
import { exportLines, orderedLines, rankedOrganizations } from './queries/export-lines';
import { ReportLibrary } from './report-library';
import { lineFilter } from './queries/lines';
import { writeReportWorkbook, type WorkbookOptions } from './report-workbook';

export type ExportFormat = 'xlsx' | 'parquet' | 'csv';

/** Writes a saved report (or what the filter keeps) to `path` in one format; returns the number of lines written. */
export async function exportReport(
  ledger: () => Promise<Ledger>,
  reportId: string,
  format: ExportFormat,
  path: string,
  options: WorkbookOptions,
): Promise<{ lines: number }> {
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

/** Where each file column's value sits in an exported line. */
const FILE_FIELDS = FILE_COLUMNS.map((column) => [LINE_FIELDS.indexOf(column.field), column.kind] as const);

/**
 * CSV for ERP import (the format is stated in the README): UTF-8 with BOM, comma-separated, point decimals, CRLF
 * line ends, a header row of the catalogue's file columns; text escaped against formulas, numbers as they are.
 */
async function writeCsv(ledger: Ledger, reportId: string, path: string, filter?: ReportFilter): Promise<{ lines: number }> {
  return ledger.outputs.writeStream(path, async (sink) => {
    let lines = 0;
    await sink.put(CSV_BOM + csvLine(FILE_COLUMNS.map((column) => csvCell(column.file))));
    for await (const batch of exportLines(ledger, reportId, filter)) {
      let chunk = '';
      for (const line of batch)
        chunk += csvLine(FILE_FIELDS.map(([index, kind]) => (kind === 'number' ? csvCell(plainDecimal(line[index]), 'number') : csvCell(line[index]))));
      lines += batch.length;
      await sink.put(chunk);
    }
    return { lines };
  });
}

/**
 * Parquet for BI tools and warehouses, written by DuckDB itself (amounts stay DECIMAL in the file): the file columns
 * in the order every export has — the same query as the CSV's, over all the filter's organizations at once.
 */
async function writeParquet(ledger: Ledger, reportId: string, path: string, filter?: ReportFilter): Promise<{ lines: number }> {
  const { where, params } = lineFilter(reportId, filter);
  const organizations = await rankedOrganizations(ledger, where, params);
  const ordered = orderedLines(where, params.length, 'file');
  await ledger.outputs.write(path, async (temporary) => {
    // COPY takes no bound parameter for the path: sqlPath quotes it (the staging folder's own name); the filter's values stay bound.
    await ledger.run(`COPY (${ordered}) TO ${sqlPath(temporary)} (FORMAT PARQUET, COMPRESSION ZSTD)`, [
      ...params,
      organizations.map((organization) => organization.org_no),
      organizations.map((organization) => organization.org_rank),
    ]);
  });
  return { lines: organizations.reduce((sum, organization) => sum + organization.lines, 0) };
}
