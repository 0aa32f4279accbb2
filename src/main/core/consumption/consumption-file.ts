import ExcelJS from 'exceljs';
import { Readable } from 'node:stream';
import Papa from 'papaparse';
import { emptyRow, fieldForHeader, parseQuantity } from '../../../shared/consumption-rows';
import { CONSUMPTION_FIELDS, PLAIN_HEADERS, type ConsumptionField, type InputRow, type ParsedFile } from '../../../shared/schemas/consumption';

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
  const ignoredColumns: string[] = [];
  header.forEach((title, index) => {
    const field = fieldForHeader(title);
    if (!field) {
      if (title.trim()) ignoredColumns.push(title.trim());
      return;
    }
    if ([...columns.values()].includes(field)) problems.push(`The column "${title.trim()}" appears twice; only the first is read.`);
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
          return input;
        });
  if (!problems.length && rows.length === 0) problems.push(`${fileName} has a header row but no consumption rows.`);
  return { fileName, ...base, rows, problems, ignoredColumns };
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
    return { fileName, ...base, rows: [], problems: [`Row ${(fatal.row ?? 0) + 1} has a quote that is never closed: ${fatal.message}. Check the file in a text editor.`], ignoredColumns: [] };
  }
  const [header = [], ...body] = parsed.data;
  if (header.every((cell) => !cell.trim())) return { fileName, ...base, rows: [], problems: [`${fileName} is empty or has no header row.`], ignoredColumns: [] };
  const file = toRows(fileName, header, body.map((cells, index) => ({ row: index + 2, cells })), base);
  return delimiter === ';' ? { ...file, rows: file.rows.map(withDecimalPoint) } : file;
}

/** A ';'-separated file uses the decimal comma: its quantities are read that way, and kept (and shown) with a point. */
function withDecimalPoint(input: InputRow): InputRow {
  const quantity = input.quantity ? parseQuantity(input.quantity, true) : undefined;
  return quantity === undefined ? input : { ...input, quantity: String(quantity) };
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

/**
 * An XLSX workbook: the named sheet, or the first; the first non-empty row is the header. Read as a stream and
 * stopped at the row cap, so a small file that unpacks into millions of rows cannot take the memory or the time.
 */
export async function parseConsumptionXlsx(fileName: string, bytes: Uint8Array, sheetName?: string): Promise<ParsedFile> {
  const sheets: string[] = [];
  let chosen: { name: string; lines: { row: number; cells: string[] }[]; uncalculated: UncalculatedCell[]; tooMany: boolean } | null = null;
  try {
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from(Buffer.from(bytes)), { worksheets: 'emit', sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'ignore', entries: 'ignore' });
    for await (const worksheet of reader) {
      const name = (worksheet as unknown as { name: string }).name;
      sheets.push(name);
      if (chosen || (sheetName !== undefined && name !== sheetName)) continue;
      const sheet: NonNullable<typeof chosen> = { name, lines: [], uncalculated: [], tooMany: false };
      for await (const row of worksheet) {
        const cells: string[] = [];
        row.eachCell({ includeEmpty: false }, (cell, column) => {
          const text = cellText(cell.value);
          if (text === null) sheet.uncalculated.push({ row: row.number, column: column - 1, address: cell.address });
          cells[column - 1] = text ?? '';
        });
        if (!cells.some((cell) => cell !== undefined && cell !== '') && !sheet.uncalculated.some((cell) => cell.row === row.number)) continue;
        // The header and one row past the cap are enough to say the file is too long.
        if (sheet.lines.length > MAX_ROWS + 1) {
          sheet.tooMany = true;
          break;
        }
        sheet.lines.push({ row: row.number, cells: Array.from(cells, (cell) => cell ?? '') });
      }
      chosen = sheet;
    }
  } catch {
    return { fileName, sheets: [], sheet: null, rows: [], problems: [`${fileName} is not a readable Excel workbook (.xlsx). Save it again from Excel, or export it as CSV.`], ignoredColumns: [] };
  }
  if (!chosen) {
    return { fileName, sheets, sheet: null, rows: [], problems: [sheetName ? `${fileName} has no sheet "${sheetName}".` : `${fileName} has no sheets.`], ignoredColumns: [] };
  }
  const [header, ...body] = chosen.lines;
  const base = { sheets, sheet: chosen.name };
  if (!header) return { fileName, ...base, rows: [], problems: [`The sheet "${chosen.name}" is empty.`], ignoredColumns: [] };
  return toRows(fileName, header.cells, body, base, { tooMany: chosen.tooMany, uncalculated: chosen.uncalculated });
}

export async function parseConsumptionFile(fileName: string, bytes: Uint8Array, sheetName?: string): Promise<ParsedFile> {
  if (/\.xlsx$/i.test(fileName)) return parseConsumptionXlsx(fileName, bytes, sheetName);
  if (/\.(csv|txt|tsv)$/i.test(fileName)) return parseConsumptionCsv(fileName, new TextDecoder('utf-8').decode(bytes));
  return { fileName, sheets: [], sheet: null, rows: [], problems: [`${fileName}: Closebook reads consumption from .csv or .xlsx files.`], ignoredColumns: [] };
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
