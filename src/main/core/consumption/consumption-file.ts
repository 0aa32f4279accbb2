import ExcelJS from 'exceljs';
import { Readable } from 'node:stream';
import { inflateRawSync } from 'node:zlib';
import Papa from 'papaparse';
import { emptyRow, fieldForHeader, quoted, readQuantity } from '../../../shared/consumption-rows';
import { CONSUMPTION_FIELDS, MAX_EXTRA_COLUMNS, PLAIN_HEADERS, type ConsumptionField, type InputRow, type ParsedFile } from '../../../shared/schemas/consumption';

/** Rows past this are refused: a bulk file that large is almost surely the wrong file. */
export const MAX_ROWS = 50_000;

/** A formula cell saved without its calculated value (by a program other than Excel). */
interface UncalculatedCell {
  row: number;
  column: number;
  address: string;
}

/**
 * Turns a header row and data rows (as text) into input rows, naming what is missing or ignored. `tooMany` says
 * the reader stopped at the cap; `uncalculated` cells are problems only in the columns Closebook reads.
 */
function toRows(
  fileName: string,
  header: string[],
  body: { row: number; cells: string[] }[],
  base: Pick<ParsedFile, 'sheets' | 'sheet'>,
  read: { tooMany?: boolean; uncalculated?: UncalculatedCell[] } = {},
): ParsedFile {
  const problems: string[] = [];
  const columns = new Map<number, ConsumptionField>();
  // The user's own columns are kept (shown, never sent); a column without a header has nothing to call it by.
  const extra: { index: number; title: string }[] = [];
  const ignoredColumns: string[] = [];
  header.forEach((title, index) => {
    const field = fieldForHeader(title);
    if (!field) {
      if (!title.trim()) return;
      if (extra.length < MAX_EXTRA_COLUMNS) extra.push({ index, title: title.trim() });
      else ignoredColumns.push(title.trim());
      return;
    }
    if ([...columns.values()].includes(field)) problems.push(`The column ${quoted(title.trim())} appears twice; only the first is read.`);
    else columns.set(index, field);
  });
  const found = new Set(columns.values());
  for (const required of ['subscriptionId', 'quantity'] as const) {
    if (!found.has(required)) problems.push(`The header row has no "${PLAIN_HEADERS[required]}" column. Expected columns: ${CONSUMPTION_FIELDS.map((field) => PLAIN_HEADERS[field]).join(', ')}.`);
  }
  if (read.tooMany || body.length > MAX_ROWS) {
    problems.push(`The file has ${read.tooMany ? 'more than ' : ''}${(read.tooMany ? MAX_ROWS : body.length).toLocaleString('en')} rows; Closebook takes at most ${MAX_ROWS.toLocaleString('en')} in one batch. Split it into smaller files.`);
  }
  const uncalculated = (read.uncalculated ?? []).filter((cell) => columns.has(cell.column));
  if (uncalculated.length) {
    const named = uncalculated.slice(0, 5).map((cell) => cell.address).join(', ');
    problems.push(
      `${uncalculated.length === 1 ? `Cell ${named} holds a formula` : `Cells ${named}${uncalculated.length > 5 ? ` and ${uncalculated.length - 5} more` : ''} hold formulas`} saved without a calculated value. Open the file in Excel and save it again, or paste the values instead of the formulas.`,
    );
  }
  const rows = problems.length
    ? []
    : body
        .filter(({ cells }) => cells.some((cell) => cell.trim() !== ''))
        .map(({ row, cells }) => {
          const input = emptyRow(row);
          for (const [index, field] of columns) input[field] = (cells[index] ?? '').trim();
          if (extra.length) input.extra = extra.map(({ index }) => (cells[index] ?? '').trim());
          return input;
        });
  if (!problems.length && rows.length === 0) problems.push(`${fileName} has a header row but no consumption rows.`);
  return { fileName, ...base, rows, problems, extraColumns: extra.map(({ title }) => title), ignoredColumns };
}

/** CSV with ',' or ';' (then with decimal commas), a byte-order mark, quoted fields and Windows or Unix line ends. */
export function parseConsumptionCsv(fileName: string, text: string): ParsedFile {
  const content = text.replace(/^\uFEFF/, '');
  const firstLine = content.split(/\r?\n/, 1)[0] ?? '';
  const delimiter = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : firstLine.includes('\t') && !firstLine.includes(',') ? '\t' : ',';
  const base = { sheets: [], sheet: null };
  const parsed = Papa.parse<string[]>(content, { delimiter, skipEmptyLines: false });
  const fatal = parsed.errors.find((error) => error.type === 'Quotes');
  if (fatal) {
    return { fileName, ...base, rows: [], problems: [`Row ${(fatal.row ?? 0) + 1} has a quote that is never closed: ${fatal.message}. Check the file in a text editor.`], extraColumns: [], ignoredColumns: [] };
  }
  const [header = [], ...body] = parsed.data;
  if (header.every((cell) => !cell.trim())) return { fileName, ...base, rows: [], problems: [`${fileName} is empty or has no header row.`], extraColumns: [], ignoredColumns: [] };
  const file = toRows(fileName, header, body.map((cells, index) => ({ row: index + 2, cells })), base);
  return delimiter === ';' ? { ...file, rows: file.rows.map(withDecimalPoint) } : file;
}

/** A ';'-separated file uses the decimal comma: its quantities are read that way, and kept (and shown) with a point. */
function withDecimalPoint(input: InputRow): InputRow {
  const reading = input.quantity ? readQuantity(input.quantity, true) : undefined;
  return reading && 'quantity' in reading ? { ...input, quantity: String(reading.quantity) } : input;
}

/** A value as text; a formula Excel never calculated (no cached result) is `null`: it must not read as empty. */
function cellText(value: ExcelJS.CellValue): string | null {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === 'object') {
    if ('richText' in value) return value.richText.map((part) => part.text).join('');
    if ('formula' in value || 'sharedFormula' in value) {
      const result = (value as { result?: ExcelJS.CellValue }).result;
      return result === undefined || result === null ? null : cellText(result);
    }
    if ('text' in value) return String(value.text);
    if ('error' in value) return String(value.error);
  }
  return String(value);
}

/** The sheet read: its non-empty rows up to the cap, and its formula cells without a value. */
interface ReadSheet {
  name: string;
  lines: { row: number; cells: string[] }[];
  uncalculated: UncalculatedCell[];
  tooMany: boolean;
}

/**
 * An XLSX workbook: the named sheet, or the first; the first non-empty row is the header. Read as a stream and
 * stopped at the row cap, so a small file that unpacks into millions of rows cannot take the memory or the time.
 */
export async function parseConsumptionXlsx(fileName: string, bytes: Uint8Array, sheetName?: string): Promise<ParsedFile> {
  const unreadable = { fileName, sheets: [], sheet: null, rows: [], problems: [`${fileName} is not a readable Excel workbook (.xlsx). Save it again from Excel, or export it as CSV.`], extraColumns: [], ignoredColumns: [] };
  // The zip reader never settles on an empty stream: an empty file would leave the import waiting forever.
  if (bytes.length === 0) return { ...unreadable, problems: [`${fileName} is empty (0 bytes).`] };
  // The streaming zip reader never settles on some damaged files (a bit flipped in a compressed entry, a cut):
  // the import would wait forever. The zip's own directory and checksums are checked first.
  const zip = checkZip(bytes);
  if (zip === 'damaged') return unreadable;
  let read: ReadWorkbook;
  try {
    read = await readStreaming(bytes, sheetName);
  } catch {
    // ExcelJS's streaming reader now and then fails on an intact workbook (a race in its zip stream, worst on files
    // ExcelJS wrote itself, such as Closebook's template). The whole-file reader goes by the zip's directory and has
    // no such race; it is used only when every entry was checked to be of a size it can hold.
    if (zip !== 'checked') return unreadable;
    try {
      read = await readWhole(bytes, sheetName);
    } catch {
      return unreadable;
    }
  }
  const { sheets, chosen } = read;
  // Every workbook Excel saves has a sheet: none at all means a cut or damaged file, not an empty workbook.
  if (sheets.length === 0) return unreadable;
  if (!chosen) {
    return { fileName, sheets, sheet: null, rows: [], problems: [`${fileName} has no sheet ${quoted(sheetName ?? '')}.`], extraColumns: [], ignoredColumns: [] };
  }
  const [header, ...body] = chosen.lines;
  const base = { sheets, sheet: chosen.name };
  if (!header) return { fileName, ...base, rows: [], problems: [`The sheet "${chosen.name}" is empty.`], extraColumns: [], ignoredColumns: [] };
  return toRows(fileName, header.cells, body, base, { tooMany: chosen.tooMany, uncalculated: chosen.uncalculated });
}

/** The names of a workbook's sheets, and the sheet chosen (the named one, or the first) as read. */
interface ReadWorkbook {
  sheets: string[];
  chosen: ReadSheet | null;
}

/** Adds one row to the sheet read; false once past the cap (the rest need not be read). */
function addRow(sheet: ReadSheet, row: ExcelJS.Row): boolean {
  const cells: string[] = [];
  row.eachCell({ includeEmpty: false }, (cell, column) => {
    const text = cellText(cell.value);
    if (text === null) sheet.uncalculated.push({ row: row.number, column: column - 1, address: cell.address });
    cells[column - 1] = text ?? '';
  });
  if (!cells.some((cell) => cell !== undefined && cell !== '') && !sheet.uncalculated.some((cell) => cell.row === row.number)) return true;
  // The header and one row past the cap are enough to say the file is too long.
  if (sheet.lines.length > MAX_ROWS + 1) {
    sheet.tooMany = true;
    return false;
  }
  sheet.lines.push({ row: row.number, cells: Array.from(cells, (cell) => cell ?? '') });
  return true;
}

async function readStreaming(bytes: Uint8Array, sheetName: string | undefined): Promise<ReadWorkbook> {
  const sheets: string[] = [];
  let chosen: ReadSheet | null = null;
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from(Buffer.from(bytes)), { worksheets: 'emit', sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'ignore', entries: 'ignore' });
  for await (const worksheet of reader) {
    const name = (worksheet as unknown as { name: string }).name;
    sheets.push(name);
    if (chosen || (sheetName !== undefined && name !== sheetName)) {
      // ExcelJS may hold a sheet in a temporary file that it deletes once the next sheet is asked for: a sheet
      // skipped unread was opened after that and failed where no one listened, crashing the process. One row
      // read opens it in time (and the reader closes it).
      for await (const _row of worksheet) break;
      continue;
    }
    const sheet: ReadSheet = { name, lines: [], uncalculated: [], tooMany: false };
    for await (const row of worksheet) if (!addRow(sheet, row)) break;
    chosen = sheet;
  }
  return { sheets, chosen };
}

async function readWhole(bytes: Uint8Array, sheetName: string | undefined): Promise<ReadWorkbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(Buffer.from(bytes) as unknown as ArrayBuffer);
  const sheets = workbook.worksheets.map((worksheet) => worksheet.name);
  const worksheet = sheetName === undefined ? workbook.worksheets[0] : workbook.worksheets.find((candidate) => candidate.name === sheetName);
  if (!worksheet) return { sheets, chosen: null };
  const sheet: ReadSheet = { name: worksheet.name, lines: [], uncalculated: [], tooMany: false };
  for (let number = 1; number <= worksheet.rowCount; number++) if (!addRow(sheet, worksheet.getRow(number))) break;
  return { sheets, chosen: sheet };
}

/** UTF-8, unless a byte-order mark says UTF-16 (Excel's "Unicode Text" is UTF-16 with a mark, tab-separated). */
function textEncoding(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return 'utf-8';
}

/** Entries larger than this are not inflated to check them (the reader stops at the row cap long before). */
const CHECKED_ENTRY_BYTES = 64 * 1024 * 1024;

/**
 * Whether a zip's directory, local headers and data agree: every entry where the directory puts it, under the same
 * name and method, inflating to the stated size and CRC-32. A zip64 file, and entries too large to inflate here, are
 * left to the reader ('partly-checked').
 */
function checkZip(bytes: Uint8Array): 'checked' | 'partly-checked' | 'damaged' {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let end = -1;
  for (let at = data.length - 22; at >= Math.max(0, data.length - 22 - 0xffff); at--) {
    if (data.readUInt32LE(at) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) return 'damaged';
  const count = data.readUInt16LE(end + 10);
  const directory = data.readUInt32LE(end + 16);
  if (count === 0xffff || directory === 0xffffffff) return 'partly-checked';
  let at = directory;
  let checked: 'checked' | 'partly-checked' = 'checked';
  for (let entry = 0; entry < count; entry++) {
    if (at + 46 > data.length || data.readUInt32LE(at) !== 0x02014b50) return 'damaged';
    const method = data.readUInt16LE(at + 10);
    const crc = data.readUInt32LE(at + 16);
    const compressed = data.readUInt32LE(at + 20);
    const size = data.readUInt32LE(at + 24);
    const nameLength = data.readUInt16LE(at + 28);
    const local = data.readUInt32LE(at + 42);
    const name = data.subarray(at + 46, at + 46 + nameLength);
    at += 46 + nameLength + data.readUInt16LE(at + 30) + data.readUInt16LE(at + 32);
    if (compressed === 0xffffffff || size === 0xffffffff || local === 0xffffffff) return 'partly-checked';
    if (local + 30 > data.length || data.readUInt32LE(local) !== 0x04034b50 || data.readUInt16LE(local + 8) !== method) return 'damaged';
    const localName = data.subarray(local + 30, local + 30 + data.readUInt16LE(local + 26));
    if (!localName.equals(name)) return 'damaged';
    // Without a data descriptor (flag bit 3) the streaming reader trusts the local header's sizes: they must agree.
    if (!(data.readUInt16LE(local + 6) & 0x8) && (data.readUInt32LE(local + 14) !== crc || data.readUInt32LE(local + 18) !== compressed || data.readUInt32LE(local + 22) !== size)) return 'damaged';
    const start = local + 30 + localName.length + data.readUInt16LE(local + 28);
    if (start + compressed > data.length) return 'damaged';
    if (size > CHECKED_ENTRY_BYTES) {
      checked = 'partly-checked';
      continue;
    }
    const stored = data.subarray(start, start + compressed);
    let content: Buffer;
    try {
      if (method === 0) content = stored;
      else if (method === 8) content = inflateRawSync(stored, { maxOutputLength: size + 1 });
      else return 'damaged';
    } catch {
      return 'damaged';
    }
    if (content.length !== size || crc32(content) !== crc) return 'damaged';
  }
  return checked;
}

let crcTable: Uint32Array | null = null;

function crc32(content: Uint8Array): number {
  crcTable ??= Uint32Array.from({ length: 256 }, (_, index) => {
    let value = index;
    for (let bit = 0; bit < 8; bit++) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
    return value >>> 0;
  });
  let crc = 0xffffffff;
  for (let index = 0; index < content.length; index++) crc = (crcTable[(crc ^ (content[index] as number)) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

export async function parseConsumptionFile(fileName: string, bytes: Uint8Array, sheetName?: string): Promise<ParsedFile> {
  if (/\.xlsx$/i.test(fileName)) return parseConsumptionXlsx(fileName, bytes, sheetName);
  if (/\.(csv|txt|tsv)$/i.test(fileName)) return parseConsumptionCsv(fileName, new TextDecoder(textEncoding(bytes)).decode(bytes));
  return { fileName, sheets: [], sheet: null, rows: [], problems: [`${fileName}: Closebook reads consumption from .csv or .xlsx files.`], extraColumns: [], ignoredColumns: [] };
}

const TEMPLATE_HEADERS = CONSUMPTION_FIELDS.map((field) => PLAIN_HEADERS[field]);

export function consumptionTemplateCsv(): string {
  return `${TEMPLATE_HEADERS.join(',')}\r\n`;
}

export async function consumptionTemplateXlsx(): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Consumption');
  sheet.columns = TEMPLATE_HEADERS.map((header) => ({ header, width: header.endsWith('ID') ? 40 : 14 }));
  sheet.getRow(1).font = { bold: true };
  sheet.views = [{ state: 'frozen', ySplit: 1 }];
  const help = workbook.addWorksheet('How to fill in');
  help.columns = [{ width: 18 }, { width: 90 }];
  [
    [PLAIN_HEADERS.subscriptionId, 'Required. The metered subscription (a GUID).'],
    [PLAIN_HEADERS.isAddon, 'yes/no (also true/false or 1/0). Yes when the record is for an add-on of the subscription.'],
    [PLAIN_HEADERS.addonId, 'Required when Is add-on is yes; must be empty when it is no.'],
    [PLAIN_HEADERS.quantity, 'Required. A number, zero or more (decimals allowed).'],
    [PLAIN_HEADERS.consumptionId, 'Leave empty for new consumption; the id of an existing record to correct it.'],
    ['', 'One record per subscription or add-on per batch. If one record fails, the service saves none of the batch.'],
  ].forEach((values) => help.addRow(values));
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
