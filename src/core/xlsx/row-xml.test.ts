import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { moneyFormat, PERCENT_FORMAT, styleOf, TEXT_FORMAT } from './number-formats';
import { cellsRowXml, type RowOutline, styleIndex, writeRowsXml, type XmlCell } from './row-xml';
import type { Sheet, Writer } from './workbook-file';
import { guardWorkbookText } from './xml-text';

/** A workbook of one sheet: a header row from exceljs, then `write`'s rows; its sheet and styles as XML. */
async function workbookXml(write: (workbook: Writer, sheet: Sheet) => void): Promise<{ sheet: string; styles: string }> {
  guardWorkbookText();
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet('Sheet', { properties: { outlineLevelRow: 1 } as ExcelJS.WorksheetProperties });
  sheet.getRow(1).getCell(1).value = 'Header';
  sheet.getRow(1).commit();
  write(workbook, sheet);
  sheet.commit();
  await workbook.commit();
  const zip = await JSZip.loadAsync(Buffer.concat(chunks));
  const part = (name: string) => zip.file(name)?.async('string') ?? Promise.reject(new Error(`no ${name}`));
  return { sheet: await part('xl/worksheets/sheet1.xml'), styles: await part('xl/styles.xml') };
}

/** Cells as a row object is given them: value and number format (undefined: the cell is not touched). */
type Given = ({ value: string | number | null; format: string | null } | undefined)[];

const ROWS: { name: string; cells: Given; outline?: RowOutline }[] = [
  {
    name: 'text that XML escapes, a styled empty cell, a money amount, an empty text and a percentage, outlined',
    cells: [
      { value: 'Åkerberg & <Söner> "AB"', format: null },
      { value: null, format: TEXT_FORMAT },
      { value: 12.5, format: moneyFormat('SEK') },
      { value: '', format: null },
      { value: -0.0625, format: PERCENT_FORMAT },
    ],
    outline: { level: 1, collapsed: true },
  },
  {
    name: 'a customer number kept as text, an unstyled empty cell within the row, a tiny amount',
    cells: [
      { value: 'Acme', format: null },
      { value: '007', format: TEXT_FORMAT },
      { value: null, format: null },
      { value: 1e-7, format: moneyFormat('USD') },
    ],
  },
  { name: 'a cell never touched within the row', cells: [{ value: 'A', format: null }, undefined, { value: 3, format: null }] },
];

describe('cellsRowXml', () => {
  it.each(ROWS)('writes what exceljs writes for the same row: $name', async ({ cells, outline }) => {
    const byExcelJs = await workbookXml((_, sheet) => {
      const row = sheet.getRow(2);
      cells.forEach((cell, index) => {
        if (!cell) return;
        row.getCell(index + 1).value = cell.value;
        if (cell.format) row.getCell(index + 1).style = styleOf(cell.format);
      });
      if (outline) row.outlineLevel = outline.level;
      row.commit();
    });
    const byXml = await workbookXml((workbook, sheet) => {
      const xmlCells = cells.map((cell): XmlCell | undefined =>
        cell
          ? { value: cell.value, style: cell.format ? styleIndex(workbook, styleOf(cell.format), typeof cell.value === 'number' ? 'number' : 'text') : 0 }
          : undefined,
      );
      writeRowsXml(sheet, cellsRowXml(2, xmlCells, outline), 2);
    });
    expect(byXml.sheet).toBe(byExcelJs.sheet);
    expect(byXml.styles).toBe(byExcelJs.styles);
  });
});
