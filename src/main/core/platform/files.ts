import type { FileResult } from '../../../shared/contract';
import type { Ports } from './ports';

const MIME = {
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  json: 'application/json',
  csv: 'text/csv',
} as const;

/** A file name any OS accepts: no path separators or reserved characters. */
export function safeFileName(name: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what must go
  return name.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '-').replace(/\s+/g, ' ').trim().slice(0, 150) || 'Closebook';
}

/** Hands a produced file to the host: a save dialog where there is one (desktop), else a download for the page. */
export async function deliverFile(ports: Ports, fileName: string, bytes: Uint8Array, kind: keyof typeof MIME): Promise<FileResult> {
  const name = safeFileName(fileName);
  if (ports.saveFile) {
    const path = await ports.saveFile(name, bytes, kind);
    return path ? { kind: 'saved', path } : { kind: 'cancelled' };
  }
  return { kind: 'download', fileName: name, mimeType: MIME[kind], base64: Buffer.from(bytes).toString('base64') };
}
