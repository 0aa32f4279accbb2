import type ExcelJS from 'exceljs';
import { guardWorkbookText } from './xml-text';

/** A sheet of a small workbook: its columns (a header and a width; no header for a sheet of notes) and its rows. */
export interface SmallSheet {
  name: string;
  columns: { header?: string; width: number }[];
  rows: ExcelJS.CellValue[][];
}

/**
 * A workbook small enough to build in memory — a template, a consumption batch's failed records (a batch is
 * bounded) — as the bytes of its file, for a download or a file written through the staging folder. A sheet with
 * headers has them bold and frozen, as every sheet of Closebook's large workbooks does.
 */
export async function smallWorkbook(sheets: SmallSheet[]): Promise<Buffer> {
  guardWorkbookText(); // the rows may hold a user's own values and a service's messages
  // Loaded when a workbook is written: a command or a window that writes none starts without exceljs and its zip code.
  const { default: exceljs } = await import('exceljs');
  const workbook = new exceljs.Workbook();
  workbook.creator = 'Closebook';
  for (const { name, columns, rows } of sheets) {
    const sheet = workbook.addWorksheet(name);
    const headed = columns.some((column) => column.header !== undefined);
    sheet.columns = columns;
    if (headed) {
      sheet.getRow(1).font = { bold: true };
      sheet.views = [{ state: 'frozen', ySplit: 1 }];
    }
    for (const row of rows) sheet.addRow(row);
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
