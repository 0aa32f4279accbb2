/** Billing reports: requested and watched, saved in the ledger, read in the viewer, shared and exported. */
export { createReports, type ReportsApi, type ReportsModule } from './handlers';
export type { WorkbookAddition, WorkbookAdditionResult } from './report-workbook';
export { SERVICE_POLL_FLOOR_MS } from './report-job';
export { contentHashOf, keptContentHash } from './content-hash';
// The one order of organizations (by name), for the invoice run to list customers as every other view does.
export { fileLines, ORGANIZATION_ORDER } from './queries/export-lines';
// The Parquet file's options, for the benchmark's floor to write the same file.
export { PARQUET_OPTIONS } from './report-export';
// The statement a filter of the viewer runs (its top rows), for the benchmark to time DuckDB making them alone.
export { topRowsQuery } from './queries/viewer';
export { LEVEL_NUMBERS_SQL, type LevelNumbers, lineFilter, SEARCHED_LEVELS, typedWords, wordMatchesQuery } from './queries/lines';
