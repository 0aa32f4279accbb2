import { isEmptyFilter } from '@shared/report-filter';
import type { ReportPeriod } from '@shared/schemas/billing-report';
import type { Ledger } from '../ledger/ledger';
import type { OutputFolder } from '../storage/output-file';
import { type AboutRow, EXCEL_MAX_ROWS, localTime, printSetup, type Sheets, writeAboutRows, writeWorkbookFile } from '../xlsx';
import type { WorkbookAddition } from '../reports';
import { writeChangesSheet } from './changes-sheet';
import { countReviews, type MonthCloseSheetsState, writeChecksSheet } from './checks-sheet';
import { closeStamp } from './close-stamp';
import { compareMonths, type MonthComparison } from './month-compare';
import { labelRow } from './queries/months';
import { errorMessage } from '@shared/error-message';
import { counted } from '@shared/counted';

/** A saved month as the workbook names it. */
export interface MonthLabel {
  name: string;
  period: ReportPeriod;
  fetchedAt: string;
  lines: number;
}

export const CHANGE_EXPLANATION =
  'Change in sales = price effect + quantity effect + new/lost effect + other effect, exactly, per currency. Price effect = (unit price after − before) × quantity after; ' +
  'quantity effect = (quantity after − before) × unit price before; new/lost = the sales of what is new (+) or no longer billed (−); other = the rest ' +
  '(a product sold at several unit prices, rounding). Lines of one product are summed first; a change of currency counts as lost and new.';

const describeMonth = (month: MonthLabel) => `${month.name} (${month.period.startDate} – ${month.period.endDate})`;

/** The month close's rows of About: DRAFT, PREPARED or APPROVED with who and when, the content hash; what Changes compares with. */
export function closeAboutRows(
  state: MonthCloseSheetsState,
  reportId: string,
  previous: MonthLabel | null,
  timeZone: string | undefined,
  wholeReport: boolean,
): AboutRow[] {
  const rows: AboutRow[] = [{ values: ['Month close', closeStamp(state, reportId, timeZone).line], look: 'header' }];
  if (state.signOff) rows.push({ values: ['Content hash of the signed lines (SHA-256)', state.signOff.contentHash] });
  if (!wholeReport) {
    rows.push({ values: ['Changes and Checks', 'Not in an export of part of the report: export the whole report to get them.'] });
    return rows;
  }
  const reviews = countReviews(state);
  rows.push(
    { values: ['Changes: compared with', previous ? describeMonth(previous) : 'No earlier month of this service and reseller in the ledger'] },
    {
      values: ['Checks', `${counted(state.exceptions.length, 'exception')}: ${reviews.open} open, ${reviews.accepted} accepted, ${reviews.resolved} resolved`],
    },
  );
  if (previous) rows.push({ values: ['How the change in sales is split', CHANGE_EXPLANATION] });
  return rows;
}

/** A saved month's name, period and fetch time. */
export async function monthLabel(ledger: Ledger, reportId: string): Promise<MonthLabel | null> {
  const row = await labelRow(ledger, reportId);
  return row ? { name: row.name, period: { startDate: row.period_start, endDate: row.period_end }, fetchedAt: row.fetched_at, lines: row.line_count } : null;
}

/**
 * The month close's part of the report workbook: `Changes` (the month compared with the one before it, same
 * service and reseller) and `Checks` (every exception and its review), and About's DRAFT or sign-off rows. An
 * export of part of a report (a filter, a group pack) gets the About rows only: the changes and exceptions are
 * the whole month's.
 *
 * The comparison is made once and kept in the ledger (month-compare.ts): the checks' rules against last month read
 * the changes they look at, and Changes streams every change in batches.
 */
export function monthCloseSheets(ledger: () => Promise<Ledger>, stateOf: (reportId: string) => Promise<MonthCloseSheetsState>): WorkbookAddition {
  return async (sheets, meta, options) => {
    const opened = await ledger();
    let state: MonthCloseSheetsState;
    try {
      state = await stateOf(meta.id);
    } catch (error) {
      // The report's own sheets come first: a month the checks cannot be run on still exports.
      return {
        split: [],
        about: [
          {
            values: ['Month close', `Not known: the checks could not be run (${reasonOf(error)}), so Changes and Checks are not in this export.`],
            look: 'header',
          },
        ],
      };
    }
    const wholeReport = !options.filter || isEmptyFilter(options.filter);
    const previous = state.previousReportId ? await monthLabel(opened, state.previousReportId) : null;
    const about = closeAboutRows(state, meta.id, previous, options.timeZone, wholeReport);
    if (!wholeReport) return { split: [], about };
    let comparison: MonthComparison | null = null;
    let noComparison = 'No earlier month of this service and reseller is in the ledger, so there is nothing to compare with. Fetch or import last month first.';
    if (state.previousReportId) {
      try {
        comparison = await compareMonths(opened, state.previousReportId, meta.id);
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
  return errorMessage(error).split('\n')[0]?.trim() ?? '';
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
export async function exportComparisonWorkbook(
  outputs: OutputFolder,
  comparison: MonthComparison,
  path: string,
  options: ComparisonWorkbookOptions = {},
): Promise<{ changes: number }> {
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
      { values: ['Changes', comparison.changeCount] },
      ...(names.length > 1
        ? [{ values: ['Changes sheets', `${names.join(', ')}: more rows than one Excel sheet holds, so they continue on the next sheet.`] }]
        : []),
      { values: ['How the change in sales is split', CHANGE_EXPLANATION] },
      { values: [`Exported at (${exported?.zone ?? 'unknown'})`, exported?.value ?? ''] },
      ...(options.appVersion ? [{ values: ['Closebook version', options.appVersion] }] : []),
    ];
    writeAboutRows(worksheet, rows);
    worksheet.commit();
  });
  return { changes: comparison.changeCount };
}
