import type { BillingException, MonthCloseView } from '@shared/schemas/month-close';
import { bySeverity, groupFindings } from '@shared/model/findings';
import { isOpenReview, shownReviewState } from '@shared/model/review-state';
import { DATETIME_FORMAT, localTime, rowXml, SheetSeries, type Sheets, styleIndex, styleOf } from '../xlsx';
import { type CheckFormat, CHECKS_COLUMNS, columnNumbers } from './columns';
import { counted } from '@shared/counted';

/** What the workbook shows of a month's close: its checks with their reviews, the sign-off, and the month before it. */
export type MonthCloseSheetsState = Pick<
  MonthCloseView,
  'previousReportId' | 'exceptions' | 'open' | 'state' | 'signOff' | 'restatement' | 'readyToInvoice' | 'teamLedger' | 'integrity'
>;

const KINDS = CHECKS_COLUMNS.map((column) => column.kind);
const COLUMN = columnNumbers(CHECKS_COLUMNS);

/**
 * Open exceptions first, then the reviewed ones; in each, one finding's exceptions together (findings.ts: one cause,
 * one finding), the most severe findings first, and in a finding the most severe exception first.
 */
export function checksOrder<T extends Parameters<typeof groupFindings>[0][number] & Pick<BillingException, 'review'>>(exceptions: T[]): T[] {
  const open = exceptions.filter((exception) => isOpenReview(exception.review));
  const reviewed = exceptions.filter((exception) => !isOpenReview(exception.review));
  return [open, reviewed].flatMap((part) => bySeverity(groupFindings(part)).flatMap((finding) => finding.exceptions));
}

export function countReviews(state: MonthCloseSheetsState) {
  const reviews = { open: 0, accepted: 0, resolved: 0, suspended: 0 };
  for (const exception of state.exceptions) reviews[shownReviewState(exception.review)]++;
  return { ...reviews, open: reviews.open + reviews.suspended };
}

/**
 * `Checks`: every exception with its evidence and review state, open ones first by severity; below a blank row,
 * outside the filter, how many are open, accepted and resolved. Review times are Closebook's own, in local time.
 */
export async function writeChecksSheet(sheets: Sheets, state: MonthCloseSheetsState, timeZone: string | undefined): Promise<string[]> {
  const zone = localTime(new Date(), timeZone)?.zone.split(',')[0] ?? 'local time';
  const headers = CHECKS_COLUMNS.map(({ header, width, format }) => ({ header: format === 'datetime' ? `${header} (${zone})` : header, width }));
  const series = new SheetSeries(sheets, 'Checks', headers);
  series.ensureStarted();
  const byFormat: Record<CheckFormat, number> = { datetime: styleIndex(sheets.workbook, styleOf(DATETIME_FORMAT), 'date'), text: 0 };
  const styles = CHECKS_COLUMNS.map((column) => byFormat[column.format]);
  const dates = new Map<string, number | null>();
  const ordered = checksOrder(state.exceptions);
  if (ordered.length === 0) series.nextXml((rowNumber) => rowXml(rowNumber, ['No exceptions: every check passed.'], ['text'], [0], dates));
  for (const [index, exception] of ordered.entries()) {
    const review = exception.review;
    // A wall-clock time with no zone: the column header names it.
    const reviewedAt = review ? (localTime(new Date(review.reviewedAt), timeZone)?.value.toISOString().slice(0, 19) ?? review.reviewedAt) : null;
    const values = CHECKS_COLUMNS.map((column) => column.value({ exception, reviewedAt }));
    series.nextXml((rowNumber) => rowXml(rowNumber, values, KINDS, styles, dates));
    if (index % 5_000 === 4_999) await series.caughtUp();
  }
  await series.caughtUp();
  series.startTotals(1);
  const { row } = series.next();
  const reviews = countReviews(state);
  row.getCell(1).value = 'Total';
  row.getCell(COLUMN.message).value =
    `${counted(state.exceptions.length, 'exception')}: ${reviews.open.toLocaleString('en')} open (${state.open.high} high, ${state.open.medium} medium, ${state.open.low} low), ` +
    `${reviews.accepted.toLocaleString('en')} accepted, ${reviews.resolved.toLocaleString('en')} resolved` +
    (reviews.suspended ? ` (${reviews.suspended.toLocaleString('en')} open as suspended: their figures changed since the review)` : '');
  for (let column = 1; column <= CHECKS_COLUMNS.length; column++) row.getCell(column).style = styleOf(null, 'total');
  row.commit();
  series.commit();
  return series.names;
}
