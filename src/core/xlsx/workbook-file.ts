import type ExcelJS from 'exceljs';
import type { FileSink, OutputFolder } from '../storage/output-file';
import { guardWorkbookText } from './xml-text';
import { useNativeZipChecksum } from './zip-checksum';
import { ZIP_PIECE_BYTES } from './sheet-series';

/** Excel's last row; a sheet holds one header row and this many minus one data rows. */
export const EXCEL_MAX_ROWS = 1_048_576;

export type Writer = ExcelJS.stream.xlsx.WorkbookWriter;
export type Sheet = ReturnType<Writer['addWorksheet']>;
export type SheetOptions = Partial<ExcelJS.AddWorksheetOptions>;

/**
 * Every sheet prints the same way: landscape at its own size — a wide sheet runs across pages rather than shrink to
 * one (Billing lines shrank to 2 pt) — with the header row and the first column (what each row is) on every page,
 * and a footer with the report's name, the sheet and the page number. `&` starts a code in a footer, so the name's
 * are doubled.
 */
export function printSetup(reportName: string): SheetOptions {
  const name = reportName.replaceAll('&', '&&').slice(0, 120);
  return {
    pageSetup: {
      orientation: 'landscape',
      fitToPage: false,
      scale: 100,
      printTitlesRow: '1:1',
      printTitlesColumn: 'A:A',
      margins: { left: 0.4, right: 0.4, top: 0.5, bottom: 0.6, header: 0.3, footer: 0.3 },
    },
    headerFooter: { oddFooter: `&L${name}&C&A&RPage &P of &N` },
  } as SheetOptions;
}

/**
 * A workbook written with exceljs's streaming writer into a file of the staging folder, moved to `path` once `build`
 * has added its sheets and the file is complete. A write that fails (a full disk) ends `build` at its next row or
 * wait (see Sheets.output) and the export with it: exceljs itself would wait for ever for the broken stream.
 */
export async function writeWorkbookFile<T>(
  outputs: OutputFolder,
  path: string,
  createdAt: Date,
  build: (workbook: Writer, output: OutputWatch) => Promise<T>,
): Promise<T> {
  guardWorkbookText();
  useNativeZipChecksum();
  return outputs.writeStream(path, async (sink) => {
    // Loaded when a workbook is written: a command or a window that writes none starts without exceljs and its zip code.
    const { default: exceljs } = await import('exceljs');
    // zlib's output buffer holds a whole compressed piece (see ZIP_PIECE_BYTES; sheet XML compresses about 6 to 1), so
    // each piece is one task of its thread; a piece that compresses less takes more than one, as before.
    const zip = { zlib: { chunkSize: ZIP_PIECE_BYTES / 4 } };
    const workbook = new exceljs.stream.xlsx.WorkbookWriter({ stream: sink, useStyles: true, useSharedStrings: false, zip });
    workbook.creator = 'Closebook';
    workbook.created = createdAt;
    workbook.modified = createdAt; // else the moment exceljs was called: the same export would differ byte by byte
    const result = await build(workbook, sink);
    await Promise.race([workbook.commit(), sink.failure]);
    return result;
  });
}

/** What a sheet writer asks of the file under it: has a write failed (check), and a promise that says when one does. */
export type OutputWatch = Pick<FileSink, 'check' | 'failure'>;
