import { constants, crc32, deflateRawSync } from 'node:zlib';

const MB = 1024 * 1024;

/**
 * Hostile .xlsx files for the consumption import's fault tests: zips written by hand, so that their parts can
 * unpack to gigabytes from a few megabytes (deflate blocks repeated), state sizes that lie, or hold XML no
 * spreadsheet writes. Each is a complete workbook around its one trouble.
 */

/** A zip part: plain content, or deflate output with the size it unpacks to; `statedSize` and `crc` may lie. */
export interface ZipPart {
  name: string;
  content?: string | Buffer;
  /** Kept uncompressed (method 0), as some writers keep small parts. */
  stored?: boolean;
  deflated?: { data: Buffer; size: number; crc?: number };
  statedSize?: number;
  crc?: number;
}

/** A zip of the parts (no zip64: at most 65,535 parts, sizes below 4 GB). */
export function zipOf(parts: ZipPart[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name);
    const plain = part.content === undefined ? undefined : Buffer.from(part.content);
    const data = part.deflated?.data ?? (part.stored ? (plain ?? Buffer.alloc(0)) : deflateRawSync(plain ?? Buffer.alloc(0), { level: 1 }));
    const size = part.statedSize ?? part.deflated?.size ?? plain?.length ?? 0;
    // A bomb's checksum is left 0: computing it over gigabytes would take longer than the test, and the reader
    // must refuse the part before it reaches its end, where the checksum is compared.
    const crc = part.crc ?? part.deflated?.crc ?? (plain ? crc32(plain) : 0);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(0x0800, 6);
    header.writeUInt16LE(part.stored ? 0 : 8, 8);
    header.writeUInt32LE(0x00210000, 10);
    header.writeUInt32LE(crc >>> 0, 14);
    header.writeUInt32LE(data.length, 18);
    header.writeUInt32LE(size % 2 ** 32, 22);
    header.writeUInt16LE(name.length, 26);
    locals.push(header, name, data);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    header.copy(entry, 8, 6, 28);
    entry.writeUInt32LE(offset, 42);
    central.push(entry, name);
    offset += header.length + name.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * Deflate output for `head`, then `unit` repeated, then `tail`: about `size.deflated` bytes of output, or what
 * unpacks to about `size.inflated` bytes. Each megabyte of units is compressed once and its blocks repeated (a full
 * flush makes them independent), so a 10 MB part unpacks to gigabytes without this machine ever holding them.
 */
export function repeated(
  head: string,
  unit: string,
  tail: string,
  size: { deflated: number } | { inflated: number },
): { data: Buffer; size: number; crc?: number } {
  const flushed = (text: string) => deflateRawSync(Buffer.from(text), { finishFlush: constants.Z_FULL_FLUSH });
  const block = unit.repeat(Math.max(1, Math.floor((1024 * 1024) / Buffer.byteLength(unit))));
  const start = flushed(head);
  const middle = flushed(block);
  const end = deflateRawSync(Buffer.from(tail));
  const blocks =
    'deflated' in size
      ? (size.deflated - start.length - end.length) / middle.length
      : (size.inflated - Buffer.byteLength(head) - Buffer.byteLength(tail)) / Buffer.byteLength(block);
  const times = Math.max(1, Math.round(blocks));
  const inflated = Buffer.byteLength(head) + times * Buffer.byteLength(block) + Buffer.byteLength(tail);
  // The checksum of what unpacks to a few hundred megabytes, which a reader may read whole; a bomb's is left 0.
  let crc: number | undefined;
  if (inflated < 256 * MB) {
    const blockBytes = Buffer.from(block);
    crc = crc32(head);
    for (let time = 0; time < times; time++) crc = crc32(blockBytes, crc);
    crc = crc32(tail, crc);
  }
  return { data: Buffer.concat([start, ...Array.from({ length: times }, () => middle), end]), size: inflated, crc };
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const TYPE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/** The start of a sheet with the consumption header in row 1 (shared strings 0 and 1 when `shared`, else inline). */
export function sheetHead(shared: boolean): string {
  const cell = (ref: string, index: number, text: string) =>
    shared ? `<c r="${ref}" t="s"><v>${index}</v></c>` : `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
  return `${XML}<worksheet xmlns="${MAIN}"><sheetData><row r="1">${cell('A1', 0, 'Subscription ID')}${cell('B1', 1, 'Quantity')}</row>`;
}
export const SHEET_TAIL = '</sheetData></worksheet>';
export const SHARED_HEAD = `${XML}<sst xmlns="${MAIN}"><si><t>Subscription ID</t></si><si><t>Quantity</t></si>`;
export const SHARED_TAIL = '</sst>';

/** A workbook of one sheet "Consumption" (and shared strings when given), with `extra` parts after them. */
export function workbookOf(sheet: Omit<ZipPart, 'name'>, shared?: Omit<ZipPart, 'name'>, extra: ZipPart[] = []): Buffer {
  const sharedRel = shared ? `<Relationship Id="rId2" Type="${TYPE}/sharedStrings" Target="sharedStrings.xml"/>` : '';
  return zipOf([
    {
      name: '[Content_Types].xml',
      content: `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>${shared ? '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>' : ''}</Types>`,
    },
    {
      name: '_rels/.rels',
      content: `${XML}<Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${TYPE}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    },
    {
      name: 'xl/workbook.xml',
      content: `${XML}<workbook xmlns="${MAIN}" xmlns:r="${TYPE}"><sheets><sheet name="Consumption" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      content: `${XML}<Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${TYPE}/worksheet" Target="worksheets/sheet1.xml"/>${sharedRel}</Relationships>`,
    },
    ...(shared ? [{ name: 'xl/sharedStrings.xml', ...shared }] : []),
    { name: 'xl/worksheets/sheet1.xml', ...sheet },
    ...extra,
  ]);
}

const SUB = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

/** One hostile workbook: its name, what is wrong with it, its bytes, and what its refusal says (null: it is read). */
export interface HostileWorkbook {
  name: string;
  what: string;
  bytes: Buffer;
  refusal: RegExp | null;
}

/**
 * The hostile workbooks, `megabytes` each where their size is the point (the findings: 3.3 MB of shared strings
 * took 1.8 GB, 10.8 MB killed the process, an 18 MB zip blocked the main thread for over 300 s).
 */
export function hostileWorkbooks(megabytes = 10): HostileWorkbook[] {
  const deflated = { deflated: megabytes * MB };
  const sheet = (body: string) => ({ content: `${sheetHead(true)}${body}${SHEET_TAIL}` });
  const shared = (body: string) => ({ content: `${SHARED_HEAD}${body}${SHARED_TAIL}` });
  const oneRow = sheet(`<row r="2"><c r="A2" t="inlineStr"><is><t>${SUB}</t></is></c><c r="B2"><v>1</v></c></row>`);
  const image = repeated('', '\u0000'.repeat(1024), '', { inflated: 64 * MB });
  const bigParts = Math.round((megabytes * MB) / image.data.length);
  return [
    {
      name: 'tiny-shared-strings.xlsx',
      what: `millions of one-letter shared strings (${megabytes} MB unpacking to gigabytes)`,
      bytes: workbookOf(oneRow, { deflated: repeated(SHARED_HEAD, '<si><t>a</t></si>', SHARED_TAIL, deflated) }),
      refusal: /^The workbook's shared text has more than 2,000,000 pieces/,
    },
    {
      name: 'long-shared-strings.xlsx',
      what: 'half a million shared strings of 100 characters (72 MB unpacked)',
      bytes: workbookOf(oneRow, { deflated: repeated(SHARED_HEAD, `<si><t>${'x'.repeat(100)}</t></si>`, SHARED_TAIL, { inflated: 72 * MB }) }),
      refusal: /^The workbook's shared text is larger than a consumption file can be \(more than 64 MB unpacked\)/,
    },
    {
      name: 'huge-shared-strings.xlsx',
      what: `shared strings of gigabytes each (${megabytes} MB)`,
      bytes: workbookOf(oneRow, { deflated: repeated(`${SHARED_HEAD}<si><t>`, 'x'.repeat(1024), `</t></si>${SHARED_TAIL}`, deflated) }),
      refusal: /^The workbook's shared text holds more than 256 KB of text in one piece/,
    },
    {
      name: 'empty-rows.xlsx',
      what: `a sheet of empty rows unpacking to gigabytes (${megabytes} MB)`,
      bytes: workbookOf({ deflated: repeated(sheetHead(true), '<row/>', SHEET_TAIL, deflated) }, shared('')),
      refusal: /^The sheet "Consumption" is larger than a consumption file can be \(more than 8,000,000 cells, rows and other pieces read\)/,
    },
    {
      name: 'long-sheet.xlsx',
      what: 'a sheet with 100 MB after its cells',
      bytes: workbookOf(
        { deflated: repeated(`${sheetHead(true)}</sheetData>`, `<extLst>${'x'.repeat(1000)}</extLst>`, '</worksheet>', { inflated: 100 * MB }) },
        shared(''),
      ),
      refusal: /^The sheet "Consumption" is larger than a consumption file can be \(more than 96 MB unpacked\)/,
    },
    {
      name: 'past-the-total.xlsx',
      what: '60 MB of shared strings and 70 MB of sheet, each within its own bound',
      bytes: workbookOf(
        { deflated: repeated(`${sheetHead(true)}</sheetData>`, `<extLst>${'x'.repeat(1000)}</extLst>`, '</worksheet>', { inflated: 70 * MB }) },
        { deflated: repeated(SHARED_HEAD, `<si><t>${'x'.repeat(100)}</t></si>`, SHARED_TAIL, { inflated: 60 * MB }) },
      ),
      refusal: /^The parts of the workbook that Closebook reads unpack to more than 128 MB/,
    },
    {
      name: 'enormous-cell.xlsx',
      what: `one cell of gigabytes of text (${megabytes} MB)`,
      bytes: workbookOf(
        { deflated: repeated(`${sheetHead(true)}<row r="2"><c r="A2" t="inlineStr"><is><t>`, 'z'.repeat(1024), `</t></is></c></row>${SHEET_TAIL}`, deflated) },
        shared(''),
      ),
      refusal: /^The sheet "Consumption" holds more than 256 KB of text in one piece/,
    },
    {
      name: 'many-attributes.xlsx',
      what: `a tag with millions of attributes (${megabytes} MB)`,
      bytes: workbookOf(
        {
          deflated: repeated(
            `${sheetHead(true)}<row r="2"`,
            Array.from({ length: 100_000 }, (_, index) => ` a${index}=""`).join(''),
            `/>${SHEET_TAIL}`,
            deflated,
          ),
        },
        shared(''),
      ),
      refusal: /^The sheet "Consumption" holds more than 256 KB of text in one piece/,
    },
    {
      name: 'deep.xlsx',
      what: `elements nested millions of levels deep (${megabytes} MB)`,
      bytes: workbookOf({ deflated: repeated(`${sheetHead(true)}<row r="2">`, '<x>', `</row>${SHEET_TAIL}`, deflated) }, shared('')),
      refusal: /not a readable Excel workbook \(\.xlsx\): its part "xl\/worksheets\/sheet1\.xml" is nested more than 64 levels deep/,
    },
    {
      name: 'lying-size.xlsx',
      what: `a sheet that states 1 KB and unpacks to gigabytes (${megabytes} MB)`,
      bytes: workbookOf({ deflated: repeated(sheetHead(true), '<row/>', SHEET_TAIL, deflated), statedSize: 1024 }, shared('')),
      refusal: /not a readable Excel workbook \(\.xlsx\): its part "xl\/worksheets\/sheet1\.xml" unpacks to more than the 1,024 bytes its zip directory states/,
    },
    {
      name: 'many-big-parts.xlsx',
      what: `a valid sheet beside ${bigParts.toLocaleString('en')} parts of 64 MB each, never read (${megabytes} MB)`,
      bytes: workbookOf(
        oneRow,
        shared(''),
        Array.from({ length: bigParts }, (_, index) => ({ name: `xl/media/image${index + 1}.png`, deflated: image })),
      ),
      refusal: null,
    },
    {
      name: 'far-column.xlsx',
      what: 'about 45,000 rows with a cell in the last column, XFD',
      bytes: workbookOf(
        {
          deflated: repeated(
            sheetHead(true).replace('r="B1"', 'r="XFD1"'),
            `<row><c r="A2" t="inlineStr"><is><t>${SUB}</t></is></c><c r="XFD2"><v>1</v></c></row>`,
            SHEET_TAIL,
            { inflated: 4 * MB },
          ),
        },
        shared(''),
      ),
      refusal: null,
    },
    {
      name: 'many-parts.xlsx',
      what: '12,000 parts',
      bytes: workbookOf(
        oneRow,
        shared(''),
        Array.from({ length: 12_000 }, (_, index) => ({ name: `xl/p${index}.xml`, content: '' })),
      ),
      refusal: /^The workbook has 12,006 parts; a workbook has a few hundred/,
    },
    {
      name: 'one-string-everywhere.xlsx',
      what: 'one shared string of 30,000 characters in 25 columns of 50,000 rows (37 billion characters as rows)',
      bytes: workbookOf(
        {
          deflated: repeated(
            sheetHead(true).replace(/<\/row>$/, `${Array.from({ length: 23 }, (_, column) => `<c t="s"><v>${column + 3}</v></c>`).join('')}</row>`),
            `<row>${'<c t="s"><v>2</v></c>'.repeat(25)}</row>`,
            SHEET_TAIL,
            { inflated: 30 * MB },
          ),
        },
        shared(`<si><t>${'w'.repeat(30_000)}</t></si>${Array.from({ length: 23 }, (_, column) => `<si><t>Own ${column + 1}</t></si>`).join('')}`),
      ),
      refusal: /^The sheet "Consumption" holds more text than a consumption batch can/,
    },
    {
      name: 'entities.xlsx',
      what: 'a document type declaring entities that expand (billion laughs)',
      bytes: workbookOf(
        {
          content: `${XML}<!DOCTYPE worksheet [<!ENTITY a "${'a'.repeat(100)}"><!ENTITY b "${'&a;'.repeat(10)}"><!ENTITY c "${'&b;'.repeat(10)}">]>${sheetHead(true).slice(XML.length)}<row r="2"><c r="A2" t="inlineStr"><is><t>&c;</t></is></c></row>${SHEET_TAIL}`,
        },
        shared(''),
      ),
      refusal: /not a readable Excel workbook \(\.xlsx\): its part "xl\/worksheets\/sheet1\.xml" declares a document type/,
    },
    {
      name: 'past-the-last-column.xlsx',
      what: 'a cell past column XFD',
      bytes: workbookOf(sheet(`<row r="2"><c r="A2" t="inlineStr"><is><t>${SUB}</t></is></c><c r="ZZZZZZZ2"><v>1</v></c></row>`), shared('')),
      refusal: /not a readable Excel workbook \(\.xlsx\): the cell reference "ZZZZZZZ2" is not a cell/,
    },
  ];
}

/**
 * A real month at full width, as Excel writes it: MAX_ROWS (50,000) rows of the 5 fields and 20 of the user's own
 * columns, every own cell a different text (a million shared strings) — what the bounds must still let through.
 */
export function fullMonthWorkbook(rows = 50_000): Buffer {
  const columns = ['Subscription ID', 'Is add-on', 'Add-on ID', 'Quantity', 'Consumption ID', ...Array.from({ length: 20 }, (_, index) => `Own ${index + 1}`)];
  const letters = (index: number) => (index < 26 ? String.fromCharCode(65 + index) : `A${String.fromCharCode(65 + index - 26)}`);
  const strings: string[] = [...columns, 'no'];
  const cell = (ref: string, text: string) => `<c r="${ref}" s="1" t="s"><v>${strings.push(text) - 1}</v></c>`;
  const sheet: string[] = [
    `${XML}<worksheet xmlns="${MAIN}"><sheetData><row r="1">${columns.map((_, index) => `<c r="${letters(index)}1" t="s"><v>${index}</v></c>`).join('')}</row>`,
  ];
  for (let row = 2; row <= rows + 1; row++) {
    const id = `3f2504e0-4f89-41d3-9a0c-${row.toString(16).padStart(12, '0')}`;
    const own = Array.from({ length: 20 }, (_, index) => cell(`${letters(index + 5)}${row}`, `Customer ${row} note ${index}`)).join('');
    sheet.push(
      `<row r="${row}" spans="1:25">${cell(`A${row}`, id)}<c r="B${row}" t="s"><v>${columns.length}</v></c><c r="D${row}" s="2"><v>${(row % 400) / 4}</v></c>${own}</row>`,
    );
  }
  sheet.push(SHEET_TAIL);
  const shared = `${XML}<sst xmlns="${MAIN}" count="${strings.length}" uniqueCount="${strings.length}">${strings.map((text) => `<si><t>${text}</t></si>`).join('')}${SHARED_TAIL}`;
  return workbookOf({ content: sheet.join('') }, { content: shared });
}
