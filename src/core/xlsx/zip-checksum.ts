import { createRequire } from 'node:module';
import { crc32 } from 'node:zlib';

/** The `crc-32` package as crc32-stream calls it: the CRC-32 of `data` continued from `seed`, as a signed 32-bit integer. */
export interface Crc32Package {
  buf?: ((data: Uint8Array, seed?: unknown) => number) & { native?: true };
}

/** exceljs zips with archiver, whose checksum stream (crc32-stream) reaches `crc-32` through this chain of packages. */
const PACKAGE_CHAIN = ['exceljs', 'archiver', 'zip-stream', 'compress-commons', 'crc32-stream', 'crc-32'];

/** The `crc-32` module the zip's checksum stream loads, or null where the packages are laid out otherwise. */
export function zipChecksumPackage(): Crc32Package | null {
  try {
    let load = createRequire(__filename);
    for (const name of PACKAGE_CHAIN.slice(0, -1)) load = createRequire(load.resolve(name));
    return load(PACKAGE_CHAIN.at(-1) as string) as Crc32Package;
  } catch {
    return null;
  }
}

/**
 * The zip's checksum of every byte of a workbook made by zlib's CRC-32 rather than `crc-32`'s JavaScript: the same
 * function (checked on a sample before it is swapped), 1.2 s a gigabyte on the main thread against 0.3 s, and a
 * 1,000,000-line workbook with its Changes is 1.7 GB of XML. crc32-stream's first seed is a four-byte buffer, which
 * `crc-32` reads as 0. Where the packages cannot be found or disagree, the workbook is written as before, only slower;
 * a test checks this install is swapped. Idempotent.
 */
export function useNativeZipChecksum(): boolean {
  const module = zipChecksumPackage();
  const javascript = module?.buf;
  if (!module || typeof javascript !== 'function') return false;
  if (javascript.native) return true;
  const native = Object.assign((data: Uint8Array, seed?: unknown) => crc32(data, typeof seed === 'number' ? seed >>> 0 : 0) | 0, { native: true as const });
  const sample = Buffer.from('<row r="1"><c r="A1" t="str"><v>Åkerberg &amp; Söhne</v></c></row>');
  const agree = [undefined, Buffer.alloc(4), 0, 0x7fffffff, -123456789].every((seed) => native(sample, seed) === javascript(sample, seed));
  if (agree) module.buf = native;
  return agree;
}
