import type ExcelJS from 'exceljs';
import { money } from '@shared/money';
import { isEmptyFilter } from '@shared/report-filter';
import type { ReportPeriod } from '@shared/schemas/billing-report';
import type { BillingException, MonthCloseView, Review, Severity } from '@shared/schemas/month-close';
import type { Ledger } from '../ledger/ledger';
import type { OutputFolder } from '../storage/output-file';
import {
  type AboutRow, type CellKind, cellNumber, DATETIME_FORMAT, EXCEL_MAX_ROWS, letter, localTime, moneyFormat, printSetup, QUANTITY_FORMAT, rowXml, SheetSeries, type Sheets, styleIndex, styleOf,
  unitPriceFormat, writeAboutRows, writeWorkbookFile,
} from '../xlsx';
import type { WorkbookAddition } from '../reports';
import { type ComparisonOf, compareMonths, type MonthChange, type MonthComparison } from './month-compare';
import { currenciesOf } from '@shared/model/currency-pair';
import { labelRow } from './queries/months';

/** What the workbook shows of a month's close: its checks with their reviews, the sign-off, and the month before it. */
export type MonthCloseSheetsState = Pick<MonthCloseView, 'previousReportId' | 'exceptions' | 'open' | 'signOff' | 'restatement'>;

/** A saved month as the workbook names it. */
export interface MonthLabel {
  name: string;
  period: ReportPeriod;
  fetchedAt: string;
}

export const CHANGES_HEADERS = [
  'Kind', 'Level', 'Organization', 'Customer number', 'Org ID', 'Service', 'Subscription', 'Subscription ID', 'Product', 'Product ID', 'Currency',
  'Quantity before', 'Unit price before', 'Sales before', 'Quantity after', 'Unit price after', 'Sales after',
  'Change in sales', 'Price effect', 'Quantity effect', 'New/lost effect', 'Other effect', 'Cost before', 'Cost after',
] as const;

export const CHECKS_HEADERS = [
  'Rule', 'Severity', 'Title', 'Message', 'Organization', 'Customer number', 'Org ID', 'Service', 'Service ID', 'Subscription', 'Subscription ID',
  'Product', 'Product ID', 'Currency', 'Review state', 'Note', 'Reviewed by', 'Reviewed at', 'Exception ID',
] as const;

export const CHANGE_EXPLANATION =
  'Change in sales = price effect + quantity effect + new/lost effect + other effect, exactly, per currency. Price effect = (unit price after − before) × quantity after; ' +
  'quantity effect = (quantity after − before) × unit price before; new/lost = the sales of what is new (+) or no longer billed (−); other = the rest ' +
  '(a product sold at several unit prices, rounding). Lines of one product are summed first; a change of currency counts as lost and new.';

const KIND_WORDS: Record<MonthChange['kind'], string> = { new: 'New', lost: 'Lost', quantity: 'Quantity changed', price: 'Unit price changed', amount: 'Amount changed' };
const LEVEL_WORDS: Record<MonthChange['level'], string> = { organization: 'Organization', service: 'Service', subscription: 'Subscription', line: 'Product line' };

/** Column numbers (1-based) the bridge rows below the changes use. */
const COLUMN = Object.fromEntries(CHANGES_HEADERS.map((header, index) => [header, index + 1])) as Record<(typeof CHANGES_HEADERS)[number], number>;
const CHANGE_KINDS: CellKind[] = CHANGES_HEADERS.map((_, index) => (index >= COLUMN['Quantity before'] - 1 ? 'number' : 'text'));
const CHANGE_WIDTHS = [18, 14, 34, 16, 38, 30, 34, 38, 34, 38, 10, 14, 16, 18, 14, 16, 18, 18, 16, 16, 16, 16, 18, 18];

const plural = (count: number, word: string) => `${count.toLocaleString('en')} ${word}${count === 1 ? '' : 's'}`;
const blankIfEmpty = (value: string | null | undefined) => (value === null || value === undefined || value === '' ? null : value);

/** A change as the row's text values (numbers as exact decimals), in CHANGES_HEADERS order. */
function changeValues(change: MonthChange): (string | null)[] {
  const sales = money(change.after?.sales ?? 0).minus(change.before?.sales ?? 0).toFixed();
  return [
    KIND_WORDS[change.kind], LEVEL_WORDS[change.level], change.organization, blankIfEmpty(change.customerNumber), blankIfEmpty(change.orgId), blankIfEmpty(change.service),
    blankIfEmpty(change.subscription), blankIfEmpty(change.subscriptionId), blankIfEmpty(change.product), blankIfEmpty(change.productId), change.currencyKey,
    blankIfEmpty(change.before?.quantity), blankIfEmpty(change.before?.unitPrice), blankIfEmpty(change.before?.sales),
    blankIfEmpty(change.after?.quantity), blankIfEmpty(change.after?.unitPrice), blankIfEmpty(change.after?.sales),
    sales, change.effects.price, change.effects.quantity, change.effects.newLost, change.effects.other,
    blankIfEmpty(change.before?.cost), blankIfEmpty(change.after?.cost),
  ];
}

/** Style indexes of the Changes columns per currency pair (amounts in their currency's format), built once each. */
function changeStyles(workbook: Sheets['workbook']) {
  const byPair = new Map<string, number[]>();
  const quantity = styleIndex(workbook, styleOf(QUANTITY_FORMAT), 'number');
  return (currencyKey: string): number[] => {
    let styles = byPair.get(currencyKey);
    if (!styles) {
      const { cost: costCurrency, sales: salesCurrency } = currenciesOf(currencyKey);
      const [unitPrice, sales, cost] = [unitPriceFormat(salesCurrency), moneyFormat(salesCurrency), moneyFormat(costCurrency)].map((format) => styleIndex(workbook, styleOf(format), 'number'));
      const byHeader: Partial<Record<(typeof CHANGES_HEADERS)[number], number>> = {
        'Quantity before': quantity, 'Quantity after': quantity, 'Unit price before': unitPrice, 'Unit price after': unitPrice, 'Cost before': cost, 'Cost after': cost,
      };
      styles = CHANGES_HEADERS.map((header, index) => byHeader[header] ?? (CHANGE_KINDS[index] === 'number' ? (sales as number) : 0));
      byPair.set(currencyKey, styles);
    }
    return styles;
  };
}

/**
 * `Changes`: one row per change since the month before (streamed into the sheet in batches, continuing on
 * "Changes (2)" … when full), then below a blank row, outside the filter, each currency's sales bridge: sales
 * before + price + quantity + new/lost + other = sales after. The effects and the change are SUMIFS over the rows
 * above (stored with their exact results); sales before is the month before's total (unchanged lines are not
 * listed), and sales after is the sum across the row, so the bridge adds up in Excel too.
 */
export async function writeChangesSheet(sheets: Sheets, comparison: MonthComparison | null, noComparison: string): Promise<string[]> {
  const series = new SheetSeries(sheets, 'Changes', CHANGES_HEADERS.map((header, index) => ({ header, width: CHANGE_WIDTHS[index] as number })));
  series.ensureStarted();
  if (!comparison) {
    series.nextXml((rowNumber) => rowXml(rowNumber, [noComparison], ['text'], [0], new Map()));
    series.commit();
    return series.names;
  }
  const stylesOf = changeStyles(sheets.workbook);
  const dates = new Map<string, number | null>();
  const BATCH = 5_000;
  for (let start = 0; start < comparison.changes.length; start += BATCH) {
    for (const change of comparison.changes.slice(start, start + BATCH)) {
      const styles = stylesOf(change.currencyKey);
      series.nextXml((rowNumber) => rowXml(rowNumber, changeValues(change), CHANGE_KINDS, styles, dates));
    }
    await series.caughtUp();
  }
  writeBridgeRows(series, comparison);
  series.commit();
  return series.names;
}

function writeBridgeRows(series: SheetSeries, comparison: MonthComparison) {
  series.startTotals(comparison.bridges.length);
  const at = (header: (typeof CHANGES_HEADERS)[number]) => letter(COLUMN[header]);
  for (const bridge of comparison.bridges) {
    const { row, rowNumber } = series.next();
    const salesCurrency = currenciesOf(bridge.currencyKey).sales;
    const cell = (column: number, value: ExcelJS.CellValue, numFmt: string | null = null) => {
      row.getCell(column).value = value;
      row.getCell(column).style = styleOf(numFmt, 'total');
    };
    const sumOf = (header: (typeof CHANGES_HEADERS)[number], result: string) => ({ formula: series.sumIfs(COLUMN[header], COLUMN.Currency, rowNumber), result: cellNumber(result) });
    for (let column = 1; column <= CHANGES_HEADERS.length; column++) cell(column, null);
    cell(1, `Total ${bridge.currencyKey}`);
    cell(COLUMN.Organization, 'Sales bridge: sales before + price + quantity + new/lost + other = sales after');
    cell(COLUMN.Currency, bridge.currencyKey);
    const format = moneyFormat(salesCurrency);
    cell(COLUMN['Sales before'], cellNumber(bridge.salesBefore), format);
    const effects = (['Price effect', 'Quantity effect', 'New/lost effect', 'Other effect'] as const).map((header) => `${at(header)}${rowNumber}`).join('+');
    cell(COLUMN['Sales after'], { formula: `${at('Sales before')}${rowNumber}+${effects}`, result: cellNumber(bridge.salesAfter) }, format);
    cell(COLUMN['Change in sales'], sumOf('Change in sales', bridge.change), format);
    cell(COLUMN['Price effect'], sumOf('Price effect', bridge.effects.price), format);
    cell(COLUMN['Quantity effect'], sumOf('Quantity effect', bridge.effects.quantity), format);
    cell(COLUMN['New/lost effect'], sumOf('New/lost effect', bridge.effects.newLost), format);
    cell(COLUMN['Other effect'], sumOf('Other effect', bridge.effects.other), format);
    row.commit();
  }
}

const SEVERITY_RANK: Record<Severity, number> = { high: 0, medium: 1, low: 2 };
const isOpen = (review: Review | null) => !review || review.state === 'open';

/** Open exceptions first, each group by severity; otherwise in the checks' order (by organization). */
export function checksOrder<T extends Pick<BillingException, 'severity' | 'review'>>(exceptions: T[]): T[] {
  return exceptions
    .map((exception, index) => ({ exception, index }))
    .sort((a, b) => Number(!isOpen(a.exception.review)) - Number(!isOpen(b.exception.review)) || SEVERITY_RANK[a.exception.severity] - SEVERITY_RANK[b.exception.severity] || a.index - b.index)
    .map(({ exception }) => exception);
}

/**
 * `Checks`: every exception with its evidence and review state, open ones first by severity; below a blank row,
 * outside the filter, how many are open, accepted and resolved. Review times are Closebook's own, in local time.
 */
export async function writeChecksSheet(sheets: Sheets, state: MonthCloseSheetsState, timeZone: string | undefined): Promise<string[]> {
  const zone = localTime(new Date(), timeZone)?.zone.split(',')[0] ?? 'local time';
  const headers = CHECKS_HEADERS.map((header) => (header === 'Reviewed at' ? `Reviewed at (${zone})` : header));
  const widths = [22, 10, 30, 70, 34, 16, 38, 30, 38, 34, 38, 34, 38, 10, 12, 40, 20, 18, 60];
  const series = new SheetSeries(sheets, 'Checks', headers.map((header, index) => ({ header, width: widths[index] as number })));
  series.ensureStarted();
  const kinds: CellKind[] = CHECKS_HEADERS.map((header) => (header === 'Reviewed at' ? 'date' : 'text'));
  const styles = CHECKS_HEADERS.map((header) => (header === 'Reviewed at' ? styleIndex(sheets.workbook, styleOf(DATETIME_FORMAT), 'date') : 0));
  const dates = new Map<string, number | null>();
  const ordered = checksOrder(state.exceptions);
  if (ordered.length === 0) series.nextXml((rowNumber) => rowXml(rowNumber, ['No exceptions: every check passed.'], ['text'], [0], dates));
  for (const [index, exception] of ordered.entries()) {
    const review = exception.review;
    // A wall-clock time with no zone: the column header names it.
    const reviewedAt = review ? (localTime(new Date(review.reviewedAt), timeZone)?.value.toISOString().slice(0, 19) ?? review.reviewedAt) : null;
    const values = [
      exception.rule, exception.severity, exception.title, exception.message, exception.organization, blankIfEmpty(exception.customerNumber), blankIfEmpty(exception.orgId),
      exception.service, exception.serviceId, exception.subscription, exception.subscriptionId, exception.product, exception.productId, exception.currencyKey,
      review?.state ?? 'open', blankIfEmpty(review?.note), blankIfEmpty(review?.reviewedBy), reviewedAt, exception.id,
    ];
    series.nextXml((rowNumber) => rowXml(rowNumber, values, kinds, styles, dates));
    if (index % 5_000 === 4_999) await series.caughtUp();
  }
  await series.caughtUp();
  series.startTotals(1);
  const { row } = series.next();
  const counted = countReviews(state);
  row.getCell(1).value = 'Total';
  row.getCell(4).value =
    `${plural(state.exceptions.length, 'exception')}: ${counted.open.toLocaleString('en')} open (${state.open.high} high, ${state.open.medium} medium, ${state.open.low} low), ` +
    `${counted.accepted.toLocaleString('en')} accepted, ${counted.resolved.toLocaleString('en')} resolved`;
  for (let column = 1; column <= CHECKS_HEADERS.length; column++) row.getCell(column).style = styleOf(null, 'total');
  row.commit();
  series.commit();
  return series.names;
}

function countReviews(state: MonthCloseSheetsState) {
  const counted = { open: 0, accepted: 0, resolved: 0 };
  for (const exception of state.exceptions) counted[exception.review?.state ?? 'open']++;
  return counted;
}

const describeMonth = (month: MonthLabel) => `${month.name} (${month.period.startDate} – ${month.period.endDate})`;

/** The month close's rows of About: DRAFT or who signed it off, when, and its content hash; what Changes compares with. */
export function closeAboutRows(state: MonthCloseSheetsState, reportId: string, previous: MonthLabel | null, timeZone: string | undefined, wholeReport: boolean): AboutRow[] {
  const rows: AboutRow[] = [];
  const open = state.open.high + state.open.medium + state.open.low;
  const signOff = state.signOff;
  if (!signOff) {
    rows.push({ values: ['Month close', `DRAFT — not signed off (${plural(open, 'exception')} open)`], look: 'header' });
  } else {
    const signedHere = signOff.reportId === reportId;
    const status = signedHere
      ? 'Signed off'
      : state.restatement?.hashChanged
        ? 'Signed off on another fetch of this month — the service has changed the lines since (a restatement): this export is not what was signed'
        : 'Signed off on another fetch of this month with the same lines';
    const signedAt = localTime(new Date(signOff.signedAt), timeZone);
    rows.push(
      { values: ['Month close', status], look: 'header' },
      { values: ['Signed off by', `${signOff.signedBy} (computer account ${signOff.osUser})`] },
      { values: [`Signed off at (${signedAt?.zone ?? 'as recorded'})`, signedAt?.value ?? signOff.signedAt] },
      { values: ['Content hash (SHA-256 of the lines)', signOff.contentHash] },
    );
  }
  if (!wholeReport) {
    rows.push({ values: ['Changes and Checks', 'Not in an export of part of the report: export the whole report to get them.'] });
    return rows;
  }
  const counted = countReviews(state);
  rows.push(
    { values: ['Changes: compared with', previous ? describeMonth(previous) : 'No earlier month of this service and reseller in the ledger'] },
    { values: ['Checks', `${plural(state.exceptions.length, 'exception')}: ${counted.open} open, ${counted.accepted} accepted, ${counted.resolved} resolved`] },
  );
  if (previous) rows.push({ values: ['How the change in sales is split', CHANGE_EXPLANATION] });
  return rows;
}

/** A saved month's name, period and fetch time. */
export async function monthLabel(ledger: Ledger, reportId: string): Promise<MonthLabel | null> {
  const row = await labelRow(ledger, reportId);
  return row ? { name: row.name, period: { startDate: row.period_start, endDate: row.period_end }, fetchedAt: row.fetched_at } : null;
}

/**
 * The month close's part of the report workbook: `Changes` (the month compared with the one before it, same
 * service and reseller) and `Checks` (every exception and its review), and About's DRAFT or sign-off rows. An
 * export of part of a report (a filter, a group pack) gets the About rows only: the changes and exceptions are
 * the whole month's.
 *
 * The comparison is made once and handed to both sheets' sources: the checks' rules against last month read it,
 * and Changes writes it. It is held in memory (month-compare.ts): its size grows with the number of changed
 * product lines, not with the report's lines; the sheets are streamed.
 */
export function monthCloseSheets(ledger: () => Promise<Ledger>, stateOf: (reportId: string, comparisonOf: ComparisonOf) => Promise<MonthCloseSheetsState>): WorkbookAddition {
  return async (sheets, meta, options) => {
    const opened = await ledger();
    const comparisons = new Map<string, Promise<MonthComparison>>();
    const comparisonOf: ComparisonOf = (beforeId) => {
      let comparison = comparisons.get(beforeId);
      if (!comparison) comparisons.set(beforeId, (comparison = compareMonths(opened, beforeId, meta.id)));
      return comparison;
    };
    let state: MonthCloseSheetsState;
    try {
      state = await stateOf(meta.id, comparisonOf);
    } catch (error) {
      // The report's own sheets come first: a month the checks cannot be run on still exports.
      return { split: [], about: [{ values: ['Month close', `Not known: the checks could not be run (${reasonOf(error)}), so Changes and Checks are not in this export.`], look: 'header' }] };
    }
    const wholeReport = !options.filter || isEmptyFilter(options.filter);
    const previous = state.previousReportId ? await monthLabel(opened, state.previousReportId) : null;
    const about = closeAboutRows(state, meta.id, previous, options.timeZone, wholeReport);
    if (!wholeReport) return { split: [], about };
    let comparison: MonthComparison | null = null;
    let noComparison = 'No earlier month of this service and reseller is in the ledger, so there is nothing to compare with. Fetch or import last month first.';
    if (state.previousReportId) {
      try {
        comparison = await comparisonOf(state.previousReportId);
      } catch (error) {
        noComparison = `The comparison with ${previous ? describeMonth(previous) : 'the month before'} could not be made: ${reasonOf(error)}.`;
      }
    }
    const changes = await writeChangesSheet(sheets, comparison, noComparison);
    const checks = await writeChecksSheet(sheets, state, options.timeZone);
    return { split: [changes, checks], about };
  };
}

/** An error in one line (a DuckDB error adds advice on the lines after). */
function reasonOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]?.trim() ?? '';
}

export interface ComparisonWorkbookOptions {
  before?: MonthLabel | null;
  after?: MonthLabel | null;
  appVersion?: string;
  exportedAt?: Date;
  /** Rows per sheet, header included (Excel's limit unless a test sets a small one). */
  maxRows?: number;
  timeZone?: string;
}

/**
 * `reports compare A B --out F.xlsx`: the Changes sheet of one month against another, and a small About naming
 * both months. Written through the staging folder (output-file.ts): complete at `path`, or not there at all.
 */
export async function exportComparisonWorkbook(outputs: OutputFolder, comparison: MonthComparison, path: string, options: ComparisonWorkbookOptions = {}): Promise<{ changes: number }> {
  const exportedAt = options.exportedAt ?? new Date();
  const title = options.after && options.before ? `${options.after.name} compared with ${options.before.name}` : 'Month comparison';
  await writeWorkbookFile(outputs, path, exportedAt, async (workbook, output) => {
    const sheets: Sheets = { workbook, output, maxRows: Math.max(2, options.maxRows ?? EXCEL_MAX_ROWS), print: printSetup(title) };
    const names = await writeChangesSheet(sheets, comparison, '');
    const worksheet = workbook.addWorksheet('About', sheets.print);
    worksheet.columns = [{ width: 34 }, { width: 60 }];
    const exported = localTime(exportedAt, options.timeZone);
    const month = (label: MonthLabel | null | undefined, id: string) => (label ? describeMonth(label) : `Saved report ${id}`);
    const rows: AboutRow[] = [
      { values: ['Comparison', title], look: 'header' },
      { values: ['Before', month(options.before, comparison.beforeId)] },
      { values: ['After', month(options.after, comparison.afterId)] },
      { values: ['Changes', comparison.changes.length] },
      ...(names.length > 1 ? [{ values: ['Changes sheets', `${names.join(', ')}: more rows than one Excel sheet holds, so they continue on the next sheet.`] }] : []),
      { values: ['How the change in sales is split', CHANGE_EXPLANATION] },
      { values: [`Exported at (${exported?.zone ?? 'unknown'})`, exported?.value ?? ''] },
      ...(options.appVersion ? [{ values: ['Closebook version', options.appVersion] }] : []),
    ];
    writeAboutRows(worksheet, rows);
    worksheet.commit();
  });
  return { changes: comparison.changes.length };
}
