import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { createGunzip } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { AppError, describeIssue } from '../../../shared/errors';
import { ReportMeta } from '../../../shared/schemas/saved-report';
import type { Ledger } from '../ledger/ledger';
import { ingestReport } from './report-ingest';

/** A file starts with gzip's magic bytes when it was shared compressed. */
async function isGzip(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/**
 * Takes a report file from a colleague (`.closebook-report.json.gz`, or the plain JSON earlier versions shared),
 * streamed through the same checks as a fetched report. Counts and totals are recomputed from its lines rather
 * than trusted, and it gets a new id, so it never replaces a report already saved.
 */
export async function importReportFile(ledger: Ledger, path: string, importedAt: string): Promise<string> {
  const fileName = basename(path);
  let source: AsyncIterable<Uint8Array>;
  try {
    source = (await isGzip(path)) ? createReadStream(path).pipe(createGunzip()) : createReadStream(path);
  } catch (error) {
    throw new AppError('validation', `${fileName} could not be read (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
  }
  const reportId = randomUUID();
  try {
    await ingestReport(
      ledger,
      {
        reportId,
        fromFile: (shell) => {
          const meta = ReportMeta.safeParse(shell.meta);
          if (!shell.saved || !meta.success) {
            const why = meta.success ? 'it has no billing entries' : `its summary is not readable (at ${describeIssue(meta.error).where}: ${describeIssue(meta.error).message})`;
            throw new AppError('validation', `${fileName} is not a Closebook report file: ${why}.`);
          }
          const { name, profileId, profileName, host, period, fetchedAt } = meta.data;
          return { reportId, jobId: null, name, profileId, profileName, host, resellerId: '', period, fetchedAt: fetchedAt || importedAt, source: 'import', sourceFile: null };
        },
      },
      source,
    );
  } catch (error) {
    if (error instanceof AppError && error.code === 'bad-response') throw new AppError('validation', error.message.replace('The service sent a billing report', `${fileName} holds a report`).replace(/The billing report is not readable JSON/, `${fileName} is not readable JSON`));
    if (error instanceof AppError) throw error;
    throw new AppError('validation', `${fileName} could not be read as a report file (${error instanceof Error ? error.message : String(error)}).`);
  }
  return reportId;
}
