import type ExcelJS from 'exceljs';
import { AppError } from '@shared/errors';
import { PLAIN_DECIMAL } from '@shared/model/decimal';
import { xmlText } from './xml-text';

/**
 * Billing-line rows written straight into an exceljs streaming worksheet as XML. exceljs builds a row, cell and
 * style object per cell and serializes them generically: ~40 µs a line, 40 s of a million-line export. These rows
 * have fixed columns whose kinds are known, so their XML is one template (~4 µs a line). exceljs still writes
 * everything else — the package, styles, header rows, frozen panes, autofilters and the other sheets — and the
 * rows are exactly what it writes itself (`<c t="str">` text, styled numbers, dates as serial numbers).
 */

type WorkbookWriter = ExcelJS.stream.xlsx.WorkbookWriter;
type WorksheetWriter = ReturnType<WorkbookWriter['addWorksheet']>;

/** How a column's value (exact text from the ledger) is written. */
export type CellKind = 'text' | 'number' | 'date';

/** The parts of exceljs's streaming writer this relies on; checked, so an exceljs that moved them fails loudly. */
interface WriterInternals {
  styles: { addStyleModel(style: object, cellType: number): number };
}
interface SheetInternals {
  stream: { write(chunk: string): unknown };
  /** Its uncommitted rows, from row number `_rowZero` on. */
  _rows: unknown[];
  _rowZero: number;
}

function internals<T>(value: unknown, check: (value: T) => boolean, what: string): T {
  if (!check(value as T))
    throw new AppError('internal', `The workbook cannot be written: the installed exceljs no longer has ${what}. Reinstall Closebook's dependencies (npm ci).`);
  return value as T;
}

/** exceljs's cell types (Enums.ValueType): a style for a number cell, a text cell or a date cell. */
const VALUE_TYPE = { number: 2, text: 3, date: 4 } as const;

/** The style index exceljs gives `style` (one shared object per format, so each is registered once). */
export function styleIndex(workbook: WorkbookWriter, style: Partial<ExcelJS.Style>, kind: keyof typeof VALUE_TYPE): number {
  const writer = internals<WriterInternals>(workbook, (value) => typeof value.styles?.addStyleModel === 'function', 'a style registry');
  return writer.styles.addStyleModel(style, VALUE_TYPE[kind]);
}

/**
 * Appends rows' XML, up to row `lastRow`, to a sheet whose rows so far are committed (exceljs has opened its
 * <sheetData>), and tells exceljs its own rows resume after them: it keeps uncommitted rows in an array counted
 * from the last row it wrote, so a row after 300,000 written here would open a sparse array that committing
 * empties one shift at a time (minutes).
 */
export function writeRowsXml(sheet: WorksheetWriter, xml: string, lastRow: number): void {
  const writer = internals<SheetInternals>(
    sheet,
    (value) => typeof value.stream?.write === 'function' && Array.isArray(value._rows) && typeof value._rowZero === 'number',
    'a sheet stream',
  );
  writer.stream.write(xml);
  if (writer._rows.length === 0) writer._rowZero = lastRow + 1;
}

const COLUMN_LETTERS = Array.from(
  { length: 26 * 27 },
  (_, index) => (index < 26 ? '' : String.fromCharCode(64 + Math.floor(index / 26))) + String.fromCharCode(65 + (index % 26)),
);

/** "2026-10-07T00:00:00" (no zone, as the service sends it) → Excel's serial day number, or null when not a date. */
export function excelDate(value: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(value);
  if (!match) return null;
  const [, y, m, d, hh = '0', mm = '0', ss = '0'] = match;
  // 25569 is 1970-01-01 in Excel's 1900 date system.
  return 25569 + Date.UTC(Number(y), Number(m) - 1, Number(d), Number(hh), Number(mm), Number(ss)) / 86_400_000;
}

/** A cell of cellsRowXml: its value as exceljs is given it, and its style index (0 = none). */
export interface XmlCell {
  value: string | number | null;
  style: number;
}

/** A row's outline level; exceljs marks a row collapsed when its level is at least the sheet's outlineLevelRow. */
export interface RowOutline {
  level: number;
  collapsed: boolean;
}

/**
 * A row's XML as exceljs writes a row whose cells 1… are `cells` (the first given; an undefined one was never
 * touched): the same bytes — spans over the cells touched, a styled empty cell kept, text as `t="str"`, a number as
 * JavaScript prints it — at a fraction of the cost of a row object per row.
 */
export function cellsRowXml(rowNumber: number, cells: readonly (XmlCell | undefined)[], outline?: RowOutline): string {
  const outlined = outline ? ` outlineLevel="${outline.level}"${outline.collapsed ? ' collapsed="1"' : ''}` : '';
  let xml = `<row r="${rowNumber}" spans="1:${cells.length}" x14ac:dyDescent="0.25"${outlined}>`;
  for (let index = 0; index < cells.length; index++) {
    const cell = cells[index];
    if (!cell || (cell.value === null && !cell.style)) continue;
    const style = cell.style ? ` s="${cell.style}"` : '';
    const address = `${COLUMN_LETTERS[index]}${rowNumber}`;
    if (cell.value === null) xml += `<c r="${address}"${style}/>`;
    else if (typeof cell.value === 'number') xml += `<c r="${address}"${style}><v>${cell.value}</v></c>`;
    else xml += `<c r="${address}"${style} t="str"><v>${xmlText(cell.value)}</v></c>`;
  }
  return `${xml}</row>`;
}

/**
 * One row's XML. `values` are the ledger's text (null = empty cell); `styles[i]` is the style index of column i
 * (0 = none). A number or date that does not read as one is written as text rather than as a broken cell.
 */
export function rowXml(
  rowNumber: number,
  values: readonly (string | null)[],
  kinds: readonly CellKind[],
  styles: readonly number[],
  dates: Map<string, number | null>,
): string {
  let xml = `<row r="${rowNumber}" spans="1:${values.length}" x14ac:dyDescent="0.25">`;
  for (let index = 0; index < values.length; index++) {
    const value = values[index];
    if (value === null || value === undefined) continue;
    const address = `${COLUMN_LETTERS[index]}${rowNumber}`;
    const style = styles[index] ? ` s="${styles[index]}"` : '';
    const kind = kinds[index];
    if (kind === 'number' && PLAIN_DECIMAL.test(value) /* a valid number literal in the sheet XML as it is */) {
      xml += `<c r="${address}"${style}><v>${value}</v></c>`;
      continue;
    }
    if (kind === 'date') {
      let serial = dates.get(value);
      if (serial === undefined) dates.set(value, (serial = excelDate(value)));
      if (serial !== null) {
        xml += `<c r="${address}"${style}><v>${serial}</v></c>`;
        continue;
      }
    }
    xml += `<c r="${address}" t="str"><v>${xmlText(value)}</v></c>`;
  }
  return `${xml}</row>`;
}
