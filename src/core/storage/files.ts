import type { FileResult } from '@shared/contract';
import { AppError } from '@shared/errors';
import { BIDI_CONTROLS } from '@shared/file-names';
import type { Ports } from '../ports/ports';
import { outputsFor } from './output-file';

/** The kinds of file Closebook hands out, with the type a browser is told. */
export const FILE_MIME_TYPES = {
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  csv: 'text/csv; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
  json: 'application/gzip',
  pdf: 'application/pdf',
  xml: 'application/xml',
} as const;
export type FileKind = keyof typeof FILE_MIME_TYPES;

/** A file name any OS accepts and shows as it is: no path separators, reserved characters or invisible controls. */
export function safeFileName(name: string): string {
  return (
    name
      .replace(BIDI_CONTROLS, '')
      // eslint-disable-next-line no-control-regex -- control characters are exactly what must go
      .replace(/[\\/:*?"<>|\u0000-\u001f\u007f]+/g, '-')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 150) || 'Closebook'
  );
}

/**
 * Hands a produced file to the user by path — never as bytes over IPC (a million-line workbook is ~100 MB): the
 * host picks where (the desktop's save dialog, or the bridge's download folder) and `write` writes it there,
 * through the staging folder (output-file.ts).
 */
export function deliverFile(ports: Ports, fileName: string, kind: FileKind, write: (path: string) => Promise<unknown>): Promise<FileResult> {
  if (!ports.deliver)
    throw new AppError(
      'internal',
      'This Closebook host cannot hand files to a user (it has no save dialog or download folder). Use the command line with --out.',
    );
  return ports.deliver(safeFileName(fileName), kind, async (path) => {
    await write(path);
  });
}

/** The same for a small file made in memory (a template, failed rows). */
export function deliverBytes(ports: Ports, fileName: string, kind: FileKind, bytes: Uint8Array): Promise<FileResult> {
  return deliverFile(ports, fileName, kind, (path) => outputsFor(ports.dataDir).writeBytes(path, bytes));
}
