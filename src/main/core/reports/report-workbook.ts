import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import ExcelJS from 'exceljs';
import { isEmptyFilter, type ReportFilter } from '../../../shared/report-filter';
import { marginPercent, money } from '../../../shared/money';
import type { ReportMeta } from '../../../shared/schemas/saved-report';
import type { Ledger, LedgerRow, LedgerValue } from '../ledger/ledger';
import { writeFileThrough } from '../platform/atomic-file';
import { cellDate, cellNumber, DATE_FORMAT, DATETIME_FORMAT, moneyFormat, PERCENT_FORMAT, QUANTITY_FORMAT, styleOf, unitPriceFormat } from './number-formats';
import { type CellKind, rowXml, styleIndex, writeRowsXml } from './xlsx-row-xml';
import { exportLines, LINE_FIELDS } from './report-export-lines';
import { CURRENCY_KEY, lineFilter, ORG_KEY } from './report-query';

/** The `Billing lines` headers, exactly and in this order, for ERP import. */
export const BILLING_LINE_HEADERS = [
  'Organization', 'Customer number', 'Org ID', 'Organization groups', 'Service', 'Service ID', 'Subscription', 'Subscription ID',
  'PO number', 'Product', 'Product ID', 'Item code', 'Quantity', 'Reseller price per unit', 'Customer price per unit',
  'Total reseller price', 'Total customer price', 'Margin', 'Currency', 'Customer currency', 'Billing date', 'Item details',
] as const;

export const MARGIN_EXPLANATION =
  'Margin = total customer price (sales) − total reseller price (cost), summed exactly from the billing lines. ' +
  'Margin % = margin ÷ sales. Where a service is bought in one currency and sold in another (e.g. USD→SEK), no margin is given: ' +
  'amounts in different currencies are never added or subtracted.';

/** Excel's last row; a sheet holds one header row and this many minus one data rows. */
export const EXCEL_MAX_ROWS = 1_048_576;

export interface WorkbookOptions {
  filter?: ReportFilter;
  appVersion: string;
  exportedAt: Date;
  /** Rows per sheet, header included, before a sheet continues on the next (Excel's limit; tests set a small one). */
  maxRows?: number;
}

export interface WorkbookSummary {
  lines: number;
}

const HEADER_FONT = { bold: true };

function describeFilter(filter: ReportFilter | undefined): string {
  if (!filter || isEmptyFilter(filter)) return 'Whole report';
  const parts = [
    filter.group && `group "${filter.group}"`,
    filter.organization?.trim() && `organization contains "${filter.organization.trim()}"`,
    filter.service && `service "${filter.service}"`,
    filter.currency && `currency ${filter.currency}`,
    filter.text?.trim() && `text "${filter.text.trim()}"`,
  ].filter(Boolean);
  return `Filtered view: ${parts.join(', ')}`;
}

type Writer = ExcelJS.stream.xlsx.WorkbookWriter;
type Sheet = ReturnType<Writer['addWorksheet']>;
type Lines = { where: string; params: LedgerValue[] };

/**
 * Writes the workbook from the ledger with exceljs's streaming writer: every aggregate and total comes from SQL
 * (exact DECIMAL sums, per currency pair — never across currencies) and the billing lines are streamed in batches,
 * so memory does not grow with the report. Amounts become numbers only in their cells; totals are formulas stored
 * with their exact result (exceljs never calculates). Written to a temporary file beside `path` and renamed into
 * place when complete.
 */
export async function writeReportWorkbook(ledger: Ledger, meta: ReportMeta, path: string, options: WorkbookOptions): Promise<WorkbookSummary> {
  return writeFileThrough(path, async (temporary) => {
    const stream = createWriteStream(temporary, { mode: 0o600 });
    // A failure is reported by `finished` or the writer; a late write into the destroyed stream must not crash.
    stream.on('error', () => undefined);
    try {
      const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: true, useSharedStrings: false });
      workbook.creator = 'Closebook';
      workbook.created = options.exportedAt;
      const lines = lineFilter(meta.id, options.filter);
      const maxRows = Math.max(2, options.maxRows ?? EXCEL_MAX_ROWS);
      const totals = (await ledger.all(`SELECT ${PAIR}, ${SUMS} FROM billing_lines l WHERE ${lines.where} GROUP BY ALL ORDER BY currency_key`, lines.params)).map(amountsOf);
      const split = [await writeSummary(workbook, ledger, lines, totals, maxRows), await writeServices(workbook, ledger, lines, maxRows)];
      const billingLines = await writeBillingLines(workbook, ledger, meta.id, options.filter, maxRows);
      split.push(billingLines.sheets);
      writeAbout(workbook, meta, totals, billingLines.lines, split.filter((names) => names.length > 1), options);
      await workbook.commit();
      await finished(stream);
      return { lines: billingLines.lines };
    } finally {
      stream.destroy();
    }
  });
}

/**
 * A data sheet that continues on "Name (2)", "Name (3)" … when one is full, each with the same header row,
 * frozen and filtered.
 */
class SheetSeries {
  readonly names: string[] = [];
  private sheet: Sheet | null = null;
  private rowNumber = 0;
  private pending = '';

  constructor(
    private readonly workbook: Writer,
    private readonly name: string,
    private readonly columns: { header: string; width: number }[],
    private readonly maxRows: number,
  ) {}

  /** The next data row (on a new sheet when this one is full); commit it when its cells are set. */
  next(): { row: ExcelJS.Row; rowNumber: number } {
    const rowNumber = this.take();
    return { row: (this.sheet as Sheet).getRow(rowNumber), rowNumber };
  }

  /** The next data row as XML made by `xml(rowNumber)` (see xlsx-row-xml.ts); buffered and written in pieces. */
  nextXml(xml: (rowNumber: number) => string): void {
    const rowNumber = this.take(); // first: taking a row may start a new sheet, which flushes what is pending
    this.pending += xml(rowNumber);
    if (this.pending.length > 256 * 1024) this.flush();
  }

  /** Where the next row will go (past the end of a full sheet means the next sheet): for a total that sums what follows. */
  mark(): { sheet: number; rowNumber: number } {
    return { sheet: Math.max(0, this.names.length - 1), rowNumber: this.rowNumber + 1 };
  }

  /**
   * SUM arguments for the cells of `column` from `mark` up to the row just taken with next() (the total row,
   * which they must not include), sheet by sheet: a block of rows may span a split.
   */
  rangesSince(mark: { sheet: number; rowNumber: number }, column: string): string {
    const current = this.names.length - 1;
    const ranges: string[] = [];
    for (let index = mark.sheet; index <= current; index++) {
      const first = index === mark.sheet ? mark.rowNumber : 2;
      const last = index === current ? this.rowNumber - 1 : this.maxRows;
      const sheet = index === current ? '' : `'${(this.names[index] as string).replaceAll("'", "''")}'!`;
      if (last >= first) ranges.push(`${sheet}${column}${first}:${column}${last}`);
    }
    return ranges.join(',') || '0';
  }

  /** The first sheet is added at once, so an empty export still has its header row. */
  ensureStarted(): void {
    if (!this.sheet) this.start();
  }

  /** Blocks until the zip has taken what this sheet wrote (see zipCaughtUp). */
  caughtUp(): Promise<void> {
    this.flush();
    return this.sheet ? zipCaughtUp(this.sheet) : Promise.resolve();
  }

  commit(): void {
    this.ensureStarted();
    this.flush();
    this.sheet?.commit();
  }

  private take(): number {
    if (!this.sheet || this.rowNumber >= this.maxRows) this.start();
    return ++this.rowNumber;
  }

  private flush(): void {
    if (this.sheet && this.pending) writeRowsXml(this.sheet, this.pending);
    this.pending = '';
  }

  private start(): void {
    this.flush();
    this.sheet?.commit();
    const name = this.names.length === 0 ? this.name : `${this.name} (${this.names.length + 1})`;
    this.names.push(name);
    const sheet = this.workbook.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1, xSplit: 0 }] });
    sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: this.columns.length } };
    sheet.columns = this.columns.map((column) => ({ header: column.header, width: column.width }));
    sheet.getRow(1).font = HEADER_FONT;
    sheet.getRow(1).commit();
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
function percentOf(amounts: Amounts): number | null {
  if (amounts.margin === null) return null;
  return marginPercent(money(amounts.cost), money(amounts.sales))?.dividedBy(100).toNumber() ?? null;
}

/** The columns Summary and Services share after their labels (written by writeAmountCells). */
const AMOUNT_COLUMNS = [
  { header: 'Currency', width: 11 },
  { header: 'Cost', width: 18 },
  { header: 'Sales', width: 18 },
  { header: 'Margin', width: 18 },
  { header: 'Margin %', width: 10 },
];

/** Each organization number's groups as one text ("CC-100 Nordics, Jane Doe"). */
const GROUP_NAMES = `SELECT org_no, string_agg(group_name, ', ' ORDER BY group_name) AS names FROM organization_groups WHERE report_id = $1 GROUP BY org_no`;

async function writeSummary(workbook: Writer, ledger: Ledger, lines: Lines, totals: Amounts[], maxRows: number): Promise<string[]> {
  const series = new SheetSeries(workbook, 'Summary', [{ header: 'Organization', width: 36 }, { header: 'Customer number', width: 16 }, { header: 'Organization groups', width: 36 }, ...AMOUNT_COLUMNS], maxRows);
  series.ensureStarted();
  // Lines are summed per organization number first (one scan of the lines), then named and merged per organization;
  // rows come in currency order, as the totals do, and each currency's block ends with its total.
  let next = 0;
  let mark = series.mark();
  const closeBlocksBefore = (currency: string | null) => {
    for (; next < totals.length && totals[next]?.currency !== currency; next++) {
      writeTotalRow(series, mark, totals[next] as Amounts);
      mark = series.mark();
    }
  };
  for await (const rows of ledger.stream(
    `SELECT a.currency, a.customer_currency, any_value(a.currency_key) AS currency_key, any_value(o.name) AS name, any_value(o.customer_number) AS customer_number,
       coalesce(any_value(g.names), '') AS groups, sum(a.cost)::VARCHAR AS cost, sum(a.sales)::VARCHAR AS sales, (sum(a.sales) - sum(a.cost))::VARCHAR AS margin
     FROM (SELECT org_no, ${PAIR}, sum(cost) AS cost, sum(sales) AS sales FROM billing_lines l WHERE ${lines.where} GROUP BY ALL) a
     JOIN (SELECT org_no, name, customer_number, ${ORG_KEY} AS org_key FROM organizations o WHERE report_id = $1) o ON o.org_no = a.org_no
     LEFT JOIN (${GROUP_NAMES}) g ON g.org_no = a.org_no
     GROUP BY a.currency, a.customer_currency, o.org_key ORDER BY currency_key, lower(any_value(o.name)), o.org_key`,
    lines.params,
  )) {
    for (const row of rows) {
      closeBlocksBefore(String(row.currency_key));
      writeAmountCells(series.next().row, [String(row.name), String(row.customer_number), String(row.groups)], amountsOf(row));
    }
    await series.caughtUp();
  }
  closeBlocksBefore(null);
  series.commit();
  return series.names;
}

/** A currency block's total: SUM formulas over the block (on however many sheets), stored with the exact SQL sums. */
function writeTotalRow(series: SheetSeries, mark: { sheet: number; rowNumber: number }, total: Amounts) {
  const { row, rowNumber } = series.next();
  row.getCell(1).value = `Total ${total.currency}`;
  row.getCell(4).value = total.currency;
  row.getCell(5).value = { formula: `SUM(${series.rangesSince(mark, 'E')})`, result: cellNumber(total.cost) };
  row.getCell(5).style = styleOf(moneyFormat(total.costCurrency));
  row.getCell(6).value = { formula: `SUM(${series.rangesSince(mark, 'F')})`, result: cellNumber(total.sales) };
  row.getCell(6).style = styleOf(moneyFormat(total.salesCurrency));
  if (total.margin !== null) {
    row.getCell(7).value = { formula: `F${rowNumber}-E${rowNumber}`, result: cellNumber(total.margin) };
    row.getCell(7).style = styleOf(moneyFormat(total.currency));
    const percent = percentOf(total);
    if (percent !== null) {
      row.getCell(8).value = { formula: `IF(F${rowNumber}=0,"",G${rowNumber}/F${rowNumber})`, result: percent };
      row.getCell(8).style = styleOf(PERCENT_FORMAT);
    }
  }
  row.font = HEADER_FONT;
  row.commit();
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
    const percent = percentOf(amounts);
    if (percent !== null) {
      row.getCell(at + 4).value = percent;
      row.getCell(at + 4).style = styleOf(PERCENT_FORMAT);
    }
  }
  row.commit();
}

async function writeServices(workbook: Writer, ledger: Ledger, lines: Lines, maxRows: number): Promise<string[]> {
  const series = new SheetSeries(workbook, 'Services', [{ header: 'Organization', width: 36 }, { header: 'Service', width: 34 }, { header: 'Service ID', width: 38 }, ...AMOUNT_COLUMNS], maxRows);
  series.ensureStarted();
  for await (const rows of ledger.stream(
    `SELECT a.currency, a.customer_currency, any_value(a.currency_key) AS currency_key, any_value(o.name) AS name, s.service_name, s.service_id,
       sum(a.cost)::VARCHAR AS cost, sum(a.sales)::VARCHAR AS sales, (sum(a.sales) - sum(a.cost))::VARCHAR AS margin
     FROM (SELECT service_no, ${PAIR}, sum(cost) AS cost, sum(sales) AS sales FROM billing_lines l WHERE ${lines.where} GROUP BY ALL) a
     JOIN services s ON s.report_id = $1 AND s.service_no = a.service_no
     JOIN (SELECT org_no, name, ${ORG_KEY} AS org_key FROM organizations o WHERE report_id = $1) o ON o.org_no = s.org_no
     GROUP BY a.currency, a.customer_currency, o.org_key, s.service_id, s.service_name
     ORDER BY currency_key, lower(any_value(o.name)), o.org_key, lower(s.service_name), s.service_id`,
    lines.params,
  )) {
    for (const row of rows) writeAmountCells(series.next().row, [String(row.name), String(row.service_name), String(row.service_id)], amountsOf(row));
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
async function writeBillingLines(workbook: Writer, ledger: Ledger, reportId: string, filter: ReportFilter | undefined, maxRows: number): Promise<{ lines: number; sheets: string[] }> {
  const widths = [34, 16, 38, 34, 30, 38, 40, 38, 14, 38, 38, 20, 10, 16, 16, 18, 18, 16, 9, 9, 12, 30];
  const series = new SheetSeries(workbook, 'Billing lines', BILLING_LINE_HEADERS.map((header, index) => ({ header, width: widths[index] as number })), maxRows);
  series.ensureStarted();
  const stylesOf = lineStyles(workbook);
  const dates = new Map<string, number | null>();
  let count = 0;
  for await (const batch of exportLines(ledger, reportId, filter)) {
    for (const line of batch) {
      const styles = stylesOf(String(line[CURRENCY]), String(line[CUSTOMER_CURRENCY]));
      series.nextXml((rowNumber) => rowXml(rowNumber, line, LINE_KINDS, styles, dates));
    }
    count += batch.length;
    await series.caughtUp();
  }
  series.commit();
  return { lines: count, sheets: series.names };
}

function writeAbout(workbook: Writer, meta: ReportMeta, totals: Amounts[], lines: number, split: string[][], options: WorkbookOptions) {
  const worksheet = workbook.addWorksheet('About');
  worksheet.columns = [{ width: 26 }, { width: 22 }, { width: 22 }, { width: 22 }, { width: 22 }];
  const perSheet = Math.max(2, options.maxRows ?? EXCEL_MAX_ROWS) - 1;
  const rows: (string | number | Date)[][] = [
    ['Report', meta.name],
    ['Period', `${meta.period.startDate} – ${meta.period.endDate}`],
    ['Profile', meta.profileName],
    ['Service', meta.host],
    ['Fetched at', cellDate(meta.fetchedAt.slice(0, 19))],
    ['Exported at', cellDate(options.exportedAt.toISOString().slice(0, 19))],
    ['Closebook version', options.appVersion],
    ['Scope', describeFilter(options.filter)],
    ['Organizations in report', meta.counts.organizations],
    ['Services in report', meta.counts.services],
    ['Subscriptions in report', meta.counts.subscriptions],
    ['Billing lines in report', meta.counts.lines],
    ['Billing lines exported', lines],
    ...split.map((names) => [
      `${names[0]} sheets`,
      `${names.join(', ')}: more rows than one Excel sheet holds (${perSheet.toLocaleString('en')}), so they continue on the next sheet.`,
    ]),
    ['How margin is computed', MARGIN_EXPLANATION],
    [],
    ['Totals of the exported lines', 'Currency', 'Cost', 'Sales', 'Margin'],
  ];
  rows.forEach((values, index) => {
    const row = worksheet.getRow(index + 1);
    row.values = values;
    if (values[1] instanceof Date) row.getCell(2).style = styleOf(DATETIME_FORMAT);
    if (index === rows.length - 1) row.font = HEADER_FONT;
    else row.getCell(1).font = HEADER_FONT;
    row.commit();
  });
  let rowNumber = rows.length + 1;
  for (const total of totals) {
    const row = worksheet.getRow(rowNumber++);
    row.values = ['', total.currency, cellNumber(total.cost), cellNumber(total.sales), total.margin === null ? 'n/a (two currencies)' : cellNumber(total.margin)];
    row.getCell(3).style = styleOf(moneyFormat(total.costCurrency));
    row.getCell(4).style = styleOf(moneyFormat(total.salesCurrency));
    row.getCell(5).style = styleOf(moneyFormat(total.costCurrency));
    row.commit();
  }
  worksheet.commit();
}
