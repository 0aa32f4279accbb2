import ExcelJS from 'exceljs';
import { isEmptyFilter, type ReportFilter } from '@shared/report-filter';
import { marginPercent, money } from '@shared/money';
import type { ReportMeta } from '@shared/schemas/saved-report';
import type { Ledger, LedgerRow, LedgerValue } from '../ledger/ledger';
import type { FileSink, OutputFolder } from '../storage/output-file';
import { guardWorkbookText } from '../xlsx/xml-text';
import {
  cellLocalTime, cellNumber, COUNT_FORMAT, DATE_FORMAT, DATETIME_FORMAT, type Look, machineTimeZone, moneyFormat, PERCENT_FORMAT, QUANTITY_FORMAT, styleOf, TEXT_FORMAT, unitPriceFormat,
} from './number-formats';
import { type CellKind, rowXml, styleIndex, writeRowsXml } from './xlsx-row-xml';
import { exportLines, LINE_FIELDS, ORGANIZATION_ORDER } from './report-export-lines';
import { FLAG_WORDS, invoicing } from './report-invoicing';
import { CURRENCY_KEY, lineFilter } from './report-query';

/** The `Billing lines` headers, exactly and in this order, for ERP import. */
export const BILLING_LINE_HEADERS = [
  'Organization', 'Customer number', 'Org ID', 'Organization groups', 'Service', 'Service ID', 'Subscription', 'Subscription ID',
  'PO number', 'Product', 'Product ID', 'Item code', 'Quantity', 'Reseller price per unit', 'Customer price per unit',
  'Total reseller price', 'Total customer price', 'Margin', 'Currency', 'Customer currency', 'Billing date', 'Item details',
] as const;

/** The `Invoicing` headers, exactly and in this order, for ERP import. */
export const INVOICING_HEADERS = ['Customer number', 'Organization', 'Currency', 'Amount to invoice', 'Billing lines', 'Flags'] as const;

export const MARGIN_EXPLANATION =
  'Margin = total customer price (sales) − total reseller price (cost), summed exactly from the billing lines. ' +
  'Margin % = margin ÷ sales. Where a service is bought in one currency and sold in another (e.g. USD→SEK), no margin is given: ' +
  'amounts in different currencies are never added or subtracted.';

export const INVOICING_EXPLANATION =
  "Amount to invoice = exact sum of sales in the customer currency, rounded once to the currency's minor unit; amounts are net of tax; negative totals are credit notes.";

/** Excel's last row; a sheet holds one header row and this many minus one data rows. */
export const EXCEL_MAX_ROWS = 1_048_576;

export interface WorkbookOptions {
  filter?: ReportFilter;
  /** Sheets another feature adds after Billing lines, and its rows for About (closing the month: Changes, Checks, sign-off). */
  addSheets?: WorkbookAddition;
  appVersion: string;
  exportedAt: Date;
  /** Rows per sheet, header included, before a sheet continues on the next (Excel's limit; tests set a small one). */
  maxRows?: number;
  /** The zone Closebook's own times are shown in; the machine's unless set (tests). */
  timeZone?: string;
  /** Told the billing lines written so far, after each batch (the longest part of an export). */
  onProgress?: (lines: number) => void;
}

export interface WorkbookSummary {
  lines: number;
}

/** A row of the About sheet: a label and its values; `look` makes the whole row bold (a header, or what must not be missed). */
export interface AboutRow {
  values: (string | number | Date)[];
  look?: Look;
}

/** What an addition wrote: its sheets that continued on another (for About), and its rows for About (shown below the period). */
export interface WorkbookAdditionResult {
  split: string[][];
  about: AboutRow[];
}

export type WorkbookAddition = (sheets: Sheets, meta: ReportMeta, options: WorkbookOptions) => Promise<WorkbookAdditionResult>;

function describeFilter(filter: ReportFilter | undefined): string {
  if (!filter || isEmptyFilter(filter)) return 'Whole report';
  const parts = [
    filter.group && `group "${filter.group}"`,
    filter.ungrouped && 'organizations in no group',
    filter.organization?.trim() && `organization contains "${filter.organization.trim()}"`,
    filter.service && `service "${filter.service}"`,
    filter.currency && `currency ${filter.currency}`,
    filter.text?.trim() && `text "${filter.text.trim()}"`,
  ].filter(Boolean);
  return `Filtered view: ${parts.join(', ')}`;
}

export type Writer = ExcelJS.stream.xlsx.WorkbookWriter;
export type Sheet = ReturnType<Writer['addWorksheet']>;
type Lines = { where: string; params: LedgerValue[] };
type SheetOptions = Partial<ExcelJS.AddWorksheetOptions>;

/**
 * Every sheet prints the same way: landscape, as wide as one page, the header row on every page, and a footer
 * with the report's name, the sheet and the page number. `&` starts a code in a footer, so the name's are doubled.
 */
export function printSetup(reportName: string): SheetOptions {
  const name = reportName.replaceAll('&', '&&').slice(0, 120);
  return {
    pageSetup: {
      orientation: 'landscape', fitToPage: true, fitToWidth: 1, fitToHeight: 0, printTitlesRow: '1:1',
      margins: { left: 0.4, right: 0.4, top: 0.5, bottom: 0.6, header: 0.3, footer: 0.3 },
    },
    headerFooter: { oddFooter: `&L${name}&C&A&RPage &P of &N` },
  } as SheetOptions;
}

/**
 * Writes the workbook from the ledger with exceljs's streaming writer: every aggregate and total comes from SQL
 * (exact DECIMAL sums, per currency pair — never across currencies) and the billing lines are streamed in batches,
 * so memory does not grow with the report. Amounts become numbers only in their cells; totals are formulas stored
 * with their exact result (exceljs never calculates). Written through the ledger's staging folder (see output-file.ts).
 */
export async function writeReportWorkbook(ledger: Ledger, meta: ReportMeta, path: string, options: WorkbookOptions): Promise<WorkbookSummary> {
  return writeWorkbookFile(ledger.outputs, path, options.exportedAt, async (workbook, output) => {
    const lines = lineFilter(meta.id, options.filter);
    const sheets: Sheets = { workbook, output, maxRows: Math.max(2, options.maxRows ?? EXCEL_MAX_ROWS), print: printSetup(meta.name) };
    const totals = (await ledger.all(`SELECT ${PAIR}, ${SUMS} FROM billing_lines l WHERE ${lines.where} GROUP BY ALL ORDER BY currency_key`, lines.params)).map(amountsOf);
    const split = [
      await writeInvoicing(sheets, ledger, meta.id, options.filter),
      await writeSummary(sheets, ledger, lines, totals),
      await writeServices(sheets, ledger, lines, totals),
      await writeOrganizationGroups(sheets, ledger, lines),
    ];
    const billingLines = await writeBillingLines(sheets, ledger, meta.id, options.filter, options.onProgress);
    split.push(billingLines.sheets);
    const added = options.addSheets ? await options.addSheets(sheets, meta, options) : { split: [], about: [] };
    split.push(...added.split);
    writeAbout(sheets, meta, totals, billingLines.lines, split.filter((names) => names.length > 1), added.about, options);
    return { lines: billingLines.lines };
  });
}

/**
 * A workbook written with exceljs's streaming writer into a file of the staging folder, moved to `path` once `build`
 * has added its sheets and the file is complete. A write that fails (a full disk) ends `build` at its next row or
 * wait (see Sheets.output) and the export with it: exceljs itself would wait for ever for the broken stream.
 */
export async function writeWorkbookFile<T>(outputs: OutputFolder, path: string, createdAt: Date, build: (workbook: Writer, output: OutputWatch) => Promise<T>): Promise<T> {
  guardWorkbookText();
  return outputs.writeStream(path, async (sink) => {
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: sink, useStyles: true, useSharedStrings: false });
    workbook.creator = 'Closebook';
    workbook.created = createdAt;
    workbook.modified = createdAt; // else the moment exceljs was called: the same export would differ byte by byte
    const result = await build(workbook, sink);
    await Promise.race([workbook.commit(), sink.failure]);
    return result;
  });
}

/** What a sheet writer asks of the file under it: has a write failed (check), and a promise that says when one does. */
export type OutputWatch = Pick<FileSink, 'check' | 'failure'>;

/** What every sheet of one workbook is made with. */
export interface Sheets {
  workbook: Writer;
  output: OutputWatch;
  maxRows: number;
  print: SheetOptions;
}

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
    private readonly columns: Column[],
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
    if (this.pending.length > 256 * 1024) this.flush();
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
      parts.push(kind === 'SUMIFS' ? `SUMIFS(${range(column)},${range(criteria)},${letter(criteria)}${rowNumber})` : `COUNTIFS(${range(criteria)},${letter(criteria)}${rowNumber})`);
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
 * producer piles a whole sheet up in memory (1.2 GB for a million lines). Waiting until the zip entry has taken
 * what it was given keeps memory flat. The entry is an internal of exceljs; if it ever moves, this degrades to
 * letting the zip run between batches.
 */
const ZIP_BACKLOG_BYTES = 4 * 1024 * 1024;
async function zipCaughtUp(sheet: Sheet): Promise<void> {
  // One turn of the event loop first: zlib compresses on its own thread but needs this one to hand it each piece.
  await new Promise((resolve) => setImmediate(resolve));
  const entry = (sheet as unknown as { stream?: { pipes?: NodeJS.EventEmitter[] } }).stream?.pipes?.[0];
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

interface Amounts {
  currency: string;
  costCurrency: string;
  salesCurrency: string;
  cost: string;
  sales: string;
  /** Null where cost and sales are in different currencies. */
  margin: string | null;
}

/** A currency pair of the lines table: "SEK", or "USD→SEK" (never added together). */
const PAIR = `currency, customer_currency, ${CURRENCY_KEY} AS currency_key`;
/** Exact sums as text from DuckDB (DECIMAL(38, 6)); margin only means something within one currency. */
const SUMS = `sum(cost)::VARCHAR AS cost, sum(sales)::VARCHAR AS sales, (sum(sales) - sum(cost))::VARCHAR AS margin`;

function amountsOf(row: LedgerRow): Amounts {
  const single = row.currency === row.customer_currency;
  return {
    currency: String(row.currency_key),
    costCurrency: String(row.currency),
    salesCurrency: String(row.customer_currency),
    cost: String(row.cost),
    sales: String(row.sales),
    margin: single ? String(row.margin) : null,
  };
}

/** Margin % as a fraction for a % cell; null without sales or across currencies. */
function percentOf(cost: string, sales: string): number | null {
  return marginPercent(money(cost), money(sales))?.dividedBy(100).toNumber() ?? null;
}

/** The columns Summary and Services share after their labels (written by writeAmountCells). */
const AMOUNT_COLUMNS: Column[] = [
  { header: 'Currency', width: 11 },
  { header: 'Cost', width: 18 },
  { header: 'Sales', width: 18 },
  { header: 'Margin', width: 18 },
  { header: 'Margin %', width: 10 },
];

/**
 * Each organization (ORG_KEY) in ORGANIZATION_ORDER with its groups from every billing entry it appears in, as one
 * text ("CC-100 Nordics, Jane Doe"). $1 is the report.
 */
const ORGANIZATIONS = `
  organization AS (${ORGANIZATION_ORDER}),
  organization_group_names AS (
    SELECT o.org_key, array_to_string(list_sort(list(DISTINCT g.group_name)), ', ') AS names
    FROM organization_groups g JOIN organization o ON o.org_no = g.org_no WHERE g.report_id = $1 GROUP BY o.org_key)`;

/**
 * One row per organization and currency pair, in organization order and, within one, by customer currency: each
 * customer's rows of one customer currency are an outline group (level 1) closed by its subtotal row (SUBTOTAL(9, …),
 * so sums and the grand totals never count it twice). Grand totals per currency pair follow below a blank row.
 */
async function writeSummary(sheets: Sheets, ledger: Ledger, lines: Lines, totals: Amounts[]): Promise<string[]> {
  const labels: Column[] = [{ header: 'Organization', width: 36 }, { header: 'Customer number', width: 16 }, { header: 'Organization groups', width: 36 }];
  const series = new SheetSeries(sheets, 'Summary', [...labels, ...AMOUNT_COLUMNS], { properties: { outlineLevelRow: 1, outlineProperties: { summaryBelow: true } } as ExcelJS.WorksheetProperties });
  series.ensureStarted();
  let block = null as { key: string; mark: ReturnType<SheetSeries['mark']>; row: LedgerRow } | null;
  const closeBlock = () => {
    if (block) writeSubtotalRow(series, labels.length, block.mark, block.row);
    block = null;
  };
  for await (const rows of ledger.stream(
    `WITH ${ORGANIZATIONS}
     SELECT a.currency, a.customer_currency, ${CURRENCY_KEY} AS currency_key,
       o.org_key, any_value(o.name) AS name, any_value(o.customer_number) AS customer_number, coalesce(any_value(g.names), '') AS groups,
       sum(a.cost)::VARCHAR AS cost, sum(a.sales)::VARCHAR AS sales, (sum(a.sales) - sum(a.cost))::VARCHAR AS margin,
       sum(sum(a.cost)) OVER block AS block_cost, sum(sum(a.sales)) OVER block AS block_sales,
       min(a.currency) OVER block = max(a.currency) OVER block AS block_one_cost_currency, min(a.currency) OVER block AS block_cost_currency
     FROM (SELECT org_no, currency, customer_currency, sum(cost) AS cost, sum(sales) AS sales FROM billing_lines l WHERE ${lines.where} GROUP BY ALL) a
     JOIN organization o ON o.org_no = a.org_no
     LEFT JOIN organization_group_names g ON g.org_key = o.org_key
     GROUP BY o.org_rank, o.org_key, a.currency, a.customer_currency
     WINDOW block AS (PARTITION BY o.org_key, a.customer_currency)
     ORDER BY o.org_rank, a.customer_currency, a.currency`,
    lines.params,
  )) {
    for (const row of rows) {
      const key = `${String(row.org_key)}|${String(row.customer_currency)}`;
      if (block?.key !== key) {
        closeBlock();
        block = { key, mark: series.mark(), row };
      }
      const next = series.next().row;
      next.outlineLevel = 1;
      next.getCell(2).style = styleOf(TEXT_FORMAT);
      writeAmountCells(next, [String(row.name), String(row.customer_number), String(row.groups)], amountsOf(row));
    }
    await series.caughtUp();
  }
  closeBlock();
  writeTotalRows(series, labels.length, totals);
  series.commit();
  return series.names;
}

/**
 * A customer's subtotal in one customer currency: sales always; cost (and margin) only where its rows share one
 * purchase currency (and it is the sales currency). The Currency cell stays empty, so the grand totals' SUMIFS
 * on it pass over subtotal rows.
 */
function writeSubtotalRow(series: SheetSeries, labelCount: number, mark: ReturnType<SheetSeries['mark']>, block: LedgerRow) {
  const { row, rowNumber } = series.next();
  const salesCurrency = String(block.customer_currency);
  const costCurrency = block.block_one_cost_currency === true ? String(block.block_cost_currency) : null;
  const [currencyAt, costAt, salesAt, marginAt, percentAt] = [1, 2, 3, 4, 5].map((offset) => labelCount + offset) as [number, number, number, number, number];
  const cell = (column: number, value: ExcelJS.CellValue, numFmt: string | null = null) => {
    row.getCell(column).value = value;
    row.getCell(column).style = styleOf(numFmt, 'subtotal');
  };
  cell(1, `${String(block.name)} — ${salesCurrency} total`);
  cell(2, String(block.customer_number), TEXT_FORMAT);
  for (let column = 3; column <= currencyAt; column++) cell(column, null);
  const subtotal = (column: number) => `SUBTOTAL(9,${series.rangesSince(mark, column)})`;
  cell(salesAt, { formula: subtotal(salesAt), result: cellNumber(String(block.block_sales)) }, moneyFormat(salesCurrency));
  cell(costAt, costCurrency ? { formula: subtotal(costAt), result: cellNumber(String(block.block_cost)) } : null, costCurrency ? moneyFormat(costCurrency) : null);
  const margin = costCurrency === salesCurrency ? money(String(block.block_sales)).minus(String(block.block_cost)).toFixed() : null;
  cell(marginAt, margin === null ? null : { formula: subtotal(marginAt), result: cellNumber(margin) }, margin === null ? null : moneyFormat(salesCurrency));
  const percent = margin === null ? null : percentOf(String(block.block_cost), String(block.block_sales));
  const [m, f] = [letter(marginAt), letter(salesAt)];
  cell(percentAt, percent === null ? null : { formula: `IF(${f}${rowNumber}=0,"",${m}${rowNumber}/${f}${rowNumber})`, result: percent }, percent === null ? null : PERCENT_FORMAT);
  row.commit();
}

/**
 * The grand total of each currency pair, below a blank row and outside the filter: SUMIFS on the Currency column
 * over the data rows of every sheet (subtotal rows among them do not match), stored with the exact SQL sums.
 */
function writeTotalRows(series: SheetSeries, labelCount: number, totals: Amounts[]) {
  series.startTotals(totals.length);
  const [currencyAt, costAt, salesAt, marginAt, percentAt] = [1, 2, 3, 4, 5].map((offset) => labelCount + offset) as [number, number, number, number, number];
  for (const total of totals) {
    const { row, rowNumber } = series.next();
    const cell = (column: number, value: ExcelJS.CellValue, numFmt: string | null = null) => {
      row.getCell(column).value = value;
      row.getCell(column).style = styleOf(numFmt, 'total');
    };
    cell(1, `Total ${total.currency}`);
    for (let column = 2; column < currencyAt; column++) cell(column, null);
    cell(currencyAt, total.currency);
    cell(costAt, { formula: series.sumIfs(costAt, currencyAt, rowNumber), result: cellNumber(total.cost) }, moneyFormat(total.costCurrency));
    cell(salesAt, { formula: series.sumIfs(salesAt, currencyAt, rowNumber), result: cellNumber(total.sales) }, moneyFormat(total.salesCurrency));
    const [c, f, m] = [letter(costAt), letter(salesAt), letter(marginAt)];
    const percent = total.margin === null ? null : percentOf(total.cost, total.sales);
    cell(marginAt, total.margin === null ? null : { formula: `${f}${rowNumber}-${c}${rowNumber}`, result: cellNumber(total.margin) }, total.margin === null ? null : moneyFormat(total.currency));
    cell(percentAt, percent === null ? null : { formula: `IF(${f}${rowNumber}=0,"",${m}${rowNumber}/${f}${rowNumber})`, result: percent }, percent === null ? null : PERCENT_FORMAT);
    row.commit();
  }
}

/** Label cells, then Currency, Cost, Sales, Margin and Margin % (the last two only when both amounts share a currency). */
function writeAmountCells(row: ExcelJS.Row, labels: string[], amounts: Amounts) {
  labels.forEach((label, index) => (row.getCell(index + 1).value = label));
  const at = labels.length + 1;
  row.getCell(at).value = amounts.currency;
  row.getCell(at + 1).value = cellNumber(amounts.cost);
  row.getCell(at + 1).style = styleOf(moneyFormat(amounts.costCurrency));
  row.getCell(at + 2).value = cellNumber(amounts.sales);
  row.getCell(at + 2).style = styleOf(moneyFormat(amounts.salesCurrency));
  if (amounts.margin !== null) {
    row.getCell(at + 3).value = cellNumber(amounts.margin);
    row.getCell(at + 3).style = styleOf(moneyFormat(amounts.currency));
    const percent = percentOf(amounts.cost, amounts.sales);
    if (percent !== null) {
      row.getCell(at + 4).value = percent;
      row.getCell(at + 4).style = styleOf(PERCENT_FORMAT);
    }
  }
  row.commit();
}

/** One row per organization, service and currency pair, in organization then service order; grand totals per pair. */
async function writeServices(sheets: Sheets, ledger: Ledger, lines: Lines, totals: Amounts[]): Promise<string[]> {
  const labels: Column[] = [
    { header: 'Organization', width: 36 }, { header: 'Customer number', width: 16 }, { header: 'Organization groups', width: 30 },
    { header: 'Service', width: 34 }, { header: 'Service ID', width: 38 },
  ];
  const series = new SheetSeries(sheets, 'Services', [...labels, ...AMOUNT_COLUMNS]);
  series.ensureStarted();
  for await (const rows of ledger.stream(
    `WITH ${ORGANIZATIONS}
     SELECT a.currency, a.customer_currency, any_value(a.currency_key) AS currency_key, any_value(o.name) AS name, any_value(o.customer_number) AS customer_number,
       coalesce(any_value(g.names), '') AS groups, s.service_name, s.service_id,
       sum(a.cost)::VARCHAR AS cost, sum(a.sales)::VARCHAR AS sales, (sum(a.sales) - sum(a.cost))::VARCHAR AS margin
     FROM (SELECT service_no, ${PAIR}, sum(cost) AS cost, sum(sales) AS sales FROM billing_lines l WHERE ${lines.where} GROUP BY ALL) a
     JOIN services s ON s.report_id = $1 AND s.service_no = a.service_no
     JOIN organization o ON o.org_no = s.org_no
     LEFT JOIN organization_group_names g ON g.org_key = o.org_key
     GROUP BY o.org_rank, o.org_key, s.service_id, s.service_name, a.currency, a.customer_currency
     ORDER BY o.org_rank, lower(s.service_name), s.service_id, a.customer_currency, a.currency`,
    lines.params,
  )) {
    for (const row of rows) {
      const next = series.next().row;
      next.getCell(2).style = styleOf(TEXT_FORMAT);
      writeAmountCells(next, [String(row.name), String(row.customer_number), String(row.groups), String(row.service_name), String(row.service_id)], amountsOf(row));
    }
    await series.caughtUp();
  }
  writeTotalRows(series, labels.length, totals);
  series.commit();
  return series.names;
}

/**
 * What finance opens first and an ERP imports: one row per organization and customer currency with the amount to
 * invoice (rounded once to the currency's minor unit, a number in the currency's format) and why it may need a
 * look; totals per currency below a blank row. Cost and margin stay in Summary.
 */
async function writeInvoicing(sheets: Sheets, ledger: Ledger, reportId: string, filter: ReportFilter | undefined): Promise<string[]> {
  const widths = [16, 36, 10, 20, 13, 44];
  const series = new SheetSeries(sheets, 'Invoicing', INVOICING_HEADERS.map((header, index) => ({ header, width: widths[index] as number })));
  series.ensureStarted();
  const { rows, totals } = await invoicing(ledger, reportId, filter);
  for (const invoice of rows) {
    const { row } = series.next();
    const cells: [ExcelJS.CellValue, Partial<ExcelJS.Style> | null][] = [
      [invoice.customerNumber || null, styleOf(TEXT_FORMAT)], // text: an ERP's customer number keeps its leading zeros
      [invoice.organization, null],
      [invoice.currency, null],
      [cellNumber(invoice.amountToInvoice), styleOf(moneyFormat(invoice.currency))],
      [invoice.lines, styleOf(COUNT_FORMAT)],
      [invoice.flags.map((flag) => FLAG_WORDS[flag]).join('; '), null],
    ];
    cells.forEach(([value, style], index) => {
      row.getCell(index + 1).value = value;
      if (style) row.getCell(index + 1).style = style;
    });
    row.commit();
  }
  series.startTotals(totals.length);
  for (const total of totals) {
    const { row, rowNumber } = series.next();
    const cells: [ExcelJS.CellValue, string | null][] = [
      [`Total ${total.currency}`, null],
      [{ formula: series.sumIfs(3, 3, rowNumber, 'COUNTIFS'), result: total.customers }, `#,##0 "customers"`],
      [total.currency, null],
      [{ formula: series.sumIfs(4, 3, rowNumber), result: cellNumber(total.amountToInvoice) }, moneyFormat(total.currency)],
      [{ formula: series.sumIfs(5, 3, rowNumber), result: total.lines }, COUNT_FORMAT],
      [null, null],
    ];
    cells.forEach(([value, numFmt], index) => {
      row.getCell(index + 1).value = value;
      row.getCell(index + 1).style = styleOf(numFmt, 'total');
    });
    row.commit();
  }
  series.commit();
  return series.names;
}

/**
 * One row per organization per group (an organization in two groups has two rows), for pivots by group. An
 * organization in no group has one row with the group empty, so the sheet lists every exported organization and
 * a pivot's "(blank)" is the ungrouped ones — per-group figures then add up to the whole.
 */
async function writeOrganizationGroups(sheets: Sheets, ledger: Ledger, lines: Lines): Promise<string[]> {
  const series = new SheetSeries(sheets, 'Organization groups', [{ header: 'Organization', width: 36 }, { header: 'Customer number', width: 16 }, { header: 'Org ID', width: 38 }, { header: 'Group', width: 30 }]);
  series.ensureStarted();
  for await (const rows of ledger.stream(
    `WITH organization AS (${ORGANIZATION_ORDER}),
       exported AS (SELECT DISTINCT o.org_key, o.name, o.customer_number, o.org_id, o.org_rank
                    FROM (SELECT DISTINCT org_no FROM billing_lines l WHERE ${lines.where}) p JOIN organization o ON o.org_no = p.org_no),
       grouped AS (SELECT DISTINCT o.org_key, g.group_name FROM organization_groups g JOIN organization o ON o.org_no = g.org_no WHERE g.report_id = $1)
     SELECT e.name, e.customer_number, e.org_id, g.group_name
     FROM exported e LEFT JOIN grouped g ON g.org_key = e.org_key
     ORDER BY e.org_rank, g.group_name NULLS FIRST`,
    lines.params,
  )) {
    for (const found of rows) {
      const { row } = series.next();
      // No group is an empty cell: a pivot's "(blank)".
      [found.name, found.customer_number, found.org_id, found.group_name].forEach((value, index) => (row.getCell(index + 1).value = value === null || value === '' ? null : String(value)));
      row.getCell(2).style = styleOf(TEXT_FORMAT);
      row.commit();
    }
    await series.caughtUp();
  }
  series.commit();
  return series.names;
}

/** How each billing-line column is written, by its place in LINE_FIELDS. */
const LINE_KINDS: CellKind[] = LINE_FIELDS.map((field) =>
  ['quantity', 'cost_per_unit', 'sales_per_unit', 'cost', 'sales', 'margin'].includes(field) ? 'number' : field === 'billing_date' ? 'date' : 'text',
);
const CURRENCY = LINE_FIELDS.indexOf('currency');
const CUSTOMER_CURRENCY = LINE_FIELDS.indexOf('customer_currency');

/** Style indexes of the billing-line columns per currency pair (number formats name their currency), built once each. */
function lineStyles(workbook: Writer) {
  const byPair = new Map<string, number[]>();
  const quantity = styleIndex(workbook, styleOf(QUANTITY_FORMAT), 'number');
  const date = styleIndex(workbook, styleOf(DATE_FORMAT), 'date');
  return (currency: string, customerCurrency: string): number[] => {
    const key = `${currency}|${customerCurrency}`;
    let styles = byPair.get(key);
    if (!styles) {
      const [unitCost, unitSales, cost, sales] = [unitPriceFormat(currency), unitPriceFormat(customerCurrency), moneyFormat(currency), moneyFormat(customerCurrency)].map((format) =>
        styleIndex(workbook, styleOf(format), 'number'),
      );
      const byField: Partial<Record<(typeof LINE_FIELDS)[number], number>> = {
        quantity, cost_per_unit: unitCost, sales_per_unit: unitSales, cost, sales, margin: sales, billing_date: date,
      };
      styles = LINE_FIELDS.map((field) => byField[field] ?? 0);
      byPair.set(key, styles);
    }
    return styles;
  };
}

/** Streams the lines into "Billing lines", "Billing lines (2)" …; returns how many and in which sheets. */
async function writeBillingLines(sheets: Sheets, ledger: Ledger, reportId: string, filter: ReportFilter | undefined, onProgress?: (lines: number) => void): Promise<{ lines: number; sheets: string[] }> {
  const widths = [34, 16, 38, 34, 30, 38, 40, 38, 14, 38, 38, 20, 10, 16, 16, 18, 18, 16, 9, 9, 12, 30];
  const series = new SheetSeries(sheets, 'Billing lines', BILLING_LINE_HEADERS.map((header, index) => ({ header, width: widths[index] as number })));
  series.ensureStarted();
  const stylesOf = lineStyles(sheets.workbook);
  const dates = new Map<string, number | null>();
  let count = 0;
  for await (const batch of exportLines(ledger, reportId, filter)) {
    for (const line of batch) {
      const styles = stylesOf(String(line[CURRENCY]), String(line[CUSTOMER_CURRENCY]));
      series.nextXml((rowNumber) => rowXml(rowNumber, line, LINE_KINDS, styles, dates));
    }
    count += batch.length;
    onProgress?.(count);
    await series.caughtUp();
  }
  series.commit();
  return { lines: count, sheets: series.names };
}

function writeAbout(sheets: Sheets, meta: ReportMeta, totals: Amounts[], lines: number, split: string[][], added: AboutRow[], options: WorkbookOptions) {
  const worksheet = sheets.workbook.addWorksheet('About', sheets.print);
  worksheet.columns = [{ width: 34 }, { width: 22 }, { width: 22 }, { width: 22 }, { width: 22 }];
  const perSheet = sheets.maxRows - 1;
  // Closebook's own times in the machine's zone, named; the service's zoneless dates stay as it gave them.
  const fetched = localTime(new Date(meta.fetchedAt), options.timeZone) ?? { value: meta.fetchedAt, zone: 'as recorded' };
  const exported = localTime(options.exportedAt, options.timeZone) ?? { value: '', zone: 'unknown' };
  const rows: AboutRow[] = [
    { values: ['Report', meta.name] },
    { values: ['Period', `${meta.period.startDate} – ${meta.period.endDate}`] },
    ...added,
    { values: ['Profile', meta.profileName] },
    { values: ['Service', meta.host] },
    { values: [`Fetched at (${fetched.zone})`, fetched.value] },
    { values: [`Exported at (${exported.zone})`, exported.value] },
    { values: ['Closebook version', options.appVersion] },
    { values: ['Scope', describeFilter(options.filter)] },
    { values: ['Organizations in report', meta.counts.organizations] },
    { values: ['Services in report', meta.counts.services] },
    { values: ['Subscriptions in report', meta.counts.subscriptions] },
    { values: ['Billing lines in report', meta.counts.lines] },
    { values: ['Billing lines exported', lines] },
    ...split.map((names) => ({
      values: [`${names[0]} sheets`, `${names.join(', ')}: more rows than one Excel sheet holds (${perSheet.toLocaleString('en')}), so they continue on the next sheet.`],
    })),
    { values: ['How the amount to invoice is computed', INVOICING_EXPLANATION] },
    { values: ['How margin is computed', MARGIN_EXPLANATION] },
    { values: [] },
    { values: ['Totals of the exported lines', 'Currency', 'Cost', 'Sales', 'Margin'], look: 'header' },
  ];
  let rowNumber = writeAboutRows(worksheet, rows);
  for (const total of totals) {
    const row = worksheet.getRow(rowNumber++);
    row.values = ['', total.currency, cellNumber(total.cost), cellNumber(total.sales), total.margin === null ? 'n/a (two currencies)' : cellNumber(total.margin)];
    row.getCell(3).style = styleOf(moneyFormat(total.costCurrency));
    row.getCell(4).style = styleOf(moneyFormat(total.salesCurrency));
    if (total.margin !== null) row.getCell(5).style = styleOf(moneyFormat(total.costCurrency));
    row.commit();
  }
  worksheet.commit();
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
