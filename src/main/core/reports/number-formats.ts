/** ISO 4217 minor units that are not 2; everything else shows two decimals. */
const MINOR_UNITS: Record<string, number> = { JPY: 0, KRW: 0, ISK: 0, CLP: 0, VND: 0, HUF: 2, BHD: 3, KWD: 3, OMR: 3, JOD: 3, TND: 3, IQD: 3, LYD: 3 };

function decimals(currency: string): string {
  const places = MINOR_UNITS[currency] ?? 2;
  return places === 0 ? '' : `.${'0'.repeat(places)}`;
}

/** An amount in its currency: `#,##0.00 "SEK"` (the code stays visible when sheets are filtered or copied). */
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

/** The edge where exact decimal strings become numbers: only for cells. */
export function cellNumber(decimal: string): number {
  return Number(decimal);
}

/** "2026-10-07T00:00:00" (no zone, as the service sends it) → a Date whose UTC fields are those. */
export function cellDate(value: string): Date | string {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(value);
  if (!match) return value;
  const [, y, m, d, hh = '0', mm = '0', ss = '0'] = match;
  return new Date(Date.UTC(Number(y), Number(m) - 1, Number(d), Number(hh), Number(mm), Number(ss)));
}

/**
 * One shared style object per number format. exceljs recognises a style it has seen by object identity, so cells
 * that share these skip its per-cell style indexing (setting `cell.numFmt` would create a new style per cell).
 */
const styles = new Map<string, { numFmt: string }>();
export function styleOf(numFmt: string): { numFmt: string } {
  let style = styles.get(numFmt);
  if (!style) {
    style = { numFmt };
    styles.set(numFmt, style);
  }
  return style;
}
