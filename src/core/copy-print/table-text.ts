import { formulaSafe } from '../formats/csv';

/** A number as the renderer copies it: the user's decimal separator (point or comma), no grouping. */
const COPIED_NUMBER = /^-?\d+(?:[.,]\d+)?%?$/;

/**
 * A cell that reads as a number but would not survive as one: leading zeros (a PO or customer number "000123")
 * or more digits than a spreadsheet's number keeps (15). Pasted as a number it would lose them, so it is text.
 */
const keepsAsNumber = (text: string) => !/^-?0\d/.test(text) && text.replace(/\D/g, '').replace(/^0+/, '').length <= 15;

/**
 * A table's cell as copied: one line; digits as they are (a plain number is no formula, "-12.50" included), other
 * text escaped where it would start one. `number` says whether a spreadsheet may take it as a number.
 */
function copiedCell(cell: string): { text: string; number: boolean } {
  const text = cell.replace(/[\t\r\n]+/g, ' ');
  return COPIED_NUMBER.test(text) ? { text, number: keepsAsNumber(text) } : { text: formulaSafe(text, 'text'), number: false };
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * A table for the clipboard, each cell read once, in two flavours:
 * - `text`, tab-separated as Excel pastes it as cells: tabs between cells, CRLF between rows. A tab or line break
 *   inside a cell would split it, so it becomes a space; text Excel would run as a formula is escaped as in every CSV
 *   Closebook writes, while plain numbers ("-12.50", or "-12,50" in a decimal-comma locale) stay numbers.
 * - `html`, which a spreadsheet prefers when both are on the clipboard: a text cell carries Excel's text format
 *   (mso-number-format '\@'), so "000123" or an 18-digit PO stays as it is, where tab-separated text cannot say that
 *   a cell is text.
 */
export function copiedTable(rows: readonly (readonly string[])[]): { text: string; html: string } {
  const cells = rows.map((row) => row.map(copiedCell));
  const text = cells.map((row) => row.map((cell) => cell.text).join('\t')).join('\r\n');
  const html = cells
    .map(
      (row) =>
        `<tr>${row
          .map(({ text: cell, number }) => (number ? `<td>${escapeHtml(cell)}</td>` : `<td style="mso-number-format:'\\@'">${escapeHtml(cell)}</td>`))
          .join('')}</tr>`,
    )
    .join('');
  return { text, html: `<meta charset="utf-8"><table>${html}</table>` };
}
