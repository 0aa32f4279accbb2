/**
 * The bounds of the workbook reader and its two refusals, shared by its three parts (the zip in xlsx-zip.ts, the
 * XML in xlsx-xml.ts, the sheets in xlsx-reader.ts), each of which may refuse a workbook.
 */

/** How far the reader goes before it refuses a workbook; the caller says why each figure is what it is. */
export interface XlsxBounds {
  /** Parts (zip entries) in the file. */
  parts: number;
  /** Bytes unpacked of each part that lists parts or sheets (the relationships, the workbook). */
  listBytes: number;
  /** Bytes unpacked of the shared strings, and how many strings. */
  sharedBytes: number;
  sharedStrings: number;
  /** Bytes unpacked of the sheet read. */
  sheetBytes: number;
  /** Bytes unpacked of all the parts read together. */
  totalBytes: number;
  /** XML elements read from all the parts together (the time it takes goes with their number). */
  elements: number;
  /** Bytes of XML between two tags, or in one tag. */
  betweenTags: number;
  /** Elements nested in one another. */
  depth: number;
}

/** The workbook is damaged or not a workbook; the message says what is wrong, in a clause ("its part … is …"). */
export class UnreadableWorkbook extends Error {}

/** The workbook is larger than the bounds; the message is a whole sentence, with what to do. */
export class OversizedWorkbook extends Error {}

/** A size in words: 256 KB, 96 MB. */
export function sizeText(bytes: number): string {
  return bytes < 1024 * 1024
    ? `${Math.round(bytes / 1024).toLocaleString('en')} KB`
    : `${(bytes / 1024 / 1024).toLocaleString('en', { maximumFractionDigits: 1 })} MB`;
}

/** What to do with a workbook that is too large for the reader. */
export const SAVE_ALONE = 'Save the consumption sheet alone from Excel, or export it as CSV.';
