/**
 * CSV cells for every CSV Closebook writes (RFC 4180: quoted when needed, quotes doubled). A text cell that a
 * spreadsheet would run as a formula — starting with = + - @, a tab or a carriage return — gets a leading
 * apostrophe, so `=HYPERLINK(…)` from a hostile name or error message stays text. Numbers are written as they are
 * (a negative amount stays a number).
 */
export function csvCell(value: string | number | null | undefined, kind: 'text' | 'number' = 'text'): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (kind === 'text' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(cells: string[]): string {
  return `${cells.join(',')}\r\n`;
}

/** UTF-8 with a byte-order mark, so Excel opens it as UTF-8. */
export const CSV_BOM = '\uFEFF';
