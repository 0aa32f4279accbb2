import { cellLocalTime, DATETIME_FORMAT, type Look, machineTimeZone, styleOf } from './number-formats';
import type { Sheet } from './workbook-file';

/** A row of the About sheet: a label and its values; `look` makes the whole row bold (a header, or what must not be missed). */
export interface AboutRow {
  values: (string | number | Date)[];
  look?: Look;
}

/**
 * An instant as a cell in Closebook's own zone (the machine's unless `timeZone` is set) with the zone named, as the
 * About sheet shows times; null for an invalid date.
 */
export function localTime(instant: Date, timeZone?: string): { value: Date; zone: string } | null {
  return Number.isNaN(instant.getTime()) ? null : cellLocalTime(instant, timeZone ?? machineTimeZone());
}

/** Writes About rows from the first row down (labels bold, dates as date-times); returns the next free row number. */
export function writeAboutRows(worksheet: Sheet, rows: AboutRow[]): number {
  rows.forEach(({ values, look }, index) => {
    const row = worksheet.getRow(index + 1);
    row.values = values;
    values.forEach((value, column) => {
      const label = column === 0 || look === 'header';
      row.getCell(column + 1).style = styleOf(value instanceof Date ? DATETIME_FORMAT : null, label ? 'header' : 'plain');
    });
    row.commit();
  });
  return rows.length + 1;
}
