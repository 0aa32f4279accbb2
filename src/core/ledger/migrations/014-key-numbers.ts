import { KEYED_LEVELS, keyNumbersSql } from '../keys';
import { MONTH_TABLES, remadeTable } from './001-months';
import { NAME_RANK_COLUMNS } from './009-name-order';

/** The column this migration adds to two appended tables: ingest appends it last, after migration 009's rank. */
export const KEY_NUMBER_COLUMNS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.keys(KEYED_LEVELS).map((table) => [table, ['key_no']]),
);

/**
 * Organizations and services numbered by the key the viewer's tree knows them by (ledger/keys.ts keyNumbersSql), so
 * a keystroke groups its top rows on whole numbers; every month saved before is numbered here. Each table is made
 * again with the column, its columns in the same order (ingest appends in that order): the migrations run in one
 * transaction, and DuckDB refuses to commit one that altered a table it had updated (migration 010 ranks names).
 */
export const KEY_NUMBERS: string[] = [
  ...Object.entries(KEY_NUMBER_COLUMNS).flatMap(([table, added]) => {
    const columns = {
      ...MONTH_TABLES[table as keyof typeof KEYED_LEVELS],
      ...Object.fromEntries([...(NAME_RANK_COLUMNS[table] ?? []), ...added].map((column) => [column, 'INTEGER'])),
    };
    return remadeTable(table, columns, added);
  }),
  ...keyNumbersSql('all'),
];
