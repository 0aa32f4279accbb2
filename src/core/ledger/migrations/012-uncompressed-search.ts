import { MONTH_TABLES, remadeTable } from './001-months';
import { SUBSCRIPTION_RANK_COLUMNS } from './010-subscription-ranks';

/**
 * The subscriptions' search text kept uncompressed. Every filter keystroke reads all of a month's (601,268 texts,
 * about 54 MB at 1,000,000 lines), and DuckDB's FSST compression made it decompress each one first: 27–51 ms a word,
 * against 10–32 ms read as they are, for about 25 MB more on disk per such month. DuckDB fixes a column's compression
 * when its table is made, so the table is made again, its columns in the same order (ingest appends in that order).
 */
const COLUMNS: Record<string, string> = {
  ...MONTH_TABLES.subscriptions,
  search: 'VARCHAR NOT NULL USING COMPRESSION uncompressed',
  ...Object.fromEntries((SUBSCRIPTION_RANK_COLUMNS.subscriptions ?? []).map((column) => [column, 'INTEGER'])),
};

export const UNCOMPRESSED_SEARCH: string[] = remadeTable('subscriptions', COLUMNS);
