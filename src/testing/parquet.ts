import { DuckDBInstance } from '@duckdb/node-api';

/**
 * Reads a Parquet file a test exported, with a DuckDB of its own: the ledger may read no file outside its folders,
 * so it cannot be the reader (which the ledger's own test proves). `select` names the file as `file`.
 */
export async function queryParquet(path: string, select: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(`${select.replace(/\bfile\b/, 'read_parquet($1)')}`, [path]);
    return reader.getRowObjectsJson();
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
