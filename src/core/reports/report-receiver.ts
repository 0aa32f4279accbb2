import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { AppError } from '@shared/errors';
import type { ReportJob } from '@shared/schemas/saved-report';
import type { Ledger } from '../ledger/ledger';
import type { RetryNotice, ServiceClient } from '../service-api/service-client';
import { type IngestOutcome, ingestReport } from './report-ingest';
import { reportOfJob } from './queries/library';
import type { NameOrder } from '@shared/model/name-order';

/** Where the report bodies are kept as received (compressed), for audit and to share. */
export const RECEIVED_DIR = 'received';

export type ReceiveOutcome = { complete: false; status: number } | { complete: true; reportId: string; lines: number };

/** Writes a stream to `path` compressed, through a temporary file: the file exists only once complete. */
export async function writeCompressed(body: AsyncIterable<Uint8Array | string>, path: string): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
  const partial = `${path}.part`;
  try {
    await pipeline(Readable.from(body), createGzip({ level: 4 }), createWriteStream(partial, { mode: 0o600 }));
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}

/** How often a download tells how far it got: every this many bytes. */
const BYTES_PER_PROGRESS = 2 * 1024 * 1024;

/** The body as it is, telling `onBytes` the running total now and then. */
async function* counted(body: AsyncIterable<Uint8Array>, onBytes: ((bytes: number) => void) | undefined): AsyncGenerator<Uint8Array> {
  let bytes = 0;
  let told = 0;
  for await (const chunk of body) {
    bytes += chunk.byteLength;
    if (onBytes && bytes - told >= BYTES_PER_PROGRESS) onBytes((told = bytes));
    yield chunk;
  }
}

/** A compressed file's content; `onRead` is told how many of the file's (compressed) bytes have been read. */
export function readCompressed(path: string, onRead?: (bytes: number) => void): AsyncIterable<Uint8Array> {
  const file = createReadStream(path);
  if (onRead) {
    let read = 0;
    file.on('data', (chunk) => onRead((read += chunk.length)));
  }
  return file.pipe(createGunzip());
}

/**
 * Takes one poll's answer from the service into the ledger: the body is streamed to `received/<job>.json.gz`
 * (never held whole), then ingested from there in one transaction. A job that crashed after the body arrived
 * ingests the kept file instead of asking again; one that crashed after saving finds its report by job id.
 */
export class ReportReceiver {
  constructor(
    private readonly dataDir: string,
    private readonly ledger: () => Promise<Ledger>,
    private readonly name: (job: ReportJob) => string,
    private readonly now: () => number,
    /** The order the profile's months sort names in: a month is ranked in it as it is saved. */
    private readonly nameOrder: (profileId: string) => Promise<NameOrder>,
  ) {}

  fileOf(jobId: string): string {
    return join(this.dataDir, RECEIVED_DIR, `${jobId}.json.gz`);
  }

  async receive(
    job: ReportJob,
    client: ServiceClient,
    options: {
      signal: AbortSignal;
      onRetry: (notice: RetryNotice) => void;
      /** The least wait before the report's address is asked again after a failure: the poll interval. */
      spacedMs: number;
      /** Billing lines saved so far, and how much of the received file that is (its line count is not known ahead). */
      onSaving: (lines: number, percent: number) => void;
      /** Bytes received so far, of the body's length when the service said it. */
      onDownloading?: (bytes: number, totalBytes: number | null) => void;
    },
  ): Promise<ReceiveOutcome> {
    const ledger = await this.ledger();
    const saved = await reportOfJob(ledger, job.id);
    if (saved) return { complete: true, ...saved };
    const file = this.fileOf(job.id);
    if (!(await stat(file).catch(() => null))) {
      try {
        await client.download({
          target: job.location,
          what: 'the billing report',
          signal: options.signal,
          onRetry: options.onRetry,
          spacedMs: options.spacedMs,
          into: (body, info) => writeCompressed(counted(body, options.onDownloading && ((bytes) => options.onDownloading?.(bytes, info.bytes))), file),
        });
      } catch (error) {
        if (error instanceof AppError && error.code === 'not-found') {
          throw new AppError(
            'not-found',
            'The service no longer has this report: its address answers that nothing is there (HTTP 404 or 410). Request the month again.',
          );
        }
        throw error;
      }
    }
    const reportId = randomUUID();
    const size = (await stat(file)).size;
    let read = 0;
    let outcome: IngestOutcome;
    try {
      outcome = await ingestReport(
        ledger,
        {
          reportId,
          jobId: job.id,
          name: this.name(job),
          profileId: job.profileId,
          profileName: job.profileName,
          host: new URL(client.connection.baseUrl).host,
          resellerId: client.connection.resellerId,
          period: job.period,
          fetchedAt: new Date(this.now()).toISOString(),
          source: 'service',
          sourceFile: `${RECEIVED_DIR}/${job.id}.json.gz`,
          nameOrder: await this.nameOrder(job.profileId),
        },
        readCompressed(file, (bytes) => (read = bytes)),
        // The file is read ahead of the lines saved; 100 % is for when the report is in.
        (lines) => options.onSaving(lines, Math.min(99, Math.floor((read / Math.max(1, size)) * 100))),
      );
    } catch (error) {
      // An unreadable body is not kept as if it were the report; the next try asks the service again.
      if (error instanceof AppError && error.code === 'bad-response') await rm(file, { force: true });
      throw error;
    }
    if (!outcome.complete) {
      await rm(file, { force: true });
      return outcome;
    }
    return { complete: true, reportId, lines: outcome.lines };
  }
}
