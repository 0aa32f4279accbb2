import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { PassThrough, type Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import ExcelJS from 'exceljs';
import { fromUnits } from '../../../shared/fixed-decimal';
import {
  buildReportModel,
  currencyTotals,
  filterLines,
  isEmptyFilter,
  isSingleCurrency,
  marginOf,
  marginPercentOf,
  type ReportFilter,
  type ReportLine,
} from '../../../shared/report-model';
import { money } from '../../../shared/money';
import type { SavedReport } from '../../../shared/schemas/saved-report';
import { cellDate, cellNumber, DATE_FORMAT, DATETIME_FORMAT, moneyFormat, PERCENT_FORMAT, QUANTITY_FORMAT, styleOf, unitPriceFormat } from './number-formats';

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

export interface WorkbookOptions {
  filter?: ReportFilter;
  appVersion: string;
  exportedAt: Date;
}

export interface WorkbookSummary {
  lines: number;
}

const HEADER_FONT = { bold: true };

/** "16.0123" (%) → 0.160123, divided exactly before it becomes a number. */
function percentNumber(percent: string): number | null {
  return percent === '' ? null : money(percent).dividedBy(100).toNumber();
}

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
 * Writes the workbook with exceljs's streaming writer (rows are flushed as they are written, so 100,000 lines do not
 * sit in memory as cell objects). Money is exact until the cell: amounts are summed as decimals, then written as
 * numbers with a format for their currency; totals are formulas stored with their computed result.
 */
export async function writeReportWorkbook(report: SavedReport, stream: Writable, options: WorkbookOptions): Promise<WorkbookSummary> {
  // Search text is built only when a text filter needs it: for 100,000 lines it is time and memory.
  const model = buildReportModel(report.entries, { searchable: Boolean(options.filter?.text?.trim()) });
  const lines = filterLines(model, options.filter ?? {});
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: true, useSharedStrings: false });
  workbook.creator = 'Closebook';
  workbook.created = options.exportedAt;

  writeSummary(workbook, lines, model.scale);
  writeServices(workbook, lines, model.scale);
  writeBillingLines(workbook, lines, model.scale);
  writeAbout(workbook, report, lines, model.scale, options);
  await workbook.commit();
  return { lines: lines.length };
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
  cost: bigint;
  sales: bigint;
}

/** Sums lines per key and currency; the label is built once per group, not once per line. */
function groupLines(lines: ReportLine[], keyOf: (line: ReportLine) => string, labelOf: (line: ReportLine) => string[]): Group[] {
  const groups = new Map<string, Group>();
  for (const line of lines) {
    const currency = line.service.currencyKey;
    const fullKey = `${currency}|${keyOf(line)}`;
    let group = groups.get(fullKey);
    if (!group) {
      group = { label: labelOf(line), currency, costCurrency: line.service.currency, salesCurrency: line.service.customerCurrency, cost: 0n, sales: 0n };
      groups.set(fullKey, group);
    }
    group.cost += line.cost;
    group.sales += line.sales;
  }
  const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });
  return [...groups.values()].sort((a, b) => a.currency.localeCompare(b.currency) || collator.compare(a.label.join(' '), b.label.join(' ')));
}

/** The columns Summary and Services share after their labels (written by writeAmountRow). */
const AMOUNT_COLUMNS = [
  { header: 'Currency', width: 11 },
  { header: 'Cost', width: 18 },
  { header: 'Sales', width: 18 },
  { header: 'Margin', width: 18 },
  { header: 'Margin %', width: 10 },
];

function writeSummary(workbook: ExcelJS.stream.xlsx.WorkbookWriter, lines: ReportLine[], scale: number) {
  const worksheet = sheet(workbook, 'Summary', [
    { header: 'Organization', width: 36 },
    { header: 'Customer number', width: 16 },
    { header: 'Organization groups', width: 36 },
    ...AMOUNT_COLUMNS,
  ]);
  const groups = groupLines(
    lines,
    (line) => line.organization.key,
    (line) => [line.organization.name, line.organization.customerNumber, line.organization.groups.join(', ')],
  );
  let rowNumber = 2;
  for (let start = 0; start < groups.length; ) {
    const currency = (groups[start] as Group).currency;
    let end = start;
    while (end < groups.length && (groups[end] as Group).currency === currency) end++;
    const block = groups.slice(start, end);
    const firstRow = rowNumber;
    for (const group of block) {
      writeAmountRow(worksheet, rowNumber++, [...group.label, group.currency], group, scale);
    }
    const total = block.reduce((sum, group) => ({ cost: sum.cost + group.cost, sales: sum.sales + group.sales }), { cost: 0n, sales: 0n });
    const lastRow = rowNumber - 1;
    const row = worksheet.getRow(rowNumber);
    const sample = block[0] as Group;
    row.getCell(1).value = `Total ${currency}`;
    row.getCell(4).value = currency;
    row.getCell(5).value = { formula: `SUM(E${firstRow}:E${lastRow})`, result: cellNumber(fromUnits(total.cost, scale)) };
    row.getCell(5).style = styleOf(moneyFormat(sample.costCurrency));
    row.getCell(6).value = { formula: `SUM(F${firstRow}:F${lastRow})`, result: cellNumber(fromUnits(total.sales, scale)) };
    row.getCell(6).style = styleOf(moneyFormat(sample.salesCurrency));
    if (isSingleCurrency(currency)) {
      row.getCell(7).value = { formula: `F${rowNumber}-E${rowNumber}`, result: cellNumber(marginOf(total, currency, scale)) };
      row.getCell(7).style = styleOf(moneyFormat(currency));
      const percent = percentNumber(marginPercentOf(total, currency, scale, 6));
      if (percent !== null) {
        row.getCell(8).value = { formula: `IF(F${rowNumber}=0,"",G${rowNumber}/F${rowNumber})`, result: percent };
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
function writeAmountRow(worksheet: Sheet, rowNumber: number, labels: string[], group: Group, scale: number) {
  const row = worksheet.getRow(rowNumber);
  labels.forEach((label, index) => (row.getCell(index + 1).value = label));
  const at = labels.length + 1;
  row.getCell(at).value = cellNumber(fromUnits(group.cost, scale));
  row.getCell(at).style = styleOf(moneyFormat(group.costCurrency));
  row.getCell(at + 1).value = cellNumber(fromUnits(group.sales, scale));
  row.getCell(at + 1).style = styleOf(moneyFormat(group.salesCurrency));
  const margin = marginOf(group, group.currency, scale);
  if (margin !== '') {
    row.getCell(at + 2).value = cellNumber(margin);
    row.getCell(at + 2).style = styleOf(moneyFormat(group.currency));
    const percent = percentNumber(marginPercentOf(group, group.currency, scale, 6));
    if (percent !== null) {
      row.getCell(at + 3).value = percent;
      row.getCell(at + 3).style = styleOf(PERCENT_FORMAT);
    }
  }
  row.commit();
}

function writeServices(workbook: ExcelJS.stream.xlsx.WorkbookWriter, lines: ReportLine[], scale: number) {
  const worksheet = sheet(workbook, 'Services', [
    { header: 'Organization', width: 36 },
    { header: 'Service', width: 34 },
    { header: 'Service ID', width: 38 },
    ...AMOUNT_COLUMNS,
  ]);
  const groups = groupLines(
    lines,
    (line) => `${line.organization.key}|${line.service.serviceId}|${line.service.name}`,
    (line) => [line.organization.name, line.service.name, line.service.serviceId],
  );
  let rowNumber = 2;
  for (const group of groups) writeAmountRow(worksheet, rowNumber++, [...group.label, group.currency], group, scale);
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

function writeBillingLines(workbook: ExcelJS.stream.xlsx.WorkbookWriter, lines: ReportLine[], scale: number) {
  const widths = [34, 16, 38, 34, 30, 38, 40, 38, 14, 38, 38, 20, 10, 16, 16, 18, 18, 16, 9, 9, 12, 30];
  const worksheet = sheet(workbook, 'Billing lines', BILLING_LINE_HEADERS.map((header, index) => ({ header, width: widths[index] as number })));
  const cache = lineCellCache();
  const quantityStyle = styleOf(QUANTITY_FORMAT);
  const dateStyle = styleOf(DATE_FORMAT);
  const groupTexts = new Map<ReportLine['organization'], string>();
  let rowNumber = 2;
  for (const line of lines) {
    const { organization, service, subscription } = line;
    let groups = groupTexts.get(organization);
    if (groups === undefined) {
      groups = organization.groups.join(', ');
      groupTexts.set(organization, groups);
    }
    const row = worksheet.getRow(rowNumber++);
    row.values = [
      organization.name,
      organization.customerNumber,
      organization.orgId,
      groups,
      service.name,
      service.serviceId,
      subscription.name,
      subscription.subscriptionId,
      subscription.poNumber,
      line.productName,
      line.productId,
      line.itemCode,
      line.quantity,
      cellNumber(line.resellerPricePerUnit),
      cellNumber(line.customerPricePerUnit),
      cellNumber(line.totalResellerPrice),
      cellNumber(line.totalCustomerPrice),
      isSingleCurrency(service.currencyKey) ? cellNumber(fromUnits(line.sales - line.cost, scale)) : null,
      service.currency,
      service.customerCurrency,
      cache.date(service.billingDate),
      line.itemDetails,
    ];
    const [unitCost, unitSales, cost, sales] = cache.styles(service.currency, service.customerCurrency);
    const columnStyles = [PLAIN, PLAIN, PLAIN, PLAIN, PLAIN, PLAIN, PLAIN, PLAIN, PLAIN, PLAIN, PLAIN, PLAIN, quantityStyle, unitCost, unitSales, cost, sales, sales, PLAIN, PLAIN, dateStyle, PLAIN];
    for (let column = 1; column <= columnStyles.length; column++) row.getCell(column).style = columnStyles[column - 1] as object;
    row.commit();
  }
  worksheet.commit();
}

function writeAbout(workbook: ExcelJS.stream.xlsx.WorkbookWriter, report: SavedReport, lines: ReportLine[], scale: number, options: WorkbookOptions) {
  const worksheet = workbook.addWorksheet('About');
  worksheet.columns = [{ width: 26 }, { width: 22 }, { width: 22 }, { width: 22 }, { width: 22 }];
  const { meta } = report;
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
    ['Billing lines exported', lines.length],
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
  for (const total of currencyTotals(lines, scale)) {
    const [costCurrency, salesCurrency] = total.currency.split('→') as [string, string | undefined];
    const row = worksheet.getRow(rowNumber++);
    row.values = ['', total.currency, cellNumber(total.cost), cellNumber(total.sales), total.margin === '' ? 'n/a (two currencies)' : cellNumber(total.margin)];
    row.getCell(3).style = styleOf(moneyFormat(costCurrency));
    row.getCell(4).style = styleOf(moneyFormat(salesCurrency ?? costCurrency));
    row.getCell(5).style = styleOf(moneyFormat(costCurrency));
    row.commit();
  }
  worksheet.commit();
}

/** The workbook as bytes (for a browser download or a test). */
export async function reportWorkbookBytes(report: SavedReport, options: WorkbookOptions): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  await writeReportWorkbook(report, stream, options);
  stream.end();
  await finished(stream);
  return Buffer.concat(chunks);
}

/** The workbook written to a file: a temporary file first, renamed when complete, so no half-written workbook remains. */
export async function writeReportWorkbookFile(report: SavedReport, path: string, options: WorkbookOptions): Promise<WorkbookSummary> {
  const temporary = `${path}.${process.pid}.tmp`;
  const stream = createWriteStream(temporary);
  try {
    const summary = await writeReportWorkbook(report, stream, options);
    await finished(stream);
    await rename(temporary, path);
    return summary;
  } catch (error) {
    stream.destroy();
    await rm(temporary, { force: true });
    throw error;
  }
}
