import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { createGunzip } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { AppError } from '@shared/errors';
import { ReportMeta } from '@shared/schemas/saved-report';
import type { ReportPeriod } from '@shared/schemas/billing-report';
import type { Ledger } from '../ledger/ledger';
import { plainIssue, plainIssues } from '../runtime/plain-issues';
import { ingestReport } from './report-ingest';
import { errorMessage } from '@shared/error-message';

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
 * The file's bytes, decompressed when it is gzip. The reader learns of every error by iterating; a damaged gzip
 * also emits its error a tick after the reader has seen it and let go, and with no listener left that crashed the
 * process — hence the quiet listeners. pipeline (not pipe) closes the file however reading ends.
 */
function fileContent(path: string, gzip: boolean): AsyncIterable<Uint8Array> {
  const file = createReadStream(path).on('error', () => undefined);
  return gzip
    ? pipeline(
        file,
        createGunzip().on('error', () => undefined),
        () => undefined,
      )
    : file;
}

/**
 * Where a shared file comes from when Closebook knows better than the file: the team ledger names the month's service
 * host and reseller (a file from a colleague has no reseller), and says where it came from in the list.
 */
export interface ReportOrigin {
  host: string;
  resellerId: string;
  /** The month the team ledger keeps these lines under (the file's own summary is not trusted for it). */
  period: ReportPeriod;
  importedFrom: string;
}

/**
 * Takes a report file from a colleague (`.closebook-report.json.gz`, or the plain JSON earlier versions shared),
 * streamed through the same checks as a fetched report. Counts and totals are recomputed from its lines rather
 * than trusted, and it gets a new id, so it never replaces a report already saved.
 */
export async function importReportFile(ledger: Ledger, path: string, importedAt: string, origin?: ReportOrigin): Promise<string> {
  const fileName = origin?.importedFrom ?? basename(path);
  let source: AsyncIterable<Uint8Array>;
  try {
    source = fileContent(path, await isGzip(path));
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
          const meta = ReportMeta.safeParse(shell.meta, { error: plainIssues });
          if (!shell.saved || !meta.success) {
            const why = meta.success
              ? 'it has no billing entries'
              : shell.meta === undefined
                ? 'it has no summary ("meta")'
                : `its summary is not readable (at ${plainIssue(meta.error).where}: ${plainIssue(meta.error).message})`;
            throw new AppError('validation', `${fileName} is not a Closebook report file: ${why}.`);
          }
          const { name, profileId, profileName, host, period, fetchedAt } = meta.data;
          return {
            reportId,
            jobId: null,
            name,
            profileId,
            profileName,
            host: origin?.host ?? host,
            resellerId: origin?.resellerId ?? '',
            period: origin?.period ?? period,
            fetchedAt: fetchedAt || importedAt,
            source: 'import',
            sourceFile: null,
            importedFrom: fileName,
          };
        },
      },
      source,
    );
  } catch (error) {
    if (error instanceof AppError && error.code === 'bad-response') throw new AppError('validation', aboutFile(error.message, fileName));
    if (error instanceof AppError) throw error;
    throw new AppError('validation', `${fileName} could not be read as a report file (${errorMessage(error)}).`);
  }
  return reportId;
}

/**
 * The reader speaks of "the service" and says to report a problem there; for a colleague's file the message names
 * the file and says what helps.
 */
function aboutFile(message: string, fileName: string): string {
  const problem = message
    .replace(/ Nothing was saved;.*$/, '')
    .replace(/^The service sent a billing report that Closebook cannot read: /, 'it holds a value Closebook cannot read: ')
    .replace(/^The service sent a billing report /, 'it holds a report ')
    .replace(/^The billing report /, 'it ')
    .replace('(the answer is empty)', '(the file is empty)')
    .replace(/\.$/, '');
  return `${fileName} could not be imported: ${problem}. Nothing was imported; ask for the file again.`;
}
