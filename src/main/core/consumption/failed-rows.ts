import ExcelJS from 'exceljs';
import type { Submission } from '../../../shared/schemas/consumption';
import { CSV_BOM, csvCell, csvLine } from '../platform/csv';

const HEADERS = ['Row', 'Subscription ID', 'Is add-on', 'Add-on ID', 'Quantity', 'Consumption ID', 'Error'];

/** Every failed record beside its input row (or with no row, when it matched none), ready to fix and resend. */
export function failedRowTable(submission: Submission): (string | number)[][] {
  const byRow = new Map(submission.rows.map((row) => [row.row, row]));
  return submission.failures.map((failure) => {
    const row = failure.row === null ? undefined : byRow.get(failure.row);
    return [
      failure.row ?? '',
      row?.subscriptionId ?? failure.subscriptionId,
      row ? row.isAddon || 'no' : failure.addonId ? 'yes' : 'no',
      row?.addonId ?? failure.addonId ?? '',
      row?.quantity ?? (failure.quantity === null ? '' : String(failure.quantity)),
      row?.consumptionId ?? '',
      failure.errorMessage,
    ];
  });
}

/** Ids and the service's message are text, escaped against formulas; the row number and quantity are numbers when they read as one. */
const CSV_KINDS = HEADERS.map((header) => (header === 'Row' || header === 'Quantity' ? 'number' : 'text') as 'number' | 'text');

export function failedRowsCsv(submission: Submission): string {
  return CSV_BOM + [HEADERS, ...failedRowTable(submission)].map((cells, line) => csvLine(cells.map((cell, index) => csvCell(cell, line === 0 ? 'text' : CSV_KINDS[index])))).join('');
}

export async function failedRowsXlsx(submission: Submission): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Failed records');
  sheet.columns = HEADERS.map((header) => ({ header, width: header === 'Error' ? 70 : header.endsWith('ID') ? 40 : 12 }));
  sheet.getRow(1).font = { bold: true };
  sheet.views = [{ state: 'frozen', ySplit: 1 }];
  for (const values of failedRowTable(submission)) sheet.addRow(values.map((value, index) => (index === 4 && value !== '' && !Number.isNaN(Number(value)) ? Number(value) : value)));
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
