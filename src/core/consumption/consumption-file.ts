import { smallWorkbook } from '@core/xlsx';
import Papa from 'papaparse';
import { emptyRow, fieldForHeader, readQuantity } from '@shared/consumption-rows';
import { quoted, readTypedDecimal } from '@shared/typed-number';
import {
  CONSUMPTION_FIELDS,
  MAX_CONSUMPTION_FILE_BYTES,
  MAX_EXTRA_COLUMNS,
  PLAIN_HEADERS,
  type ConsumptionField,
  type InputRow,
  type ParsedFile,
} from '@shared/schemas/consumption';
import { columnLetters, openXlsx, OversizedWorkbook, UnreadableWorkbook, type RowCells, type Workbook, type XlsxBounds } from './xlsx-reader';

/** Rows past this are refused: a bulk file that large is almost surely the wrong file. */
export const MAX_ROWS = 50_000;

const MB = 1024 * 1024;

/**
 * How far a consumption workbook is read before it is refused, and why: any file is answered within 10 s and 500 MB,
 * and a real month is never refused. A real month is at most MAX_ROWS rows of the 5 fields and the user's own columns
 * (MAX_EXTRA_COLUMNS): 25 columns of about 45 bytes of sheet XML a cell (`<c r="Y50000" s="3" t="s"><v>1234</v></c>`),
 * 56 MB of sheet; and, were every cell a different text, about as much again of shared strings. Reading costs about
 * 30 ms a megabyte of XML and half a microsecond an element here, so the most these bounds allow takes about 3 s.
 */
const WORKBOOK_BOUNDS: XlsxBounds = {
  // Excel writes a few parts per sheet and a few for the workbook: a large workbook has a few hundred.
  parts: 10_000,
  // The relationships (about 150 bytes a part) and the workbook (its sheets, and defined names: megabytes at most).
  listBytes: 16 * MB,
  // A real month with every cell a different text: 1.25 million strings, 60 MB (other sheets' text shares the part).
  sharedBytes: 64 * MB,
  sharedStrings: 2_000_000,
  // A real month in 25 columns is 56 MB; the rest is room for more columns than are read, and styled empty cells.
  sheetBytes: 96 * MB,
  // Shared strings and sheet together: a real month at full width is about 120 MB.
  totalBytes: 128 * MB,
  // A real month is about 5 million elements (a row, each cell and its value; two for each shared string).
  elements: 8_000_000,
  // A cell holds at most 32,767 characters (Excel's limit), 164 KB of XML at worst (each one an escape such as &amp;).
  betweenTags: 256 * 1024,
  // A sheet's cells are 7 levels deep (worksheet, sheetData, row, c, is, r, t); extensions add a few.
  depth: 64,
};

/**
 * Text kept from a workbook's cells (the header and the columns read). Cells can repeat one shared string, so the
 * XML's size does not bound it: as much as the largest CSV the import takes (64 MB of base64 is 48 MB of text).
 */
const MAX_READ_CHARACTERS = 48_000_000;

/** A formula cell saved without its calculated value (by a program other than Excel). */
interface UncalculatedCell {
  row: number;
  column: number;
  address: string;
}

/** A data row as text by column; `blank` when the reader kept only some columns and knows the row had no text. */
interface Line {
  row: number;
  cells: string[];
  blank?: boolean;
}

/**
 * The columns a header row names: each field's first column, and the user's own columns with a title (a column
 * without one has nothing to call it by), kept up to MAX_EXTRA_COLUMNS and the rest named as ignored.
 */
function headerColumns(header: string[]): {
  columns: Map<number, ConsumptionField>;
  extra: { index: number; title: string }[];
  ignoredColumns: string[];
  problems: string[];
} {
  const problems: string[] = [];
  const columns = new Map<number, ConsumptionField>();
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
  return { columns, extra, ignoredColumns, problems };
}

/**
 * Turns a header row and data rows (as text) into input rows, naming what is missing or ignored. `tooMany` says
 * the reader stopped at the cap; `uncalculated` cells are problems only in the columns Closebook reads.
 */
function toRows(
  fileName: string,
  header: string[],
  body: Line[],
  base: Pick<ParsedFile, 'sheets' | 'sheet'>,
  read: { tooMany?: boolean; uncalculated?: UncalculatedCell[] } = {},
): ParsedFile {
  const { columns, extra, ignoredColumns, problems } = headerColumns(header);
  const found = new Set(columns.values());
  for (const required of ['subscriptionId', 'quantity'] as const) {
    if (!found.has(required))
      problems.push(
        `The header row has no "${PLAIN_HEADERS[required]}" column. Expected columns: ${CONSUMPTION_FIELDS.map((field) => PLAIN_HEADERS[field]).join(', ')}.`,
      );
  }
  if (read.tooMany || body.length > MAX_ROWS) {
    problems.push(
      `The file has ${read.tooMany ? 'more than ' : ''}${(read.tooMany ? MAX_ROWS : body.length).toLocaleString('en')} rows; Closebook takes at most ${MAX_ROWS.toLocaleString('en')} in one batch. Split it into smaller files.`,
    );
  }
  const uncalculated = (read.uncalculated ?? []).filter((cell) => columns.has(cell.column));
  if (uncalculated.length) {
    const named = uncalculated
      .slice(0, 5)
      .map((cell) => cell.address)
      .join(', ');
    problems.push(
      `${uncalculated.length === 1 ? `Cell ${named} holds a formula` : `Cells ${named}${uncalculated.length > 5 ? ` and ${uncalculated.length - 5} more` : ''} hold formulas`} saved without a calculated value. Open the file in Excel and save it again, or paste the values instead of the formulas.`,
    );
  }
  const rows = problems.length
    ? []
    : body
        .filter(({ cells, blank }) => !(blank ?? !cells.some((cell) => cell.trim() !== '')))
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
  let content = text.replace(/^\uFEFF/, '');
  let firstLine = content.split(/\r?\n/, 1)[0] ?? '';
  // Excel's "sep=;" first line names the separator and is not a row of the sheet (Excel does not show it).
  const named = /^sep=([,;\t|])$/i.exec(firstLine)?.[1];
  if (named) {
    content = content.slice(firstLine.length).replace(/^\r?\n/, '');
    firstLine = content.split(/\r?\n/, 1)[0] ?? '';
  }
  const delimiter =
    named ??
    ((firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : firstLine.includes('\t') && !firstLine.includes(',') ? '\t' : ',');
  const base = { sheets: [], sheet: null };
  // Row by row, stopping once there are more rows with text than a batch may hold: a 48 MB file of tiny rows is
  // never held as millions of arrays.
  const lines: string[][] = [];
  let filled = 0;
  let tooMany = false;
  let fatal: { row: number; message: string } | undefined;
  Papa.parse<string[]>(content, {
    delimiter,
    skipEmptyLines: false,
    fastMode: false, // the fast mode splits the whole text into lines before the first step
    step: (result, parser) => {
      const quotes = result.errors.find((error) => error.type === 'Quotes');
      if (quotes) {
        fatal = { row: lines.length, message: quotes.message };
        parser.abort();
        return;
      }
      if (result.data.some((cell) => cell.trim())) filled += 1;
      if (filled > MAX_ROWS + 1) {
        tooMany = true; // the header and MAX_ROWS rows, and one more
        parser.abort();
        return;
      }
      lines.push(result.data);
    },
  });
  if (fatal) {
    return {
      fileName,
      ...base,
      rows: [],
      problems: [`Row ${fatal.row + 1} has a quote that is never closed: ${fatal.message}. Check the file in a text editor.`],
      extraColumns: [],
      ignoredColumns: [],
    };
  }
  const [header = [], ...body] = lines;
  if (header.every((cell) => !cell.trim()))
    return { fileName, ...base, rows: [], problems: [`${fileName} is empty or has no header row.`], extraColumns: [], ignoredColumns: [] };
  const file = toRows(
    fileName,
    header,
    body.map((cells, index) => ({ row: index + 2, cells })),
    base,
    { tooMany },
  );
  return delimiter === ';' ? { ...file, rows: file.rows.map(withDecimalPoint) } : file;
}

/**
 * A ';'-separated file uses the decimal comma: its quantities are read that way, and kept (and shown) with a point.
 * One that could be a thousand or a decimal there ("1.500") is kept with its marks swapped ("1,500"), as ambiguous
 * read with a point: refused until the user says which, never read as 1.5.
 */
function withDecimalPoint(input: InputRow): InputRow {
  if (!input.quantity) return input;
  const reading = readQuantity(input.quantity, true);
  if ('quantity' in reading) return { ...input, quantity: String(reading.quantity) };
  const typed = readTypedDecimal(input.quantity, true);
  return 'ambiguous' in typed ? { ...input, quantity: input.quantity.replace(/[.,]/g, (mark) => (mark === '.' ? ',' : '.')) } : input;
}

/** The sheet read: its non-empty rows up to the cap (only the columns read), and its formula cells without a value. */
interface ReadSheet {
  name: string;
  lines: Line[];
  uncalculated: UncalculatedCell[];
  tooMany: boolean;
}

/**
 * An XLSX workbook: the named sheet, or the first; the first non-empty row is the header. Read as a stream within
 * WORKBOOK_BOUNDS and stopped at the row cap, so a small file that unpacks into millions of rows or gigabytes of
 * text is refused in little time and memory, saying what is too large.
 */
export async function parseConsumptionXlsx(fileName: string, bytes: Uint8Array, sheetName?: string): Promise<ParsedFile> {
  const refused = (problem: string, sheets: string[] = [], sheet: string | null = null): ParsedFile => ({
    fileName,
    sheets,
    sheet,
    rows: [],
    problems: [problem],
    extraColumns: [],
    ignoredColumns: [],
  });
  const unreadable = (what?: string) =>
    `${fileName} is not a readable Excel workbook (.xlsx)${what ? `: ${what}` : ''}. Save it again from Excel, or export it as CSV.`;
  // What the reader refused the workbook for; anything else it threw still means the file cannot be read.
  const refusal = (error: unknown, sheets?: string[], sheet?: string) =>
    refused(error instanceof OversizedWorkbook ? error.message : unreadable(error instanceof UnreadableWorkbook ? error.message : undefined), sheets, sheet);
  if (bytes.length === 0) return refused(`${fileName} is empty (0 bytes).`);
  let workbook: Workbook;
  try {
    workbook = await openXlsx(bytes, WORKBOOK_BOUNDS);
  } catch (error) {
    return refusal(error);
  }
  const { sheets } = workbook;
  // Every workbook Excel saves has a sheet: none at all means a cut or damaged file, not an empty workbook.
  if (sheets.length === 0) return refused(unreadable('it has no worksheet'));
  const name = sheetName ?? sheets[0];
  if (name === undefined || !sheets.includes(name)) return refused(`${fileName} has no sheet ${quoted(sheetName ?? '')}.`, sheets);
  const sheet: ReadSheet = { name, lines: [], uncalculated: [], tooMany: false };
  try {
    await workbook.readSheet(name, rowReader(sheet));
  } catch (error) {
    // With the sheets named, so that another can be picked.
    return refusal(error, sheets, name);
  }
  const [header, ...body] = sheet.lines;
  const base = { sheets, sheet: name };
  if (!header) return { fileName, ...base, rows: [], problems: [`The sheet ${quoted(name)} is empty.`], extraColumns: [], ignoredColumns: [] };
  return toRows(fileName, header.cells, body, base, { tooMany: sheet.tooMany, uncalculated: sheet.uncalculated });
}

/**
 * Keeps a sheet's rows as they are read: non-empty ones, up to one past the cap; the header whole, then only the
 * columns it names that are read (so a row's width costs nothing), within MAX_READ_CHARACTERS.
 */
function rowReader(sheet: ReadSheet): (row: number, cells: RowCells) => boolean {
  let read: Set<number> | null = null;
  let characters = 0;
  return (row, cells) => {
    // The reader leaves out empty cells; a formula without a value (null) is not empty.
    if (cells.size === 0) return true;
    // The header and one row past the cap are enough to say the file is too long.
    if (sheet.lines.length > MAX_ROWS + 1) {
      sheet.tooMany = true;
      return false;
    }
    const kept: string[] = [];
    let blank = true;
    for (const [column, cell] of cells) {
      if (cell?.trim()) blank = false;
      if (read && !read.has(column)) continue;
      if (cell === null && read) sheet.uncalculated.push({ row, column, address: `${columnLetters(column)}${row}` });
      kept[column] = cell ?? '';
      characters += cell?.length ?? 0;
    }
    if (characters > MAX_READ_CHARACTERS) {
      throw new OversizedWorkbook(
        `The sheet ${quoted(sheet.name)} holds more text than a consumption batch can (more than ${MAX_READ_CHARACTERS.toLocaleString('en')} characters in the columns Closebook reads). Split it into smaller files.`,
      );
    }
    if (read) {
      sheet.lines.push({ row, cells: kept, blank });
    } else {
      const header = Array.from(kept, (cell) => cell ?? '');
      const { columns, extra } = headerColumns(header);
      read = new Set([...columns.keys(), ...extra.map(({ index }) => index)]);
      sheet.lines.push({ row, cells: header });
    }
    return true;
  };
}

/** UTF-8, unless a byte-order mark says UTF-16 (Excel's "Unicode Text" is UTF-16 with a mark, tab-separated). */
function textEncoding(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return 'utf-8';
}

export async function parseConsumptionFile(fileName: string, bytes: Uint8Array, sheetName?: string): Promise<ParsedFile> {
  if (/\.xlsx$/i.test(fileName)) return parseConsumptionXlsx(fileName, bytes, sheetName);
  const refused = (problem: string): ParsedFile => ({ fileName, sheets: [], sheet: null, rows: [], problems: [problem], extraColumns: [], ignoredColumns: [] });
  if (/\.(csv|txt|tsv)$/i.test(fileName)) {
    if (bytes.length > MAX_CONSUMPTION_FILE_BYTES) return tooLarge(fileName, bytes.length);
    const other = notText(bytes);
    if (other)
      return refused(`${fileName} is not a CSV file: it is ${other}. Save the consumption sheet as CSV (or open the Excel workbook itself, as .xlsx).`);
    return parseConsumptionCsv(fileName, new TextDecoder(textEncoding(bytes)).decode(bytes));
  }
  return refused(`${fileName}: Closebook reads consumption from .csv or .xlsx files.`);
}

/** What a file named as text is instead, by its first bytes (a PDF, a zip such as an Excel workbook, other binary); null for text. */
function notText(bytes: Uint8Array): string | null {
  const starts = (...signature: number[]) => signature.every((byte, index) => bytes[index] === byte);
  if (starts(0x25, 0x50, 0x44, 0x46)) return 'a PDF';
  if (starts(0x50, 0x4b, 0x03, 0x04)) return 'an Excel workbook or another zip file';
  if (textEncoding(bytes) !== 'utf-8') return null; // UTF-16 holds a NUL in every other byte
  return bytes.subarray(0, 4096).includes(0) ? 'not text (it holds NUL bytes)' : null;
}

/** A CSV larger than any consumption batch can be, refused before it is read. */
export function tooLarge(fileName: string, bytes: number): ParsedFile {
  const size = (megabytes: number) => `${megabytes.toLocaleString('en', { maximumFractionDigits: 1 })} MB`;
  return {
    fileName,
    sheets: [],
    sheet: null,
    rows: [],
    problems: [
      `${fileName} is ${size(bytes / MB)}; a consumption file can be at most ${size(MAX_CONSUMPTION_FILE_BYTES / MB)} (a batch holds at most ${MAX_ROWS.toLocaleString('en')} rows). Check it is the right file, or split it.`,
    ],
    extraColumns: [],
    ignoredColumns: [],
  };
}

const TEMPLATE_HEADERS = CONSUMPTION_FIELDS.map((field) => PLAIN_HEADERS[field]);

export function consumptionTemplateCsv(): string {
  return `${TEMPLATE_HEADERS.join(',')}\r\n`;
}

export function consumptionTemplateXlsx(): Promise<Buffer> {
  return smallWorkbook([
    { name: 'Consumption', columns: TEMPLATE_HEADERS.map((header) => ({ header, width: header.endsWith('ID') ? 40 : 14 })), rows: [] },
    {
      name: 'How to fill in',
      columns: [{ width: 18 }, { width: 90 }],
      rows: [
        [PLAIN_HEADERS.subscriptionId, 'Required. The metered subscription (a GUID).'],
        [PLAIN_HEADERS.isAddon, 'yes/no (also true/false or 1/0). Yes when the record is for an add-on of the subscription.'],
        [PLAIN_HEADERS.addonId, 'Required when Is add-on is yes; must be empty when it is no.'],
        [PLAIN_HEADERS.quantity, 'Required. A number, zero or more (decimals allowed).'],
        [PLAIN_HEADERS.consumptionId, 'Leave empty for new consumption; the id of an existing record to correct it.'],
        ['', 'One record per subscription or add-on per batch. If one record fails, the service saves none of the batch.'],
      ],
    },
  ]);
}
