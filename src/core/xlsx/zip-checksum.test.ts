import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { Zip } from '../consumption/xlsx-zip';
import { type Crc32Package, useNativeZipChecksum, zipChecksumPackage } from './zip-checksum';

const BOUNDS = {
  parts: 100,
  listBytes: 1 << 30,
  sharedBytes: 1 << 30,
  sharedStrings: 1e6,
  sheetBytes: 1 << 30,
  totalBytes: 1 << 30,
  elements: 1e9,
  betweenTags: 1 << 30,
  depth: 100,
};

/** CRC-32 a bit at a time, as the zip format defines it, continued from `seed`; signed, as `crc-32` returns it. */
function referenceCrc(data: Uint8Array, seed: number): number {
  let crc = ~seed;
  for (const byte of data) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return ~crc | 0;
}

/** The `crc-32` module the zip's checksum stream loads; this install has one. */
function zipChecksumModule(): Required<Crc32Package> {
  const module = zipChecksumPackage();
  if (!module?.buf) throw new Error("The zip's checksum package was not found where archiver, under exceljs, loads it.");
  return module as Required<Crc32Package>;
}

describe("the zip's checksum of a workbook", () => {
  it("is zlib's CRC-32 in this install, and a workbook of many pieces still matches its checksums", async () => {
    expect(useNativeZipChecksum()).toBe(true);
    expect(useNativeZipChecksum()).toBe(true); // idempotent
    expect(zipChecksumModule().buf.native).toBe(true);

    const chunks: Buffer[] = [];
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: true, useSharedStrings: false });
    const sheet = workbook.addWorksheet('Lines');
    // Enough rows that the sheet reaches the zip in many writes, each continuing the checksum of the one before.
    for (let row = 1; row <= 20_000; row++) sheet.addRow([`Åkerberg & Söhne ${row}`, row * 1.25, '𝕮 cloud']).commit();
    sheet.commit();
    await workbook.commit();

    const zip = new Zip(Buffer.concat(chunks), BOUNDS);
    let bytes = 0;
    for await (const piece of zip.unpack('xl/worksheets/sheet1.xml', 1 << 30, 'too large')) bytes += piece.length;
    expect(bytes).toBeGreaterThan(1_000_000);
  });

  it('is the CRC-32 the zip format defines, continued from any seed', () => {
    useNativeZipChecksum();
    const { buf } = zipChecksumModule();
    const data = Buffer.from('<row r="7"><c r="A7" t="str"><v>Kühne &amp; Nagel</v></c></row>'.repeat(50));
    for (const seed of [0, 1, 0xdeadbeef >>> 0, 2 ** 31]) expect(buf(data, seed)).toBe(referenceCrc(data, seed));
    // crc32-stream's first seed is a four-byte buffer of zeros, which crc-32 reads as 0.
    expect(buf(data, Buffer.alloc(4) as unknown as number)).toBe(referenceCrc(data, 0));
  });
});
