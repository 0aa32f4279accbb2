import { AppError } from '@shared/errors';
import type { LedgerRow } from './ledger';

/**
 * What a query's row holds, column by column, so each query states its row's shape once and the code beside it
 * reads typed fields instead of casting each value where it is used. DuckDB gives DECIMAL and BIGINT as exact text
 * (JSON rows): `decimal` stays that text (money is never a float), `int` is a count or a row number, `ratio` a
 * measure that is no money (a margin %, a median of margins), `text` is text. A `?` allows null.
 */
export type ColumnKind = 'text' | 'text?' | 'int' | 'int?' | 'ratio' | 'decimal' | 'decimal?' | 'bool';

type Value<K extends ColumnKind> = K extends 'int' | 'ratio'
  ? number
  : K extends 'int?'
    ? number | null
    : K extends 'bool'
      ? boolean
      : K extends `${string}?`
        ? string | null
        : string;

export type Row<S extends Record<string, ColumnKind>> = { [Column in keyof S]: Value<S[Column]> };

/** A row's shape, and how a ledger row becomes it. */
export interface RowShape<S extends Record<string, ColumnKind>> {
  readonly columns: S;
  decode(row: LedgerRow): Row<S>;
  /** Every row of a result (`shape.all(await ledger.all(sql, params))`, or a streamed batch). */
  all(rows: readonly LedgerRow[]): Row<S>[];
}

function valueOf(kind: ColumnKind, value: LedgerRow[string] | undefined, column: string): unknown {
  if (value === null || value === undefined) {
    if (kind.endsWith('?')) return null;
    // A query that promised a value and gave none is a mistake in Closebook, never the user's data.
    throw new AppError('internal', `The ledger gave no ${column} where one must be. Please report this.`);
  }
  if (kind === 'bool') return value === true || value === 'true';
  if (kind === 'int' || kind === 'int?' || kind === 'ratio') return Number(value);
  return String(value);
}

export function rowShape<S extends Record<string, ColumnKind>>(columns: S): RowShape<S> {
  const entries = Object.entries(columns);
  const decode = (row: LedgerRow) => Object.fromEntries(entries.map(([column, kind]) => [column, valueOf(kind, row[column], column)])) as Row<S>;
  return { columns, decode, all: (rows) => rows.map(decode) };
}
