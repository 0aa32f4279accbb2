/** A plain decimal ("-12.50", "3"): a number in any spreadsheet, never a formula. */
const PLAIN_NUMBER = /^-?\d+(?:\.\d+)?$/;

/**
 * CSV cells for every CSV Closebook writes (RFC 4180: quoted when needed, quotes doubled). A text cell that a
 * spreadsheet would run as a formula — starting with = + - @, a tab or a carriage return — gets a leading
 * apostrophe, so `=HYPERLINK(…)` from a hostile name or error message stays text. Numbers are written as they are
 * (a negative amount stays a number) — but only plain numbers: anything else in a number column is text.
 */
export function csvCell(value: string | number | null | undefined, kind: 'text' | 'number' = typeof value === 'number' ? 'number' : 'text'): string {
  if (value === null || value === undefined) return '';
  const text = formulaSafe(String(value), kind);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The escape of csvCell alone (for the tab-separated text Closebook copies): formula-leading text gets a leading
 * apostrophe. A number column passes only plain numbers through as they are; anything else in it is escaped like text.
 */
export function formulaSafe(text: string, kind: 'text' | 'number'): string {
  return !(kind === 'number' && PLAIN_NUMBER.test(text)) && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

export function csvLine(cells: string[]): string {
  return `${cells.join(',')}\r\n`;
}

/** UTF-8 with a byte-order mark, so Excel opens it as UTF-8. */
export const CSV_BOM = '\uFEFF';
