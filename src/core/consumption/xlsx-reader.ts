import { posix } from 'node:path';
import { quoted } from '@shared/typed-number';
import { OversizedWorkbook, SAVE_ALONE, UnreadableWorkbook, type XlsxBounds } from './xlsx-bounds';
import { parseXml } from './xlsx-xml';
import { Zip } from './xlsx-zip';

/**
 * A small reader of the cells of one sheet of an .xlsx workbook, bounded in time and memory whatever the file
 * holds: the zip's directory is read first, only the parts needed are unpacked (as a stream off the main thread,
 * each checked against its stated size and checksum, and capped), and their XML is read as a stream.
 */

// The bounds and refusals live in xlsx-bounds.ts, shared by the zip (xlsx-zip.ts) and XML (xlsx-xml.ts) readers.
export { OversizedWorkbook, UnreadableWorkbook, type XlsxBounds } from './xlsx-bounds';

/** A row's cells by column (0 for A): their text, null for a formula saved without its calculated value. */
export type RowCells = Map<number, string | null>;

export interface Workbook {
  /** The worksheets, in the workbook's order. */
  sheets: string[];
  /** Reads the named sheet's rows in order, until `onRow` answers false. */
  readSheet(name: string, onRow: (row: number, cells: RowCells) => boolean): Promise<void>;
}

/** Opens a workbook: reads its zip directory, then its list of sheets. */
export async function openXlsx(bytes: Uint8Array, bounds: XlsxBounds): Promise<Workbook> {
  const zip = new Zip(bytes, bounds);
  const packageRels = await relationships(zip, '', bounds);
  const workbookPath = [...packageRels.values()].find((rel) => rel.type.endsWith('/officeDocument'))?.target ?? 'xl/workbook.xml';
  const workbookRels = await relationships(zip, workbookPath, bounds);
  const sheets: { name: string; path: string }[] = [];
  let date1904 = false;
  if (!zip.has(workbookPath)) throw new UnreadableWorkbook(`it has no workbook part (${quoted(workbookPath)})`);
  await parseXml(
    zip,
    workbookPath,
    bounds,
    { what: "The workbook's list of sheets", cap: bounds.listBytes, advice: SAVE_ALONE },
    {
      open(name, attributes) {
        if (name === 'workbookPr') date1904 = attributes.date1904 === '1' || attributes.date1904 === 'true';
        if (name !== 'sheet') return;
        const id = Object.entries(attributes).find(([key]) => key.endsWith(':id'))?.[1];
        const rel = id === undefined ? undefined : workbookRels.get(id);
        // Only worksheets whose part is there: chart sheets and dangling entries hold no cells to read.
        if (rel?.type.endsWith('/worksheet') && zip.has(rel.target)) sheets.push({ name: attributes.name ?? '', path: rel.target });
      },
      close(name) {
        if (name === 'sheets') this.done = true;
      },
    },
  );
  const partOf = (type: string) => [...workbookRels.values()].find((rel) => rel.type.endsWith(type))?.target;
  const sharedPath = partOf('/sharedStrings');
  const stylesPath = partOf('/styles');
  let shared: string[] | undefined;
  let dates: DateStyles | undefined;
  return {
    sheets: sheets.map((sheet) => sheet.name),
    async readSheet(name, onRow) {
      const sheet = sheets.find((candidate) => candidate.name === name);
      if (!sheet) throw new Error(`No sheet ${name}`);
      shared ??= sharedPath && zip.has(sharedPath) ? await sharedStrings(zip, sharedPath, bounds) : [];
      dates ??= { styles: stylesPath && zip.has(stylesPath) ? await dateStyleList(zip, stylesPath, bounds) : [], date1904 };
      await sheetRows(zip, sheet, shared, dates, bounds, onRow);
    },
  };
}

interface Relationship {
  type: string;
  target: string;
}

/** A part's relationships by id, their targets as part names (the package's own when `source` is ''). */
async function relationships(zip: Zip, source: string, bounds: XlsxBounds): Promise<Map<string, Relationship>> {
  const folder = posix.dirname(source);
  const path = source ? posix.join(folder, '_rels', `${posix.basename(source)}.rels`) : '_rels/.rels';
  const found = new Map<string, Relationship>();
  if (!zip.has(path)) return found;
  await parseXml(
    zip,
    path,
    bounds,
    { what: `The workbook's list of parts ${quoted(path)}`, cap: bounds.listBytes, advice: SAVE_ALONE },
    {
      open(name, attributes) {
        const { Id: id, Type: type, Target: target, TargetMode: mode } = attributes;
        if (name !== 'Relationship' || !id || !type || !target || mode === 'External') return;
        found.set(id, { type, target: target.startsWith('/') ? posix.normalize(target.slice(1)) : posix.join(folder === '.' ? '' : folder, target) });
      },
    },
  );
  return found;
}

async function sharedStrings(zip: Zip, path: string, bounds: XlsxBounds): Promise<string[]> {
  const strings: string[] = [];
  const what = "The workbook's shared text";
  let text = '';
  let inText = false;
  let phonetic = 0;
  await parseXml(
    zip,
    path,
    bounds,
    { what, cap: bounds.sharedBytes, advice: SAVE_ALONE },
    {
      open(name) {
        if (name === 'si') text = '';
        else if (name === 'rPh') phonetic++;
        // The text is in <t>, whole or in rich-text runs; a phonetic guide (<rPh>) is not part of it.
        else if (name === 't') inText = phonetic === 0;
      },
      text(value) {
        if (inText) text += value;
      },
      close(name) {
        if (name === 't') inText = false;
        else if (name === 'rPh') phonetic--;
        else if (name === 'si' && strings.push(text) > bounds.sharedStrings) {
          throw new OversizedWorkbook(
            `${what} has more than ${bounds.sharedStrings.toLocaleString('en')} pieces, more than a consumption file can have. ${SAVE_ALONE}`,
          );
        }
      },
    },
  );
  return strings;
}

/**
 * Which cell styles show a number as a date or time (by a style's place, as a cell's `s` names it), and whether the
 * workbook counts its days from 1904: a date is a number in the file, and read without its style a date typed where
 * a quantity goes (Excel turns "1.5" into 1 May in some languages) would be read as a quantity of 45,413.
 */
interface DateStyles {
  styles: boolean[];
  date1904: boolean;
}

/** Excel's own number formats that show a date or time (ECMA-376 §18.8.30, with the East Asian ones). */
const BUILT_IN_DATES = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58]);

/** A format code that shows a date or time: a d, m, y, h or s outside its quoted text, escapes and [colour] tags. */
function isDateFormat(code: string): boolean {
  const bare = code
    .replace(/"[^"]*"/g, '')
    .replace(/\\./g, '')
    .replace(/\[(?![hms]+\])[^\]]*\]/gi, '');
  return /[dmyhs]/i.test(bare.split(';')[0] ?? '');
}

async function dateStyleList(zip: Zip, path: string, bounds: XlsxBounds): Promise<boolean[]> {
  const formats = new Map<number, string>();
  const styles: boolean[] = [];
  let inCellStyles = false;
  await parseXml(
    zip,
    path,
    bounds,
    { what: "The workbook's styles", cap: bounds.listBytes, advice: SAVE_ALONE },
    {
      open(name, attributes) {
        if (name === 'numFmt') formats.set(Number(attributes.numFmtId), attributes.formatCode ?? '');
        else if (name === 'cellXfs') inCellStyles = true;
        else if (name === 'xf' && inCellStyles) {
          const id = Number(attributes.numFmtId ?? 0);
          const custom = formats.get(id);
          styles.push(custom === undefined ? BUILT_IN_DATES.has(id) : isDateFormat(custom));
        }
      },
      close(name) {
        if (name === 'cellXfs') this.done = true;
      },
    },
  );
  return styles;
}

/** A date cell's number as the date (and time) it shows: "2024-05-01", "2024-05-01 13:30:00". */
function serialDate(serial: number, date1904: boolean): string {
  // Excel counts 1900 as a leap year: its day 60 is 29 February 1900, which was not; the days after it are one ahead.
  if (!date1904 && Math.floor(serial) === 60) return '1900-02-29';
  const epoch = date1904 ? Date.UTC(1904, 0, 1) : serial < 60 ? Date.UTC(1899, 11, 31) : Date.UTC(1899, 11, 30);
  const at = new Date(epoch + Math.round(serial * 86_400) * 1000).toISOString();
  return at.endsWith('T00:00:00.000Z') ? at.slice(0, 10) : `${at.slice(0, 10)} ${at.slice(11, 19)}`;
}

/** The cell being read: its type (`t`), its style (`s`), whether it has a formula, its <v> and its inline text (<is>). */
interface Cell {
  type: string;
  style: number;
  formula: boolean;
  value: string | null;
  inline: string | null;
}

async function sheetRows(
  zip: Zip,
  sheet: { name: string; path: string },
  shared: string[],
  dates: DateStyles,
  bounds: XlsxBounds,
  onRow: (row: number, cells: RowCells) => boolean,
): Promise<void> {
  let inData = false;
  let row: RowCells | null = null;
  let rowNumber = 0;
  let column = 0;
  let cell: Cell | null = null;
  let collect: 'value' | 'inline' | null = null;
  let phonetic = 0;
  const advice = 'Delete the empty rows and columns around its data, or export it as CSV.';
  await parseXml(
    zip,
    sheet.path,
    bounds,
    { what: `The sheet ${quoted(sheet.name)}`, cap: bounds.sheetBytes, advice },
    {
      open(name, attributes) {
        if (name === 'sheetData') inData = true;
        else if (name === 'row' && inData) {
          // Row and cell references may be left out: then each follows the one before.
          rowNumber = attributes.r === undefined ? rowNumber + 1 : rowOf(attributes.r);
          row = new Map();
          column = 0;
        } else if (name === 'c' && row) {
          column = attributes.r === undefined ? column + 1 : columnOf(attributes.r);
          cell = { type: attributes.t ?? 'n', style: Number(attributes.s ?? 0), formula: false, value: null, inline: null };
        } else if (!cell) return;
        else if (name === 'f') cell.formula = true;
        else if (name === 'v') {
          cell.value = '';
          collect = 'value';
        } else if (name === 'is') cell.inline = '';
        else if (name === 'rPh') phonetic++;
        else if (name === 't' && cell.inline !== null && phonetic === 0) collect = 'inline';
      },
      text(value) {
        if (collect && cell) cell[collect] += value;
      },
      close(name) {
        if (name === 'v' || name === 't') collect = null;
        else if (name === 'rPh') phonetic--;
        else if (name === 'c' && row && cell) {
          const text = cellText(cell, shared, dates);
          if (text !== '') row.set(column - 1, text);
          cell = null;
        } else if (name === 'row' && row) {
          if (!onRow(rowNumber, row)) this.stop = true;
          row = null;
        } else if (name === 'sheetData') this.done = true;
      },
    },
  );
}

/**
 * A cell's value as text: numbers as the cell shows them (numberText), one in a date or time style as the date it
 * shows (serialDate), booleans as true/false, errors as their code; null for a formula without a value. A formula
 * whose value is empty text is not taken for one without a value, and text is not unescaped twice.
 */
function cellText(cell: Cell, shared: string[], dates: DateStyles): string | null {
  const { type, value } = cell;
  const numeric = (text: string) => {
    const read = numberText(text);
    const serial = Number(read);
    // Excel's dates run from day 0 to 31 December 9999 (day 2,958,465); any other number is shown as one.
    return dates.styles[cell.style] && serial >= 0 && serial < 2_958_466 ? serialDate(serial, dates.date1904) : read;
  };
  if (cell.formula) {
    if (value === null) return null;
    return type === 'str' || type === 'e' ? value : numeric(value);
  }
  switch (type) {
    case 's':
      return shared[Number.parseInt(value ?? '', 10)] ?? '';
    case 'inlineStr':
    case 'str':
      return cell.inline ?? value ?? '';
    case 'b':
      return value ? (Number.parseInt(value, 10) !== 0 ? 'true' : 'false') : '';
    case 'e':
      return value ?? '';
    case 'd':
      return value ? (/^\d{4}-\d\d-\d\d/.exec(value)?.[0] ?? value) : '';
    default:
      return value ? numeric(value) : '';
  }
}

/**
 * A number as the cell shows it: to 15 significant digits, as Excel shows and computes, and never in exponent form —
 * its file keeps a formula's 0.1 + 0.2 as 0.30000000000000004, and a typed 0.0000005 as 4.9999999999999998E-7.
 */
const CELL_DIGITS = new Intl.NumberFormat('en', { useGrouping: false, maximumSignificantDigits: 15 });

function numberText(value: string): string {
  const number = Number.parseFloat(value);
  return Number.isFinite(number) ? CELL_DIGITS.format(number) : value;
}

/** Excel's last row and column (XFD). */
const LAST_ROW = 1_048_576;
const LAST_COLUMN = 16_384;

function rowOf(reference: string): number {
  const row = /^\d{1,7}$/.test(reference) ? Number(reference) : 0;
  if (row < 1 || row > LAST_ROW) throw new UnreadableWorkbook(`the row number ${quoted(reference)} is not a row of a sheet`);
  return row;
}

function columnOf(reference: string): number {
  const letters = /^([A-Za-z]{1,3})\d{1,7}$/.exec(reference)?.[1] ?? '';
  let column = 0;
  for (const letter of letters.toUpperCase()) column = column * 26 + letter.charCodeAt(0) - 64;
  if (column < 1 || column > LAST_COLUMN) throw new UnreadableWorkbook(`the cell reference ${quoted(reference)} is not a cell`);
  return column;
}

/** Column letters for a 0-based column index (0 is A). */
export function columnLetters(index: number): string {
  let letters = '';
  for (let column = index + 1; column > 0; column = Math.floor((column - 1) / 26)) letters = String.fromCharCode(65 + ((column - 1) % 26)) + letters;
  return letters;
}
