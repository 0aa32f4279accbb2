import { shortestDecimalText } from '@core/ledger/decimal-text';
import type { DecimalType } from '@core/ledger/types';

/**
 * csvCell in SQL, for CSV lines DuckDB writes whole (a million lines need not cross into JavaScript one value at a
 * time). It must give exactly what csvCell gives — csv-sql.test.ts holds the two side by side on hostile values.
 *
 * Text: wherever a cell could begin (the start, after , ; tab CR LF, spaces allowed for), = + - @ gets an apostrophe
 * before it; a value starting with a tab or CR gets one in front; quoted, quotes doubled, when it holds " , ; tab
 * CR or LF. Numbers: a DECIMAL of the given type as its exact text without the trailing zeros of its scale
 * ("12.500000" → "12.5"; shortestDecimalText).
 * NULL is an empty cell. RE2's `^` is the start of the text, as JavaScript's is without the m flag.
 */
export function csvCellSql(expression: string, kind: 'text' | { decimal: DecimalType }): string {
  if (kind !== 'text') return `coalesce(${shortestDecimalText(expression, kind.decimal)}, '')`;
  const value = `(${expression})::VARCHAR`;
  const escaped = `regexp_replace(${value}, '(^|[,;\\t\\r\\n])( *)([=+\\-@])', '\\1\\2''\\3', 'g')`;
  const safe = `CASE WHEN regexp_matches(${escaped}, '^[\\t\\r]') THEN '''' || ${escaped} ELSE ${escaped} END`;
  const quoted = `CASE WHEN regexp_matches(${safe}, '[",;\\t\\r\\n]') THEN '"' || replace(${safe}, '"', '""') || '"' ELSE ${safe} END`;
  // Most cells need none of it (names, ids): one test first, so a million lines are not run through five expressions.
  return `coalesce(CASE WHEN regexp_matches(${value}, '^ *[=+\\-@]|[",;\\t\\r\\n]') THEN ${quoted} ELSE ${value} END, '')`;
}
