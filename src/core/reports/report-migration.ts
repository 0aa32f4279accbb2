import { createReadStream } from 'node:fs';
import type { ReportListing } from '@shared/schemas/saved-report';
import { AppError } from '@shared/errors';
import type { Ledger } from '../ledger/ledger';
import type { Logger } from '../ports/ports';
import { LegacyReports } from './legacy-reports';
import { ingestReport } from './report-ingest';
import { isSaved } from './queries/library';

export interface MigrationOutcome {
  migrated: number;
  /** Pairs that could not be read: left in `reports/` and listed as damaged, with the reason. */
  damaged: ReportListing[];
}

/**
 * Moves reports saved before the ledger into it, keeping their ids, names and periods. Each report goes in one
 * transaction and only then are its files moved to `reports/migrated/`, so a crash part-way leaves every report
 * either in the ledger or still waiting (and a report already in the ledger is not added twice): running it
 * again carries on. Nothing is deleted.
 */
export async function migrateLegacyReports(
  dataDir: string,
  ledger: Ledger,
  log: Logger,
  onProgress?: (done: number, total: number) => void,
): Promise<MigrationOutcome> {
  const legacy = new LegacyReports(dataDir);
  const listings = await legacy.list();
  const waiting = listings.flatMap((listing) => (listing.state === 'ok' ? [listing.meta] : []));
  const damaged = listings.filter((listing) => listing.state === 'damaged');
  let migrated = 0;
  let processed = 0;
  for (const meta of waiting) {
    const present = await isSaved(ledger, meta.id);
    try {
      if (!present) {
        await ingestReport(
          ledger,
          {
            reportId: meta.id,
            jobId: null,
            name: meta.name,
            profileId: meta.profileId,
            profileName: meta.profileName,
            host: meta.host,
            resellerId: '',
            period: meta.period,
            fetchedAt: meta.fetchedAt,
            source: 'migrated',
            sourceFile: `reports/migrated/${meta.id}.report.json`,
          },
          createReadStream(legacy.reportPath(meta.id)),
        );
      }
      await legacy.retire(meta.id);
      migrated++;
      log.info('moved a saved report into the ledger', { id: meta.id });
    } catch (error) {
      const reason = error instanceof AppError ? error.message : String(error);
      damaged.push({ state: 'damaged', id: meta.id, file: legacy.reportPath(meta.id), reason: `It could not be moved into the ledger: ${reason}` });
    }
    onProgress?.(++processed, waiting.length);
  }
  return { migrated, damaged };
}
