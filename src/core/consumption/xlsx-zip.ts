import { createInflateRaw, crc32 } from 'node:zlib';
import { quoted } from '@shared/typed-number';
import { OversizedWorkbook, SAVE_ALONE, sizeText, UnreadableWorkbook, type XlsxBounds } from './xlsx-bounds';

/**
 * The zip directory reader of the workbook reader: where each part of an .xlsx is, and each part unpacked as a
 * stream off the main thread, checked against its stated size and checksum, and capped. Kept apart: it reads
 * the zip format, and nothing of what the parts hold.
 */

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
export class Zip {
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
      throw new OversizedWorkbook(
        `The workbook has ${count.toLocaleString('en')} parts; a workbook has a few hundred, and a consumption file at most ${bounds.parts.toLocaleString('en')}. ${SAVE_ALONE}`,
      );
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
    if (
      local + 30 > data.length ||
      data.readUInt32LE(local) !== 0x04034b50 ||
      data.toString('utf8', local + 30, local + 30 + data.readUInt16LE(local + 26)) !== entry.name
    )
      throw new UnreadableWorkbook(`${part} is not where its zip directory says`);
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
        if (unpacked > entry.size)
          throw new UnreadableWorkbook(`${part} unpacks to more than the ${entry.size.toLocaleString('en')} bytes its zip directory states`);
        if (unpacked > cap) throw new OversizedWorkbook(tooLarge);
        if (this.unpacked > this.bounds.totalBytes) {
          throw new OversizedWorkbook(
            `The parts of the workbook that Closebook reads unpack to more than ${sizeText(this.bounds.totalBytes)}, more than a consumption file can be. ${SAVE_ALONE}`,
          );
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
    if (unpacked !== entry.size)
      throw new UnreadableWorkbook(
        `${part} unpacks to ${unpacked.toLocaleString('en')} bytes, not the ${entry.size.toLocaleString('en')} its zip directory states`,
      );
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
