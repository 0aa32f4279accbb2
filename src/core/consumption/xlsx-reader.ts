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
  if (!zip.has(workbookPath)) throw new UnreadableWorkbook(`it has no workbook part (${quoted(workbookPath)})`);
  await parseXml(
    zip,
    workbookPath,
    bounds,
    { what: "The workbook's list of sheets", cap: bounds.listBytes, advice: SAVE_ALONE },
    {
      open(name, attributes) {
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
  const sharedPath = [...workbookRels.values()].find((rel) => rel.type.endsWith('/sharedStrings'))?.target;
  let shared: string[] | undefined;
  return {
    sheets: sheets.map((sheet) => sheet.name),
    async readSheet(name, onRow) {
      const sheet = sheets.find((candidate) => candidate.name === name);
      if (!sheet) throw new Error(`No sheet ${name}`);
      shared ??= sharedPath && zip.has(sharedPath) ? await sharedStrings(zip, sharedPath, bounds) : [];
      await sheetRows(zip, sheet, shared, bounds, onRow);
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

/** The cell being read: its type (`t`), whether it has a formula, its <v> and its inline text (<is>). */
interface Cell {
  type: string;
  formula: boolean;
  value: string | null;
  inline: string | null;
}

async function sheetRows(
  zip: Zip,
  sheet: { name: string; path: string },
  shared: string[],
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
          cell = { type: attributes.t ?? 'n', formula: false, value: null, inline: null };
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
          const text = cellText(cell, shared);
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
 * A cell's value as text, as ExcelJS read it before: numbers as JavaScript writes them, booleans as true/false,
 * dates as their serial number (styles are not read), errors as their code; null for a formula without a value.
 * Unlike ExcelJS, a formula whose value is empty text is not taken for one without a value, an error result reads
 * as its code (not NaN), and text is not unescaped twice.
 */
function cellText(cell: Cell, shared: string[]): string | null {
  const { type, value } = cell;
  if (cell.formula) {
    if (value === null) return null;
    return type === 'str' || type === 'e' ? value : numberText(value);
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
      return value ? numberText(value) : '';
  }
}

function numberText(value: string): string {
  const number = Number.parseFloat(value);
  return Number.isNaN(number) ? value : String(number);
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
