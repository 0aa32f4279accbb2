import type ExcelJS from 'exceljs';
import { minorUnits } from '@shared/currency';

function decimals(currency: string): string {
  const places = minorUnits(currency);
  return places === 0 ? '' : `.${'0'.repeat(places)}`;
}

/** An amount in its currency, to its minor unit: `#,##0.00 "SEK"`, `#,##0 "JPY"` (the code stays visible when sheets are filtered or copied). */
export function moneyFormat(currency: string): string {
  return `#,##0${decimals(currency)} "${currency}"`;
}

/** Unit prices carry up to four decimals. */
export function unitPriceFormat(currency: string): string {
  const minimum = decimals(currency);
  return `#,##0${minimum}${'#'.repeat(Math.max(0, 4 - Math.max(0, minimum.length - 1)))} "${currency}"`;
}

export const QUANTITY_FORMAT = '#,##0.####';
export const PERCENT_FORMAT = '0.00%';
export const DATE_FORMAT = 'yyyy-mm-dd';
export const DATETIME_FORMAT = 'yyyy-mm-dd hh:mm';
/** Text that must stay text when edited (customer numbers keep their leading zeros). */
export const TEXT_FORMAT = '@';
export const COUNT_FORMAT = '#,##0';

/** The edge where exact decimal strings become numbers: only for cells. */
export function cellNumber(decimal: string): number {
  return Number(decimal);
}

/**
 * An instant as a cell in a time zone's wall-clock time (a Date whose UTC fields are that time: Excel has no zones)
 * and the zone named with its offset at that instant: "Europe/Stockholm, UTC+01:00".
 */
export function cellLocalTime(instant: Date, timeZone: string): { value: Date; zone: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  );
  const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  const minutes = Math.round((wall - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
  const offset = `${minutes < 0 ? '-' : '+'}${String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0')}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`;
  return { value: new Date(wall), zone: `${timeZone}, UTC${offset}` };
}

/** The machine's time zone (what "local time" means in the About sheet). */
export function machineTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** How a cell looks beyond its number format: plain, a header, a customer subtotal (bold) or a total (bold, rule above). */
export type Look = 'plain' | 'header' | 'subtotal' | 'total';
const LOOKS: Record<Look, Partial<ExcelJS.Style>> = {
  plain: {},
  header: { font: { bold: true } },
  subtotal: { font: { bold: true } },
  total: { font: { bold: true }, border: { top: { style: 'thin' } } },
};

function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) if (inner && typeof inner === 'object') deepFreeze(inner as object);
  return Object.freeze(value);
}

/**
 * One shared, frozen style object per number format and look. exceljs recognises a style it has seen by object
 * identity, so cells that share these skip its per-cell style indexing (setting `cell.numFmt` would create a new
 * style per cell). Shared means never changed: setting `row.font` or `cell.font` on a cell that holds one would
 * change every cell of every later workbook in the process — frozen, that throws instead.
 */
const styles = new Map<string, Partial<ExcelJS.Style>>();
export function styleOf(numFmt: string | null, look: Look = 'plain'): Partial<ExcelJS.Style> {
  const key = `${look}|${numFmt ?? ''}`;
  let style = styles.get(key);
  if (!style) {
    style = deepFreeze({ ...structuredClone(LOOKS[look]), ...(numFmt === null ? {} : { numFmt }) });
    styles.set(key, style);
  }
  return style;
}
