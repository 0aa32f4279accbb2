import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import ExcelJS from 'exceljs';
import { isEmptyFilter, type ReportFilter } from '../../../shared/report-model';
import { marginPercent, Money, money } from '../../../shared/money';
import type { ReportMeta } from '../../../shared/schemas/saved-report';
import type { Ledger, LedgerRow, LedgerValue } from '../ledger/ledger';
import { cellDate, cellNumber, DATE_FORMAT, DATETIME_FORMAT, moneyFormat, PERCENT_FORMAT, QUANTITY_FORMAT, styleOf, unitPriceFormat } from './number-formats';
import { filteredLines } from './report-query';

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

/** Excel's last row; a sheet holds one header row and this many minus one lines. */
export const EXCEL_MAX_ROWS = 1_048_576;

export interface WorkbookOptions {
  filter?: ReportFilter;
  appVersion: string;
  exportedAt: Date;
  /** Rows per sheet before it is split (Excel's limit; tests set a small one). */
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

/**
 * Writes the workbook from the ledger with exceljs's streaming writer: aggregates come from SQL (exact DECIMAL
 * sums, per currency pair — never across currencies) and the billing lines are streamed in batches, so memory does
 * not grow with the report. Amounts become numbers only in their cells; totals are formulas stored with their
 * exact result. Written to a temporary file and renamed when complete.
 */
export async function writeReportWorkbook(ledger: Ledger, meta: ReportMeta, path: string, options: WorkbookOptions): Promise<WorkbookSummary> {
  const temporary = `${path}.${process.pid}.tmp`;
  const stream = createWriteStream(temporary, { mode: 0o600 });
  try {
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: true, useSharedStrings: false });
    workbook.creator = 'Closebook';
    workbook.created = options.exportedAt;
    const lines = filteredLines(meta.id, options.filter);
    const groups = await groupTexts(ledger, meta.id);
    await writeSummary(workbook, ledger, lines, groups);
    await writeServices(workbook, ledger, lines);
    const written = await writeBillingLines(workbook, ledger, lines, groups, options.maxRows ?? EXCEL_MAX_ROWS);
    await writeAbout(workbook, ledger, meta, lines, written, options);
    await workbook.commit();
    await finished(stream);
    await rename(temporary, path);
    return { lines: written.lines };
  } catch (error) {
    stream.destroy();
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Each organization's groups as one text ("Team A, Team B"), by organization number. */
async function groupTexts(ledger: Ledger, reportId: string): Promise<Map<string, string>> {
  const rows = await ledger.all(`SELECT org_no, string_agg(group_name, ', ' ORDER BY group_name) AS groups FROM organization_groups WHERE report_id = $1 GROUP BY org_no`, [reportId]);
  return new Map(rows.map((row) => [String(row.org_no), String(row.groups)]));
}

type Sheet = ReturnType<ExcelJS.stream.xlsx.WorkbookWriter['addWorksheet']>;

function sheet(workbook: ExcelJS.stream.xlsx.WorkbookWriter, name: string, columns: { header: string; width: number }[]): Sheet {
  const worksheet = workbook.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1, xSplit: 0 }] });
  worksheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: columns.length } };
  worksheet.columns = columns.map((column) => ({ header: column.header, width: column.width }));
  worksheet.getRow(1).font = HEADER_FONT;
  worksheet.getRow(1).commit();
  return worksheet;
}

interface Group {
  label: string[];
  currency: string;
  costCurrency: string;
  salesCurrency: string;
  cost: string;
  sales: string;
}

const AMOUNTS = 'currency_key, any_value(currency) AS cost_currency, any_value(customer_currency) AS sales_currency, sum(cost) AS cost, sum(sales) AS sales';

function groupOf(row: LedgerRow, label: string[]): Group {
  return { label, currency: String(row.currency_key), costCurrency: String(row.cost_currency), salesCurrency: String(row.sales_currency), cost: String(row.cost), sales: String(row.sales) };
}

/** Margin and margin % (a fraction, for a % cell) where cost and sales share a currency; null otherwise. */
function marginOf(group: Pick<Group, 'cost' | 'sales' | 'currency'>): { margin: string; percent: number | null } | null {
  if (group.currency.includes('→')) return null;
  const percent = marginPercent(money(group.cost), money(group.sales));
  return { margin: money(group.sales).minus(group.cost).toFixed(), percent: percent === null ? null : percent.dividedBy(100).toNumber() };
}

/** The columns Summary and Services share after their labels (written by writeAmountRow). */
const AMOUNT_COLUMNS = [
  { header: 'Currency', width: 11 },
  { header: 'Cost', width: 18 },
  { header: 'Sales', width: 18 },
  { header: 'Margin', width: 18 },
  { header: 'Margin %', width: 10 },
];

async function writeSummary(workbook: ExcelJS.stream.xlsx.WorkbookWriter, ledger: Ledger, lines: { sql: string; params: LedgerValue[] }, groupsOf: Map<string, string>) {
  const worksheet = sheet(workbook, 'Summary', [
    { header: 'Organization', width: 36 },
    { header: 'Customer number', width: 16 },
    { header: 'Organization groups', width: 36 },
    ...AMOUNT_COLUMNS,
  ]);
  const rows = await ledger.all(
    `SELECT ${AMOUNTS}, any_value(org_name) AS name, any_value(customer_number) AS customer_number, any_value(org_no) AS org_no
     FROM (${lines.sql}) GROUP BY currency_key, org_key ORDER BY currency_key, lower(any_value(org_name)), org_key`,
    lines.params,
  );
  const groups = rows.map((row) => groupOf(row, [String(row.name), String(row.customer_number), groupsOf.get(String(row.org_no)) ?? '']));
  let rowNumber = 2;
  for (let start = 0; start < groups.length; ) {
    const currency = (groups[start] as Group).currency;
    let end = start;
    while (end < groups.length && (groups[end] as Group).currency === currency) end++;
    const block = groups.slice(start, end);
    const firstRow = rowNumber;
    for (const group of block) writeAmountRow(worksheet, rowNumber++, [...group.label, group.currency], group);
    const total = block.reduce((sum, group) => ({ cost: sum.cost.plus(group.cost), sales: sum.sales.plus(group.sales) }), { cost: new Money(0), sales: new Money(0) });
    const lastRow = rowNumber - 1;
    const row = worksheet.getRow(rowNumber);
    const sample = block[0] as Group;
    row.getCell(1).value = `Total ${currency}`;
    row.getCell(4).value = currency;
    row.getCell(5).value = { formula: `SUM(E${firstRow}:E${lastRow})`, result: cellNumber(total.cost.toFixed()) };
    row.getCell(5).style = styleOf(moneyFormat(sample.costCurrency));
    row.getCell(6).value = { formula: `SUM(F${firstRow}:F${lastRow})`, result: cellNumber(total.sales.toFixed()) };
    row.getCell(6).style = styleOf(moneyFormat(sample.salesCurrency));
    const margin = marginOf({ currency, cost: total.cost.toFixed(), sales: total.sales.toFixed() });
    if (margin) {
      row.getCell(7).value = { formula: `F${rowNumber}-E${rowNumber}`, result: cellNumber(margin.margin) };
      row.getCell(7).style = styleOf(moneyFormat(currency));
      if (margin.percent !== null) {
        row.getCell(8).value = { formula: `IF(F${rowNumber}=0,"",G${rowNumber}/F${rowNumber})`, result: margin.percent };
        row.getCell(8).style = styleOf(PERCENT_FORMAT);
      }
    }
    row.font = HEADER_FONT;
    row.commit();
    rowNumber++;
    start = end;
  }
  worksheet.commit();
}

/** Label cells, then Cost, Sales, Margin and Margin % (the last two only when both amounts share a currency). */
function writeAmountRow(worksheet: Sheet, rowNumber: number, labels: string[], group: Group) {
  const row = worksheet.getRow(rowNumber);
  labels.forEach((label, index) => (row.getCell(index + 1).value = label));
  const at = labels.length + 1;
  row.getCell(at).value = cellNumber(group.cost);
  row.getCell(at).style = styleOf(moneyFormat(group.costCurrency));
  row.getCell(at + 1).value = cellNumber(group.sales);
  row.getCell(at + 1).style = styleOf(moneyFormat(group.salesCurrency));
  const margin = marginOf(group);
  if (margin) {
    row.getCell(at + 2).value = cellNumber(margin.margin);
    row.getCell(at + 2).style = styleOf(moneyFormat(group.currency));
    if (margin.percent !== null) {
      row.getCell(at + 3).value = margin.percent;
      row.getCell(at + 3).style = styleOf(PERCENT_FORMAT);
    }
  }
  row.commit();
}

async function writeServices(workbook: ExcelJS.stream.xlsx.WorkbookWriter, ledger: Ledger, lines: { sql: string; params: LedgerValue[] }) {
  const worksheet = sheet(workbook, 'Services', [
    { header: 'Organization', width: 36 },
    { header: 'Service', width: 34 },
    { header: 'Service ID', width: 38 },
    ...AMOUNT_COLUMNS,
  ]);
  let rowNumber = 2;
  for await (const rows of ledger.stream(
    `SELECT ${AMOUNTS}, any_value(org_name) AS name, any_value(service_name) AS service_name, any_value(service_id) AS service_id
     FROM (${lines.sql}) GROUP BY currency_key, org_key, service_id, service_name ORDER BY currency_key, lower(any_value(org_name)), lower(service_name), service_id`,
    lines.params,
  )) {
    for (const row of rows) {
      const group = groupOf(row, [String(row.name), String(row.service_name), String(row.service_id)]);
      writeAmountRow(worksheet, rowNumber++, [...group.label, group.currency], group);
    }
  }
  worksheet.commit();
}

/**
 * The style of every unformatted cell. exceljs gives each new cell its own empty style object, which defeats its
 * identity cache and costs a style lookup per cell; one shared object makes those lookups free.
 */
const PLAIN = {};

/** Per-currency cell styles and per-date cells, built once: the billing-lines loop runs 100,000 times. */
function lineCellCache() {
  const styles = new Map<string, ReturnType<typeof styleOf>[]>();
  const dates = new Map<string, Date | string>();
  return {
    styles(currency: string, customerCurrency: string) {
      const key = `${currency}|${customerCurrency}`;
      let cached = styles.get(key);
      if (!cached) {
        cached = [unitPriceFormat(currency), unitPriceFormat(customerCurrency), moneyFormat(currency), moneyFormat(customerCurrency)].map(styleOf);
        styles.set(key, cached);
      }
      return cached as [ReturnType<typeof styleOf>, ReturnType<typeof styleOf>, ReturnType<typeof styleOf>, ReturnType<typeof styleOf>];
    },
    date(value: string) {
      let date = dates.get(value);
      if (date === undefined) {
        date = cellDate(value);
        dates.set(value, date);
      }
      return date;
    },
  };
}

/** Writes the lines, starting "Billing lines (2)" … when a sheet is full; returns how many and in which sheets. */
async function writeBillingLines(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  ledger: Ledger,
  lines: { sql: string; params: LedgerValue[] },
  groupsOf: Map<string, string>,
  maxRows: number,
): Promise<{ lines: number; sheets: string[] }> {
  const widths = [34, 16, 38, 34, 30, 38, 40, 38, 14, 38, 38, 20, 10, 16, 16, 18, 18, 16, 9, 9, 12, 30];
  const columns = BILLING_LINE_HEADERS.map((header, index) => ({ header, width: widths[index] as number }));
  const sheets = ['Billing lines'];
  let worksheet = sheet(workbook, 'Billing lines', columns);
  const cache = lineCellCache();
  const quantityStyle = styleOf(QUANTITY_FORMAT);
  const dateStyle = styleOf(DATE_FORMAT);
  let rowNumber = 2;
  let count = 0;
  for await (const rows of ledger.stream(`SELECT * FROM (${lines.sql}) ORDER BY line_no`, lines.params)) {
    for (const line of rows) {
      if (rowNumber > maxRows) {
        worksheet.commit();
        sheets.push(`Billing lines (${sheets.length + 1})`);
        worksheet = sheet(workbook, sheets.at(-1) as string, columns);
        rowNumber = 2;
      }
      const single = line.currency === line.customer_currency;
      const row = worksheet.getRow(rowNumber++);
      row.values = [
        String(line.org_name), String(line.customer_number), String(line.org_id), groupsOf.get(String(line.org_no)) ?? '', String(line.service_name), String(line.service_id),
        String(line.item_name), String(line.subscription_id), String(line.po_number), String(line.product_name), String(line.product_id), String(line.item_code),
        cellNumber(String(line.quantity)), cellNumber(String(line.cost_per_unit)), cellNumber(String(line.sales_per_unit)), cellNumber(String(line.cost)), cellNumber(String(line.sales)),
        single ? cellNumber(money(String(line.sales)).minus(String(line.cost)).toFixed()) : null,
        String(line.currency), String(line.customer_currency), cache.date(String(line.billing_date ?? '')), String(line.item_details),
      ];
      const [unitCost, unitSales, cost, sales] = cache.styles(String(line.currency), String(line.customer_currency));
      const columnStyles = [PLAIN, PLAIN, PLAIN, PLAIN, PLAIN, PLAIN, PLAIN, PLAIN, PLAIN, PLAIN, PLAIN, PLAIN, quantityStyle, unitCost, unitSales, cost, sales, sales, PLAIN, PLAIN, dateStyle, PLAIN];
      for (let column = 1; column <= columnStyles.length; column++) row.getCell(column).style = columnStyles[column - 1] as object;
      row.commit();
      count++;
    }
  }
  worksheet.commit();
  return { lines: count, sheets };
}

async function writeAbout(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  ledger: Ledger,
  meta: ReportMeta,
  lines: { sql: string; params: LedgerValue[] },
  written: { lines: number; sheets: string[] },
  options: WorkbookOptions,
) {
  const worksheet = workbook.addWorksheet('About');
  worksheet.columns = [{ width: 26 }, { width: 22 }, { width: 22 }, { width: 22 }, { width: 22 }];
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
    ['Billing lines exported', written.lines],
    ...(written.sheets.length > 1
      ? [['Billing lines sheets', `${written.sheets.join(', ')}: more lines than one Excel sheet holds (${(EXCEL_MAX_ROWS - 1).toLocaleString('en')}), so they continue on the next sheet.`]]
      : []),
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
  const totals = await ledger.all(`SELECT ${AMOUNTS} FROM (${lines.sql}) GROUP BY currency_key ORDER BY currency_key`, lines.params);
  for (const total of totals.map((row) => groupOf(row, []))) {
    const margin = marginOf(total);
    const row = worksheet.getRow(rowNumber++);
    row.values = ['', total.currency, cellNumber(total.cost), cellNumber(total.sales), margin ? cellNumber(margin.margin) : 'n/a (two currencies)'];
    row.getCell(3).style = styleOf(moneyFormat(total.costCurrency));
    row.getCell(4).style = styleOf(moneyFormat(total.salesCurrency));
    row.getCell(5).style = styleOf(moneyFormat(total.costCurrency));
    row.commit();
  }
  worksheet.commit();
}
