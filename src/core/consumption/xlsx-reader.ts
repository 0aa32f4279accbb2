import { posix } from 'node:path';
import { createInflateRaw, crc32 } from 'node:zlib';
import { SaxesParser } from 'saxes';
import { quoted } from '@shared/consumption-rows';

/**
 * A small reader of the cells of one sheet of an .xlsx workbook, bounded in time and memory whatever the file
 * holds: the zip's directory is read first, only the parts needed are unpacked (as a stream off the main thread,
 * each checked against its stated size and checksum, and capped), and their XML is read as a stream.
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

/** A row's cells by column (0 for A): their text, null for a formula saved without its calculated value. */
export type RowCells = Map<number, string | null>;

export interface Workbook {
  /** The worksheets, in the workbook's order. */
  sheets: string[];
  /** Reads the named sheet's rows in order, until `onRow` answers false. */
  readSheet(name: string, onRow: (row: number, cells: RowCells) => boolean): Promise<void>;
}

/** A size in words: 256 KB, 96 MB. */
function size(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.round(bytes / 1024).toLocaleString('en')} KB` : `${(bytes / 1024 / 1024).toLocaleString('en', { maximumFractionDigits: 1 })} MB`;
}

/** What to do with a workbook that is too large for the reader. */
const SAVE_ALONE = 'Save the consumption sheet alone from Excel, or export it as CSV.';

/** Opens a workbook: reads its zip directory, then its list of sheets. */
export async function openXlsx(bytes: Uint8Array, bounds: XlsxBounds): Promise<Workbook> {
  const zip = new Zip(bytes, bounds);
  const packageRels = await relationships(zip, '', bounds);
  const workbookPath = [...packageRels.values()].find((rel) => rel.type.endsWith('/officeDocument'))?.target ?? 'xl/workbook.xml';
  const workbookRels = await relationships(zip, workbookPath, bounds);
  const sheets: { name: string; path: string }[] = [];
  if (!zip.has(workbookPath)) throw new UnreadableWorkbook(`it has no workbook part (${quoted(workbookPath)})`);
  await parseXml(zip, workbookPath, bounds, { what: "The workbook's list of sheets", cap: bounds.listBytes, advice: SAVE_ALONE }, {
    open(name, attributes) {
      if (name !== 'sheet') return;
      const id = Object.entries(attributes).find(([key]) => key.endsWith(':id'))?.[1];
      const rel = id === undefined ? undefined : workbookRels.get(id);
      // Only worksheets whose part is there: chart sheets and dangling entries hold no cells to read.
      if (rel?.type.endsWith('/worksheet') && zip.has(rel.target)) sheets.push({ name: attributes.name ?? '', path: rel.target });
    },
    close(name) {
      if (name === 'sheets') this.done = true;
    },
  });
  const sharedPath = [...workbookRels.values()].find((rel) => rel.type.endsWith('/sharedStrings'))?.target;
  let shared: string[] | undefined;
  return {
    sheets: sheets.map((sheet) => sheet.name),
    async readSheet(name, onRow) {
      const sheet = sheets.find((candidate) => candidate.name === name);
      if (!sheet) throw new Error(`No sheet ${name}`);
      shared ??= sharedPath && zip.has(sharedPath) ? await sharedStrings(zip, sharedPath, bounds) : [];
      await sheetRows(zip, sheet, shared, bounds, onRow);
    },
  };
}

interface Relationship {
  type: string;
  target: string;
}

/** A part's relationships by id, their targets as part names (the package's own when `source` is ''). */
async function relationships(zip: Zip, source: string, bounds: XlsxBounds): Promise<Map<string, Relationship>> {
  const folder = posix.dirname(source);
  const path = source ? posix.join(folder, '_rels', `${posix.basename(source)}.rels`) : '_rels/.rels';
  const found = new Map<string, Relationship>();
  if (!zip.has(path)) return found;
  await parseXml(zip, path, bounds, { what: `The workbook's list of parts ${quoted(path)}`, cap: bounds.listBytes, advice: SAVE_ALONE }, {
    open(name, attributes) {
      const { Id: id, Type: type, Target: target, TargetMode: mode } = attributes;
      if (name !== 'Relationship' || !id || !type || !target || mode === 'External') return;
      found.set(id, { type, target: target.startsWith('/') ? posix.normalize(target.slice(1)) : posix.join(folder === '.' ? '' : folder, target) });
    },
  });
  return found;
}

async function sharedStrings(zip: Zip, path: string, bounds: XlsxBounds): Promise<string[]> {
  const strings: string[] = [];
  const what = "The workbook's shared text";
  let text = '';
  let inText = false;
  let phonetic = 0;
  await parseXml(zip, path, bounds, { what, cap: bounds.sharedBytes, advice: SAVE_ALONE }, {
    open(name) {
      if (name === 'si') text = '';
      else if (name === 'rPh') phonetic++;
      // The text is in <t>, whole or in rich-text runs; a phonetic guide (<rPh>) is not part of it.
      else if (name === 't') inText = phonetic === 0;
    },
    text(value) {
      if (inText) text += value;
    },
    close(name) {
      if (name === 't') inText = false;
      else if (name === 'rPh') phonetic--;
      else if (name === 'si' && strings.push(text) > bounds.sharedStrings) {
        throw new OversizedWorkbook(`${what} has more than ${bounds.sharedStrings.toLocaleString('en')} pieces, more than a consumption file can have. ${SAVE_ALONE}`);
      }
    },
  });
  return strings;
}

/** The cell being read: its type (`t`), whether it has a formula, its <v> and its inline text (<is>). */
interface Cell {
  type: string;
  formula: boolean;
  value: string | null;
  inline: string | null;
}

async function sheetRows(zip: Zip, sheet: { name: string; path: string }, shared: string[], bounds: XlsxBounds, onRow: (row: number, cells: RowCells) => boolean): Promise<void> {
  let inData = false;
  let row: RowCells | null = null;
  let rowNumber = 0;
  let column = 0;
  let cell: Cell | null = null;
  let collect: 'value' | 'inline' | null = null;
  let phonetic = 0;
  const advice = 'Delete the empty rows and columns around its data, or export it as CSV.';
  await parseXml(zip, sheet.path, bounds, { what: `The sheet ${quoted(sheet.name)}`, cap: bounds.sheetBytes, advice }, {
    open(name, attributes) {
      if (name === 'sheetData') inData = true;
      else if (name === 'row' && inData) {
        // Row and cell references may be left out: then each follows the one before.
        rowNumber = attributes.r === undefined ? rowNumber + 1 : rowOf(attributes.r);
        row = new Map();
        column = 0;
      } else if (name === 'c' && row) {
        column = attributes.r === undefined ? column + 1 : columnOf(attributes.r);
        cell = { type: attributes.t ?? 'n', formula: false, value: null, inline: null };
      } else if (!cell) return;
      else if (name === 'f') cell.formula = true;
      else if (name === 'v') {
        cell.value = '';
        collect = 'value';
      } else if (name === 'is') cell.inline = '';
      else if (name === 'rPh') phonetic++;
      else if (name === 't' && cell.inline !== null && phonetic === 0) collect = 'inline';
    },
    text(value) {
      if (collect && cell) cell[collect] += value;
    },
    close(name) {
      if (name === 'v' || name === 't') collect = null;
      else if (name === 'rPh') phonetic--;
      else if (name === 'c' && row && cell) {
        const text = cellText(cell, shared);
        if (text !== '') row.set(column - 1, text);
        cell = null;
      } else if (name === 'row' && row) {
        if (!onRow(rowNumber, row)) this.stop = true;
        row = null;
      } else if (name === 'sheetData') this.done = true;
    },
  });
}

/**
 * A cell's value as text, as ExcelJS read it before: numbers as JavaScript writes them, booleans as true/false,
 * dates as their serial number (styles are not read), errors as their code; null for a formula without a value.
 * Unlike ExcelJS, a formula whose value is empty text is not taken for one without a value, an error result reads
 * as its code (not NaN), and text is not unescaped twice.
 */
function cellText(cell: Cell, shared: string[]): string | null {
  const { type, value } = cell;
  if (cell.formula) {
    if (value === null) return null;
    return type === 'str' || type === 'e' ? value : numberText(value);
  }
  switch (type) {
    case 's':
      return shared[Number.parseInt(value ?? '', 10)] ?? '';
    case 'inlineStr':
    case 'str':
      return cell.inline ?? value ?? '';
    case 'b':
      return value ? (Number.parseInt(value, 10) !== 0 ? 'true' : 'false') : '';
    case 'e':
      return value ?? '';
    case 'd':
      return value ? (/^\d{4}-\d\d-\d\d/.exec(value)?.[0] ?? value) : '';
    default:
      return value ? numberText(value) : '';
  }
}

function numberText(value: string): string {
  const number = Number.parseFloat(value);
  return Number.isNaN(number) ? value : String(number);
}

/** Excel's last row and column (XFD). */
const LAST_ROW = 1_048_576;
const LAST_COLUMN = 16_384;

function rowOf(reference: string): number {
  const row = /^\d{1,7}$/.test(reference) ? Number(reference) : 0;
  if (row < 1 || row > LAST_ROW) throw new UnreadableWorkbook(`the row number ${quoted(reference)} is not a row of a sheet`);
  return row;
}

function columnOf(reference: string): number {
  const letters = /^([A-Za-z]{1,3})\d{1,7}$/.exec(reference)?.[1] ?? '';
  let column = 0;
  for (const letter of letters.toUpperCase()) column = column * 26 + letter.charCodeAt(0) - 64;
  if (column < 1 || column > LAST_COLUMN) throw new UnreadableWorkbook(`the cell reference ${quoted(reference)} is not a cell`);
  return column;
}

/** Column letters for a 0-based column index (0 is A). */
export function columnLetters(index: number): string {
  let letters = '';
  for (let column = index + 1; column > 0; column = Math.floor((column - 1) / 26)) letters = String.fromCharCode(65 + ((column - 1) % 26)) + letters;
  return letters;
}

interface Visitor {
  open(name: string, attributes: Record<string, string>): void;
  close?(name: string): void;
  text?(text: string): void;
  /** Set when the rest of the part is not needed: it is still unpacked, to check that the part is whole. */
  done?: boolean;
  /** Set when the reading ends here (the caller refuses the file). */
  stop?: boolean;
}

/** Element names without their namespace prefix (some writers spell every element <x:row>). */
function local(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

/** A part as the user knows it ("The sheet …"), its cap in bytes unpacked, and what to do when it is past it. */
interface PartLimit {
  what: string;
  cap: number;
  advice: string;
}

/**
 * Reads a part's XML as a stream, element by element, with `visitor`. Refuses the part past its cap, past the bounds
 * on nesting and on the bytes between two tags (the XML parser holds a text or a tag whole, however long), and when
 * it declares a document type (entities that expand, which Excel never writes).
 */
async function parseXml(zip: Zip, path: string, bounds: XlsxBounds, limit: PartLimit, visitor: Visitor): Promise<void> {
  const parser = new SaxesParser({ position: false });
  let depth = 0;
  parser.on('opentag', (tag) => {
    if (++depth > bounds.depth) throw new UnreadableWorkbook(`its part ${quoted(path)} is nested more than ${bounds.depth} levels deep`);
    if (++zip.elements > bounds.elements) {
      throw new OversizedWorkbook(`${limit.what} is larger than a consumption file can be (more than ${bounds.elements.toLocaleString('en')} cells, rows and other pieces read). ${limit.advice}`);
    }
    if (!visitor.done && !visitor.stop) visitor.open(local(tag.name), tag.attributes as Record<string, string>);
  });
  parser.on('closetag', (tag) => {
    depth--;
    if (!visitor.done && !visitor.stop) visitor.close?.(local(tag.name));
  });
  const { text } = visitor;
  if (text) {
    const onText = (value: string) => void (visitor.done || visitor.stop || text.call(visitor, value));
    parser.on('text', onText);
    parser.on('cdata', onText);
  }
  parser.on('doctype', () => {
    throw new UnreadableWorkbook(`its part ${quoted(path)} declares a document type, which Excel never writes`);
  });
  const decoder = new TextDecoder();
  let read = 0;
  let lastTag = 0;
  try {
    const tooLarge = `${limit.what} is larger than a consumption file can be (more than ${size(limit.cap)} unpacked). ${limit.advice}`;
    for await (const chunk of zip.unpack(path, limit.cap, tooLarge)) {
      if (visitor.done) continue;
      // A '<' at least every `betweenTags` bytes: found by jumping that far and looking back, a call or two a chunk.
      const end = read + chunk.length;
      while (lastTag + bounds.betweenTags < end) {
        const at = chunk.lastIndexOf(0x3c, lastTag + bounds.betweenTags - read);
        if (at < 0 || read + at <= lastTag) {
          throw new OversizedWorkbook(`${limit.what} holds more than ${size(bounds.betweenTags)} of text in one piece, more than any cell can hold (32,767 characters). Save it again from Excel, or export it as CSV.`);
        }
        lastTag = read + at;
      }
      const last = chunk.lastIndexOf(0x3c);
      if (last >= 0) lastTag = read + last;
      read = end;
      parser.write(decoder.decode(chunk, { stream: true }));
      if (visitor.stop) return;
    }
    if (visitor.done) return;
    parser.write(decoder.decode());
    parser.close();
  } catch (error) {
    if (error instanceof UnreadableWorkbook || error instanceof OversizedWorkbook) throw error;
    throw new UnreadableWorkbook(`its part ${quoted(path)} is not well-formed XML (${String((error as Error).message).slice(0, 80).replace(/\.$/, '')})`);
  }
}

const damagedDirectory = () => new UnreadableWorkbook('its zip directory is damaged');

const CHUNK_BYTES = 64 * 1024;

/**
 * A stored (uncompressed) part in chunks, as an inflated one comes: the XML is read a piece at a time, and the event
 * loop gets a turn between pieces, as it does while zlib inflates.
 */
async function* slices(stored: Buffer): AsyncGenerator<Buffer> {
  for (let at = 0; at < stored.length; at += CHUNK_BYTES) {
    if (at > 0) await new Promise((resolve) => setImmediate(resolve));
    yield stored.subarray(at, at + CHUNK_BYTES);
  }
}

/** A zip entry as its directory states it. */
interface Entry {
  name: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localHeader: number;
}

/**
 * A zip file read through its central directory: every entry is found where the directory says, and only the parts
 * asked for are unpacked, each once its name and sizes agree with its local header.
 */
class Zip {
  private readonly data: Buffer;
  private readonly entries = new Map<string, Entry>();
  /** Bytes unpacked and XML elements read from all the parts, for the bounds on the whole. */
  private unpacked = 0;
  elements = 0;

  constructor(
    bytes: Uint8Array,
    private readonly bounds: XlsxBounds,
  ) {
    const data = (this.data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
    // An old .xls, and any workbook with a password to open it, is an OLE compound file, not a zip.
    if (data.length >= 8 && data.readUInt32BE(0) === 0xd0cf11e0) throw new UnreadableWorkbook('it is an older Excel file (.xls) or has a password to open it');
    let end = -1;
    for (let at = data.length - 22; at >= Math.max(0, data.length - 22 - 0xffff); at--) {
      if (data.readUInt32LE(at) === 0x06054b50) {
        end = at;
        break;
      }
    }
    if (end < 0) throw new UnreadableWorkbook('it is not a zip file, as every .xlsx is');
    let count = data.readUInt16LE(end + 10);
    let at = data.readUInt32LE(end + 16);
    // Zip64: the counts and offsets are in a record that a locator just before the end points to.
    if ((count === 0xffff || at === 0xffffffff) && end >= 20 && data.readUInt32LE(end - 20) === 0x07064b50) {
      const record = this.offset(data.readBigUInt64LE(end - 12));
      if (record + 56 > data.length || data.readUInt32LE(record) !== 0x06064b50) throw damagedDirectory();
      count = this.offset(data.readBigUInt64LE(record + 32));
      at = this.offset(data.readBigUInt64LE(record + 48));
    }
    if (count > bounds.parts) {
      throw new OversizedWorkbook(`The workbook has ${count.toLocaleString('en')} parts; a workbook has a few hundred, and a consumption file at most ${bounds.parts.toLocaleString('en')}. ${SAVE_ALONE}`);
    }
    for (let index = 0; index < count; index++) {
      if (at + 46 > data.length || data.readUInt32LE(at) !== 0x02014b50) throw damagedDirectory();
      const nameLength = data.readUInt16LE(at + 28);
      const extraLength = data.readUInt16LE(at + 30);
      const entry: Entry = {
        name: data.toString('utf8', at + 46, Math.min(data.length, at + 46 + nameLength)),
        method: data.readUInt16LE(at + 10),
        crc: data.readUInt32LE(at + 16),
        compressedSize: data.readUInt32LE(at + 20),
        size: data.readUInt32LE(at + 24),
        localHeader: data.readUInt32LE(at + 42),
      };
      this.zip64(entry, data.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength));
      const key = entry.name.toLowerCase();
      if (this.entries.has(key)) throw new UnreadableWorkbook(`its zip directory lists the part ${quoted(entry.name)} twice`);
      this.entries.set(key, entry);
      at += 46 + nameLength + extraLength + data.readUInt16LE(at + 32);
    }
  }

  /** Part names are case-insensitive in a workbook. */
  has(name: string): boolean {
    return this.entries.has(name.toLowerCase());
  }

  /**
   * The part's bytes unpacked, as a stream: refused past `cap` (with the `tooLarge` sentence), past the reader's
   * total, and as damaged past its stated size or when its size or checksum do not match at the end.
   */
  async *unpack(name: string, cap: number, tooLarge: string): AsyncGenerator<Buffer> {
    const entry = this.entries.get(name.toLowerCase());
    if (!entry) throw new UnreadableWorkbook(`it has no part ${quoted(name)}`);
    const { data } = this;
    const local = entry.localHeader;
    const part = `its part ${quoted(entry.name)}`;
    if (local + 30 > data.length || data.readUInt32LE(local) !== 0x04034b50 || data.toString('utf8', local + 30, local + 30 + data.readUInt16LE(local + 26)) !== entry.name) throw new UnreadableWorkbook(`${part} is not where its zip directory says`);
    const start = local + 30 + data.readUInt16LE(local + 26) + data.readUInt16LE(local + 28);
    if (start + entry.compressedSize > data.length) throw new UnreadableWorkbook(`${part} is cut short`);
    if (entry.method !== 0 && entry.method !== 8) throw new UnreadableWorkbook(`${part} is compressed in a way Excel never uses`);
    const stored = data.subarray(start, start + entry.compressedSize);
    const inflate = entry.method === 8 ? createInflateRaw({ chunkSize: CHUNK_BYTES }) : null;
    let unpacked = 0;
    let crc = 0;
    try {
      // zlib inflates in its thread pool, a chunk at a time as they are read: never all at once, never blocking.
      inflate?.end(stored);
      for await (const chunk of inflate ?? slices(stored)) {
        const bytes = chunk as Buffer;
        unpacked += bytes.length;
        this.unpacked += bytes.length;
        if (unpacked > entry.size) throw new UnreadableWorkbook(`${part} unpacks to more than the ${entry.size.toLocaleString('en')} bytes its zip directory states`);
        if (unpacked > cap) throw new OversizedWorkbook(tooLarge);
        if (this.unpacked > this.bounds.totalBytes) {
          throw new OversizedWorkbook(`The parts of the workbook that Closebook reads unpack to more than ${size(this.bounds.totalBytes)}, more than a consumption file can be. ${SAVE_ALONE}`);
        }
        crc = crc32(bytes, crc);
        yield bytes;
      }
    } catch (error) {
      if (error instanceof UnreadableWorkbook || error instanceof OversizedWorkbook) throw error;
      throw new UnreadableWorkbook(`${part} does not unpack (its compressed data is damaged)`);
    } finally {
      inflate?.destroy();
    }
    if (unpacked !== entry.size) throw new UnreadableWorkbook(`${part} unpacks to ${unpacked.toLocaleString('en')} bytes, not the ${entry.size.toLocaleString('en')} its zip directory states`);
    if (crc !== entry.crc) throw new UnreadableWorkbook(`${part} does not match its checksum`);
  }

  private offset(value: bigint): number {
    if (value > BigInt(this.data.length)) throw damagedDirectory();
    return Number(value);
  }

  /** Sizes and offsets too large for their 4 bytes are in a zip64 extra field, in this order. */
  private zip64(entry: Entry, extra: Buffer): void {
    const wide = (['size', 'compressedSize', 'localHeader'] as const).filter((field) => entry[field] === 0xffffffff);
    if (!wide.length) return;
    for (let at = 0; at + 4 <= extra.length; at += 4 + extra.readUInt16LE(at + 2)) {
      if (extra.readUInt16LE(at) !== 0x0001) continue;
      wide.forEach((field, index) => {
        const value = at + 12 + index * 8 <= extra.length ? extra.readBigUInt64LE(at + 4 + index * 8) : BigInt(Number.MAX_SAFE_INTEGER);
        entry[field] = value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
      });
    }
  }
}
