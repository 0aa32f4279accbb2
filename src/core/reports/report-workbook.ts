import type { ReportFilter } from '@shared/report-filter';
import type { ReportMeta } from '@shared/schemas/saved-report';
import type { Ledger } from '../ledger/ledger';
import type { AboutRow } from '../xlsx/about';
import type { Sheets } from '../xlsx/sheet-series';
import { EXCEL_MAX_ROWS, printSetup, writeWorkbookFile } from '../xlsx/workbook-file';
import { reportLineFilter } from './queries/lines';
import { writeAbout } from './workbook/about-sheet';
import { keptNameOrder } from '../ledger/name-ranks';
import { AMOUNT_ROW, amountsOf, PAIR, SUMS } from './workbook/amounts';
import { writeBillingLines } from './workbook/billing-lines-sheet';
import { writeInvoicing } from './workbook/invoicing-sheet';
import { writeOrganizationGroups } from './workbook/organization-groups-sheet';
import { writeServices } from './workbook/services-sheet';
import { writeSummary } from './workbook/summary-sheet';

export interface WorkbookOptions {
  filter?: ReportFilter;
  /** Sheets another feature adds after Billing lines, and its rows for About (closing the month: Changes, Checks, sign-off). */
  addSheets?: WorkbookAddition;
  /** The month's close state in words (DRAFT, PREPARED … with who and when), written under the Invoicing table. */
  stamp?: CloseStampText;
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

/** What an addition wrote: its sheets that continued on another (for About), and its rows for About (shown below the period). */
export interface WorkbookAdditionResult {
  split: string[][];
  about: AboutRow[];
}

/** What the month close says of a fetch, in one word and one line (close-stamp.ts writes it). */
export interface CloseStampText {
  word: string;
  line: string;
}

export type WorkbookAddition = (sheets: Sheets, meta: ReportMeta, options: WorkbookOptions) => Promise<WorkbookAdditionResult>;

/**
 * Writes the workbook from the ledger with exceljs's streaming writer: every aggregate and total comes from SQL
 * (exact DECIMAL sums, per currency pair — never across currencies) and the billing lines are streamed in batches,
 * so memory does not grow with the report. Amounts become numbers only in their cells; totals are formulas stored
 * with their exact result (exceljs never calculates). Written through the ledger's staging folder (see output-file.ts).
 */
export async function writeReportWorkbook(ledger: Ledger, meta: ReportMeta, path: string, options: WorkbookOptions): Promise<WorkbookSummary> {
  return writeWorkbookFile(ledger.outputs, path, options.exportedAt, async (workbook, output) => {
    const lines = await reportLineFilter(ledger, meta.id, options.filter);
    const sheets: Sheets = { workbook, output, maxRows: Math.max(2, options.maxRows ?? EXCEL_MAX_ROWS), print: printSetup(meta.name) };
    const totals = AMOUNT_ROW.all(
      await ledger.all(`SELECT ${PAIR}, ${SUMS} FROM billing_lines l WHERE ${lines.where} GROUP BY ALL ORDER BY currency_key`, lines.params),
    ).map(amountsOf);
    const split = [
      await writeInvoicing(sheets, ledger, meta.id, options.filter, options.stamp),
      await writeSummary(sheets, ledger, lines, totals),
      await writeServices(sheets, ledger, lines, totals),
      await writeOrganizationGroups(sheets, ledger, lines),
    ];
    const billingLines = await writeBillingLines(sheets, ledger, meta.id, options.filter, options.onProgress);
    split.push(billingLines.sheets);
    const added = options.addSheets ? await options.addSheets(sheets, meta, options) : { split: [], about: [] };
    split.push(...added.split);
    writeAbout(
      sheets,
      meta,
      totals,
      billingLines.lines,
      split.filter((names) => names.length > 1),
      added.about,
      { ...options, nameOrder: await keptNameOrder(ledger, meta.id) },
    );
    return { lines: billingLines.lines };
  });
}
