import { createReadStream, createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join as joinPath } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ReportFilter } from '@shared/report-filter';
import { type Ledger, sqlPath } from '../ledger/ledger';
import { keptNameOrder } from '../ledger/name-ranks';
import { CSV_BOM, csvCell, csvLine } from '../formats/csv';
import { FILE_COLUMNS } from './billing-line-columns';
import { orderedLines, organizationBatches, rankedOrganizations } from './queries/export-lines';
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
 * line is made whole by DuckDB (orderedLines' `csv`) and written by DuckDB's own COPY, unquoted as it is: no line
 * crosses into JavaScript.
 */
export async function writeCsv(ledger: Ledger, reportId: string, path: string, filter?: ReportFilter, window = FILE_WINDOW): Promise<{ lines: number }> {
  return ledger.outputs.write(path, async (temporary) => {
    await writeFile(temporary, CSV_BOM + csvLine(FILE_COLUMNS.map((column) => csvCell(column.file))));
    return copyInBatches(
      ledger,
      reportId,
      filter,
      'csv',
      async (parts) => {
        for (const part of parts) await pipeline(createReadStream(part), createWriteStream(temporary, { flags: 'a' }));
      },
      window,
    );
  });
}

/**
 * About this many lines a query, for the files DuckDB writes (CSV lines, Parquet parts). Sorting a whole month at
 * once does not fit the ledger's memory at 1,000,000 lines (a Parquet export ran out of its 512 MB and failed), so
 * the lines are put in order a batch of consecutive organizations at a time; each batch scans the month, so larger
 * batches are faster and hold more. Measured at 1,000,000 lines — Parquet: 25,000 a batch 9.7 s and 705 MB peak,
 * 50,000 7.4 s and 810 MB, 100,000 7.1 s and 985 MB, 200,000 5.0 s and 1.18 GB.
 */
const FILE_WINDOW = 50_000;

/** How DuckDB's COPY writes each batch: a Parquet part, or the CSV lines as made (one column, nothing quoted, CRLF). */
const COPY_FORMAT = { file: 'FORMAT PARQUET, COMPRESSION ZSTD', csv: "FORMAT CSV, HEADER false, QUOTE '', ESCAPE '', NEW_LINE '\\r\\n'" } as const;

/**
 * The lines that pass the filter, in the order every export has, written by DuckDB's COPY a batch of consecutive
 * organizations at a time into parts in a scratch folder of the staging folder, which `join` puts together in
 * order; the folder goes whatever happens. Returns how many lines there were.
 */
async function copyInBatches(
  ledger: Ledger,
  reportId: string,
  filter: ReportFilter | undefined,
  projection: keyof typeof COPY_FORMAT,
  join: (parts: string[]) => Promise<void>,
  window = FILE_WINDOW,
): Promise<{ lines: number }> {
  const { where, params } = lineFilter(reportId, filter);
  const organizations = await rankedOrganizations(ledger, where, params);
  const ordered = orderedLines(where, params.length, projection, await keptNameOrder(ledger, reportId));
  // No organization: one empty batch still writes a part (a Parquet file with the columns and no rows).
  const batches = organizations.length ? organizationBatches(organizations, window) : [{ numbers: [], ranks: [] }];
  const scratch = await ledger.outputs.scratchFolder();
  try {
    const parts = batches.map((_, index) => joinPath(scratch.path, `part-${index}.${projection}`));
    for (const [index, batch] of batches.entries())
      await ledger.run(`COPY (${ordered}) TO ${sqlPath(parts[index] as string)} (${COPY_FORMAT[projection]})`, [...params, batch.numbers, batch.ranks]);
    await join(parts);
  } finally {
    await scratch.remove();
  }
  return { lines: organizations.reduce((sum, organization) => sum + organization.lines, 0) };
}

/**
 * Parquet for BI tools and warehouses, written by DuckDB itself (amounts stay DECIMAL in the file): the file columns
 * in the order every export has — the same query as the CSV's — and the parts read in their order (DuckDB keeps the
 * order of the files and of each file's rows) into the one file.
 */
export async function writeParquet(ledger: Ledger, reportId: string, path: string, filter?: ReportFilter, window = FILE_WINDOW): Promise<{ lines: number }> {
  return ledger.outputs.write(path, (temporary) =>
    copyInBatches(
      ledger,
      reportId,
      filter,
      'file',
      async (parts) => {
        await ledger.run(`COPY (SELECT * FROM read_parquet([${parts.map(sqlPath).join(', ')}])) TO ${sqlPath(temporary)} (${COPY_FORMAT.file})`);
      },
      window,
    ),
  );
}
