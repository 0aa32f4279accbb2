/**
 * What every workbook Closebook writes shares — reports, the month close and consumption alike: the file written
 * through the staging folder, sheets that continue past Excel's last row, number formats that name their currency,
 * rows given as XML, the About rows, and text XML can hold.
 */
export { type AboutRow, localTime, writeAboutRows } from './about';
export * from './number-formats';
export { type CellKind, excelDate, rowXml, styleIndex, writeRowsXml } from './row-xml';
export { type Column, letter, SheetSeries, type Sheets } from './sheet-series';
export { EXCEL_MAX_ROWS, type OutputWatch, printSetup, type Sheet, type SheetOptions, type Writer, writeWorkbookFile } from './workbook-file';
export { type SmallSheet, smallWorkbook } from './small-workbook';
export { guardWorkbookText, xmlSafeText, xmlText } from './xml-text';
