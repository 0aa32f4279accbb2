import { rm } from 'node:fs/promises';
import type { ReportFilter } from '@shared/report-filter';
import { type Ledger, sqlPath } from '../ledger/ledger';
import { CSV_BOM, csvCell, csvLine } from '../formats/csv';
import { FILE_COLUMNS } from './billing-line-columns';
import { csvLines, orderedLines, organizationBatches, rankedOrganizations } from './queries/export-lines';
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

/**
 * CSV for ERP import (the format is stated in the README): UTF-8 with BOM, comma-separated, point decimals, CRLF
 * line ends, a header row of the catalogue's file columns; text escaped against formulas, numbers as they are. Each
 * line is made whole by DuckDB (csvLines), so a million lines never cross into JavaScript one value at a time.
 */
async function writeCsv(ledger: Ledger, reportId: string, path: string, filter?: ReportFilter): Promise<{ lines: number }> {
  return ledger.outputs.writeStream(path, async (sink) => {
    let lines = 0;
    await sink.put(CSV_BOM + csvLine(FILE_COLUMNS.map((column) => csvCell(column.file))));
    for await (const batch of csvLines(ledger, reportId, filter, FILE_WINDOW)) {
      if (batch.length === 0) continue;
      lines += batch.length;
      await sink.put(`${batch.join('\r\n')}\r\n`);
    }
    return { lines };
  });
}

/**
 * About this many lines a query, for the files whose lines DuckDB makes whole (CSV lines, Parquet parts). Sorting a
 * whole month at once does not fit the ledger's memory at 1,000,000 lines (a Parquet export ran out of its 512 MB and
 * failed), so the lines are put in order a batch of consecutive organizations at a time; each batch scans the month,
 * so larger batches are faster and hold more. Measured at 1,000,000 lines — Parquet: 25,000 a batch 9.7 s and 705 MB
 * peak, 50,000 7.4 s and 810 MB, 100,000 7.1 s and 985 MB, 200,000 5.0 s and 1.18 GB; CSV: 25,000 23.0 s and 655 MB,
 * 50,000 19.3 s and 655 MB, 100,000 17.4 s and 803 MB.
 */
const FILE_WINDOW = 50_000;

/**
 * Parquet for BI tools and warehouses, written by DuckDB itself (amounts stay DECIMAL in the file): the file columns
 * in the order every export has — the same query as the CSV's — each batch written to a part in the staging folder
 * and the parts joined in order into the one file.
 */
export async function writeParquet(ledger: Ledger, reportId: string, path: string, filter?: ReportFilter, window = FILE_WINDOW): Promise<{ lines: number }> {
  const { where, params } = lineFilter(reportId, filter);
  const organizations = await rankedOrganizations(ledger, where, params);
  const ordered = orderedLines(where, params.length, 'file');
  // No organization: one empty batch still writes a file with the columns and no rows.
  const batches = organizations.length ? organizationBatches(organizations, window) : [{ numbers: [], ranks: [] }];
  await ledger.outputs.write(path, async (temporary) => {
    const parts = batches.map((_, index) => `${temporary}.part-${index}.parquet`);
    try {
      for (const [index, batch] of batches.entries())
        await ledger.run(`COPY (${ordered}) TO ${sqlPath(parts[index] as string)} (FORMAT PARQUET, COMPRESSION ZSTD)`, [...params, batch.numbers, batch.ranks]);
      // The parts read in their order (DuckDB keeps the order of the files and of each file's rows) into the one file.
      await ledger.run(`COPY (SELECT * FROM read_parquet([${parts.map(sqlPath).join(', ')}])) TO ${sqlPath(temporary)} (FORMAT PARQUET, COMPRESSION ZSTD)`);
    } finally {
      await Promise.all(parts.map((part) => rm(part, { force: true })));
    }
  });
  return { lines: organizations.reduce((sum, organization) => sum + organization.lines, 0) };
}
