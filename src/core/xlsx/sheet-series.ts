import type ExcelJS from 'exceljs';
import { styleOf } from './number-formats';
import { writeRowsXml } from './row-xml';
import type { OutputWatch, Sheet, SheetOptions, Writer } from './workbook-file';

/** What every sheet of one workbook is made with. */
export interface Sheets {
  workbook: Writer;
  output: OutputWatch;
  maxRows: number;
  print: SheetOptions;
}

/**
 * Rows given as XML are joined into one text and handed to the sheet's stream at about this many characters. The
 * stream turns each text into bytes, and a text made of many `+=` pieces is first flattened: at 16 KB the pieces
 * are still young and the copy is cheap, at 256 KB it cost four times as much (17 s of the main thread in a
 * 1,000,000-line export).
 */
const PENDING_CHARACTERS = 16 * 1024;

export interface Column {
  header: string;
  width: number;
}

/** A1-style column letters by 1-based index. */
export function letter(column: number): string {
  let name = '';
  for (let rest = column; rest > 0; rest = Math.floor((rest - 1) / 26)) name = String.fromCharCode(65 + ((rest - 1) % 26)) + name;
  return name;
}

/**
 * A data sheet that continues on "Name (2)", "Name (3)" … when one is full, each with the same header row, frozen,
 * printable, and filtered over its header and data rows only: totals go below a blank row, outside the filter.
 */
export class SheetSeries {
  readonly names: string[] = [];
  /** The last data row of each sheet (1 = only the header). */
  private readonly lastData: number[] = [];
  private sheet: Sheet | null = null;
  private rowNumber = 0;
  private inTotals = false;
  private pending = '';

  constructor(
    private readonly sheets: Sheets,
    private readonly name: string,
    private readonly columns: readonly Column[],
    private readonly options: SheetOptions = {},
  ) {}

  /** The next data row (on a new sheet when this one is full); commit it when its cells are set. */
  next(): { row: ExcelJS.Row; rowNumber: number } {
    this.sheets.output.check();
    this.flush(); // rows given as XML go first: a sheet's rows must be in order
    const rowNumber = this.take();
    return { row: (this.sheet as Sheet).getRow(rowNumber), rowNumber };
  }

  /** The next data row as XML made by `xml(rowNumber)` (see xlsx-row-xml.ts); buffered and written in pieces. */
  nextXml(xml: (rowNumber: number) => string): void {
    this.sheets.output.check();
    const rowNumber = this.take(); // first: taking a row may start a new sheet, which flushes what is pending
    this.pending += xml(rowNumber);
    if (this.pending.length > PENDING_CHARACTERS) this.flush();
  }

  /** Where the next row will go (past the end of a full sheet means the next sheet): for a subtotal of what follows. */
  mark(): { sheet: number; rowNumber: number } {
    return { sheet: Math.max(0, this.names.length - 1), rowNumber: this.rowNumber + 1 };
  }

  /**
   * References to the cells of `column` from `mark` up to the row just taken with next() (the subtotal row, which
   * they must not include), sheet by sheet: a block of rows may span a split.
   */
  rangesSince(mark: { sheet: number; rowNumber: number }, column: number): string {
    const current = this.names.length - 1;
    const ranges: string[] = [];
    for (let index = mark.sheet; index <= current; index++) {
      const first = index === mark.sheet ? mark.rowNumber : 2;
      const last = index === current ? this.rowNumber - 1 : this.sheets.maxRows;
      if (last >= first) ranges.push(`${this.prefix(index)}${letter(column)}${first}:${letter(column)}${last}`);
    }
    return ranges.join(',') || '0';
  }

  /**
   * SUMIFS over the data rows of every sheet so far: the cells of `column` whose `criteria` column equals this
   * row's `criteria` cell. Rows that are not data (subtotals leave the criteria column empty) do not match.
   */
  sumIfs(column: number, criteria: number, rowNumber: number, kind: 'SUMIFS' | 'COUNTIFS' = 'SUMIFS'): string {
    const parts: string[] = [];
    this.lastData.forEach((last, index) => {
      if (last < 2) return;
      const range = (at: number) => `${this.prefix(index)}${letter(at)}2:${letter(at)}${last}`;
      parts.push(
        kind === 'SUMIFS'
          ? `SUMIFS(${range(column)},${range(criteria)},${letter(criteria)}${rowNumber})`
          : `COUNTIFS(${range(criteria)},${letter(criteria)}${rowNumber})`,
      );
    });
    return parts.join('+') || '0';
  }

  /** Ends the data: the next rows are totals, below a blank row (on a new sheet when they do not fit on this one). */
  startTotals(count: number): void {
    this.ensureStarted();
    if (this.rowNumber + 1 + count > this.sheets.maxRows) this.start();
    this.inTotals = true;
    if (this.rowNumber > 1) this.rowNumber++; // the blank row
  }

  /** The first sheet is added at once, so an empty export still has its header row. */
  ensureStarted(): void {
    if (!this.sheet) this.start();
  }

  /** Blocks until the zip has taken what this sheet wrote (see zipCaughtUp). */
  caughtUp(): Promise<void> {
    this.flush();
    // The zip never catches up with a file that failed: the failure ends the wait.
    return this.sheet ? Promise.race([zipCaughtUp(this.sheet), this.sheets.output.failure]) : Promise.resolve();
  }

  commit(): void {
    this.ensureStarted();
    this.finishSheet();
  }

  /** A reference's sheet part: none on the current sheet, the quoted name on another. */
  private prefix(index: number): string {
    return index === this.names.length - 1 ? '' : `'${(this.names[index] as string).replaceAll("'", "''")}'!`;
  }

  private take(): number {
    if (!this.sheet || this.rowNumber >= this.sheets.maxRows) this.start();
    this.rowNumber++;
    if (!this.inTotals) this.lastData[this.lastData.length - 1] = this.rowNumber;
    return this.rowNumber;
  }

  private flush(): void {
    if (this.sheet && this.pending) writeRowsXml(this.sheet, this.pending, this.rowNumber);
    this.pending = '';
  }

  /** The filter covers the header and data rows (exceljs writes it when the sheet is committed). */
  private finishSheet(): void {
    if (!this.sheet) return;
    this.flush();
    this.sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: this.lastData.at(-1) ?? 1, column: this.columns.length } };
    this.sheet.commit();
  }

  private start(): void {
    this.finishSheet();
    const name = this.names.length === 0 ? this.name : `${this.name} (${this.names.length + 1})`;
    this.names.push(name);
    this.lastData.push(1);
    const sheet = this.sheets.workbook.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1, xSplit: 0 }], ...this.sheets.print, ...this.options });
    handOnInLargePieces(sheet);
    sheet.columns = this.columns.map((column) => ({ header: column.header, width: column.width }));
    const header = sheet.getRow(1);
    this.columns.forEach((_, index) => (header.getCell(index + 1).style = styleOf(null, 'header')));
    header.commit();
    this.sheet = sheet;
    this.rowNumber = 1;
  }
}

/**
 * exceljs's streaming writer hands each sheet's XML to the zip without waiting for it to be compressed, so a fast
 * producer piles a whole sheet up in memory (1.2 GB for a million lines). Waiting until the zip entry holds no more
 * than this keeps memory flat; it is several of the pieces below, so the zip always has the next one to work on
 * while the rows after it are made. The entry is an internal of exceljs; if it ever moves, this degrades to letting
 * the zip run between batches.
 */
const ZIP_BACKLOG_BYTES = 16 * 1024 * 1024;

/**
 * The size of the pieces a sheet's XML is handed to the zip in (exceljs gathers writes into pieces of 64 KB). zlib
 * compresses one piece at a time on a thread of its own, but only starts the next when this thread is free to hand
 * it over: at 64 KB a piece it was idle while the rows were made, and they waited for it after (9–13 s of a
 * 1,000,000-line export). A piece of 4 MB keeps it busy for as long as a batch of rows takes to make. The piece's
 * size is an internal of exceljs's sheet stream; if it ever moves, the pieces stay small (slower, never wrong).
 */
export const ZIP_PIECE_BYTES = 4 * 1024 * 1024;

/**
 * The internals of a sheet's stream the two above rely on, each read as possibly gone: the size of the pieces it
 * gathers writes into, and what it pipes them to (the zip's entry first).
 */
const streamOf = (sheet: Sheet) => (sheet as unknown as { stream?: { bufSize?: unknown; pipes?: NodeJS.EventEmitter[] } }).stream;

function handOnInLargePieces(sheet: Sheet): void {
  const stream = streamOf(sheet);
  if (stream && typeof stream.bufSize === 'number') stream.bufSize = ZIP_PIECE_BYTES;
}

async function zipCaughtUp(sheet: Sheet): Promise<void> {
  // One turn of the event loop first: zlib compresses on its own thread but needs this one to hand it each piece.
  await new Promise((resolve) => setImmediate(resolve));
  const entry = streamOf(sheet)?.pipes?.[0];
  const state = (entry as { _writableState?: { length?: number } } | undefined)?._writableState;
  if (!entry || typeof state?.length !== 'number' || state.length <= ZIP_BACKLOG_BYTES) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      for (const event of ['drain', 'close', 'error']) entry.removeListener(event, done);
      resolve();
    };
    for (const event of ['drain', 'close', 'error']) entry.once(event, done);
  });
}
