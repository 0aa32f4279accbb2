import type ExcelJS from 'exceljs';
import type { InvoiceRow } from '@shared/contract';
import type { ReportFilter } from '@shared/report-filter';
import type { Ledger } from '@core/ledger/ledger';
import { flagLabels } from '@shared/model/invoice-flags';
import { INVOICING_HEADERS as HEADER } from '@shared/model/invoicing-columns';
import { invoicing } from '../report-invoicing';
import { cellNumber, COUNT_FORMAT, moneyFormat, styleOf, TEXT_FORMAT } from '@core/xlsx/number-formats';
import { SheetSeries, type Sheets } from '@core/xlsx/sheet-series';

/**
 * The `Invoicing` table, in its column order (fixed: an ERP imports it): each column's header, width, and its cell
 * — value and style — for an invoice row. Customer numbers are text, so an ERP's keep their leading zeros.
 */
export const INVOICING_COLUMNS: { header: string; width: number; cell: (invoice: InvoiceRow) => [ExcelJS.CellValue, Partial<ExcelJS.Style> | null] }[] = [
  { header: HEADER.customerNumber, width: 16, cell: (invoice) => [invoice.customerNumber || null, styleOf(TEXT_FORMAT)] },
  { header: HEADER.organization, width: 36, cell: (invoice) => [invoice.organization, null] },
  { header: HEADER.currency, width: 10, cell: (invoice) => [invoice.currency, null] },
  { header: HEADER.amount, width: 20, cell: (invoice) => [cellNumber(invoice.amountToInvoice), styleOf(moneyFormat(invoice.currency))] },
  { header: HEADER.lines, width: 13, cell: (invoice) => [invoice.lines, styleOf(COUNT_FORMAT)] },
  { header: HEADER.flags, width: 44, cell: (invoice) => [flagLabels(invoice.flags, '; '), null] },
];

export const INVOICING_EXPLANATION =
  "Amount to invoice = exact sum of sales in the customer currency, rounded once to the currency's minor unit; amounts are net of tax; negative totals are credit notes.";

/**
 * What finance opens first and an ERP imports: one row per organization and customer currency with the amount to
 * invoice (rounded once to the currency's minor unit, a number in the currency's format) and why it may need a
 * look; totals per currency below a blank row, and under them the month's close state (DRAFT, PREPARED, APPROVED with
 * who and when). Cost and margin stay in Summary.
 */
export async function writeInvoicing(
  sheets: Sheets,
  ledger: Ledger,
  reportId: string,
  filter: ReportFilter | undefined,
  stamp?: { line: string },
): Promise<string[]> {
  const series = new SheetSeries(sheets, 'Invoicing', INVOICING_COLUMNS);
  series.ensureStarted();
  const { rows, totals } = await invoicing(ledger, reportId, filter);
  for (const invoice of rows) {
    const { row } = series.next();
    INVOICING_COLUMNS.map((column) => column.cell(invoice)).forEach(([value, style], index) => {
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
  if (stamp) {
    // Below the totals (the table itself stays as an ERP imports it): whether these amounts are signed off.
    series.next().row.commit();
    const { row } = series.next();
    row.getCell(1).value = `Month close: ${stamp.line}`;
    row.getCell(1).style = styleOf(null, 'total');
    row.commit();
  }
  series.commit();
  return series.names;
}
