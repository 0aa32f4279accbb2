import { formulaSafe } from '../formats/csv';

/** A number as the renderer copies it: the user's decimal separator (point or comma), no grouping. */
const COPIED_NUMBER = /^-?\d+(?:[.,]\d+)?%?$/;

/**
 * A table as the tab-separated text Excel pastes as cells: tabs between cells, CRLF between rows. A tab or line
 * break inside a cell would split it, so it becomes a space; text Excel would run as a formula is escaped as in
 * every CSV Closebook writes, while plain numbers ("-12.50", or "-12,50" in a decimal-comma locale) stay numbers.
 */
export function tableText(rows: readonly (readonly string[])[]): string {
  return rows
    .map((cells) =>
      cells
        .map((cell) => {
          const text = cell.replace(/[\t\r\n]+/g, ' ');
          return COPIED_NUMBER.test(text) ? text : formulaSafe(text, 'text');
        })
        .join('\t'),
    )
    .join('\r\n');
}
