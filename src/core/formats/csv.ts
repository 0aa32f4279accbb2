import { PLAIN_DECIMAL } from '@shared/model/decimal';

/**
 * CSV cells for every CSV Closebook writes (RFC 4180: quoted when needed, quotes doubled; also when a cell holds a
 * semicolon or a tab, which readers in other locales split on). Text goes through formulaSafe; numbers are written
 * as they are (a negative amount stays a number) — but only plain numbers: anything else in a number column is text.
 */
export function csvCell(value: string | number | null | undefined, kind: 'text' | 'number' = typeof value === 'number' ? 'number' : 'text'): string {
  if (value === null || value === undefined) return '';
  const text = formulaSafe(String(value), kind);
  return /[",;\t\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * Where a cell may begin, whatever the reader splits on: the start of the value, and after any character some
 * reader takes for a separator or a row end (comma, semicolon, tab, line break — a reader set to semicolons does
 * not honour a quoted comma field). Spaces between are allowed for, as some readers trim them.
 */
const CELL_START_THEN_FORMULA = /(^|[,;\t\r\n])( *)([=+\-@])/g;

/** A character without which formulaSafe changes nothing: a formula's first character, or a tab or carriage return. */
const MAY_NEED_ESCAPE = /[=+\-@\t\r]/;

/**
 * The formula escape of every CSV and clipboard text Closebook writes: wherever a cell could begin, a character a
 * spreadsheet starts a formula with (= + - @) gets an apostrophe before it, so `Acme;=cmd|' /C calc'!A0` stays text
 * whether the file is read with commas, semicolons or tabs; a value starting with a tab or carriage return gets one
 * in front. A number column passes only plain numbers through as they are; anything else in it is escaped like text.
 */
export function formulaSafe(text: string, kind: 'text' | 'number'): string {
  if (kind === 'number' && PLAIN_DECIMAL.test(text)) return text;
  if (!MAY_NEED_ESCAPE.test(text)) return text; // most cells: three times faster than the replace finding nothing
  const escaped = text.replace(CELL_START_THEN_FORMULA, "$1$2'$3");
  return /^[\t\r]/.test(escaped) ? `'${escaped}` : escaped;
}

/**
 * What formulaSafe was given, where `text` is what it wrote for that (otherwise `text` itself): a value read back from
 * a file Closebook wrote, such as a key that must match exactly. Not exact only for a text that held an apostrophe
 * before a formula's first character at a cell start, which no key of the service's holds.
 */
export function beforeFormulaSafe(text: string): string {
  if (!text.includes("'")) return text;
  const unescaped = text.replace(/^'(?=[\t\r])/, '').replace(/(^|[,;\t\r\n])( *)'([=+\-@])/g, '$1$2$3');
  return unescaped !== text && formulaSafe(unescaped, 'text') === text ? unescaped : text;
}

export function csvLine(cells: string[]): string {
  return `${cells.join(',')}\r\n`;
}

/** UTF-8 with a byte-order mark, so Excel opens it as UTF-8. */
export const CSV_BOM = '\uFEFF';
