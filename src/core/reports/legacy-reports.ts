import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type ReportListing, ReportMeta } from '@shared/schemas/saved-report';
import { readJsonFile } from '../storage/atomic-file';
import { errorMessage } from '@shared/error-message';

/**
 * Reports saved by Closebook before the ledger: a pair of files each in `reports/` — `<id>.report.json` (the whole
 * report) and `<id>.meta.json` (its summary, written last, so a meta file meant a complete report). Read once to
 * move them into the ledger; afterwards the pair is kept in `reports/migrated/`.
 */
export class LegacyReports {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'reports');
  }

  reportPath(id: string): string {
    return join(this.dir, `${id}.report.json`);
  }

  metaPath(id: string): string {
    return join(this.dir, `${id}.meta.json`);
  }

  /** Every pair still waiting in `reports/`; a damaged one is listed with its reason, the others are untouched. */
  async list(): Promise<ReportListing[]> {
    let files: string[];
    try {
      files = await readdir(this.dir);
    } catch {
      return [];
    }
    const ids = new Set(files.filter((file) => /\.(report|meta)\.json$/.test(file)).map((file) => file.replace(/\.(report|meta)\.json$/, '')));
    const listings: ReportListing[] = [];
    for (const id of ids) {
      if (!files.includes(`${id}.meta.json`)) {
        listings.push({ state: 'damaged', id, file: this.reportPath(id), reason: 'Its summary file is missing, so it may not have been saved completely.' });
        continue;
      }
      if (!files.includes(`${id}.report.json`)) {
        listings.push({ state: 'damaged', id, file: this.metaPath(id), reason: 'Its report file is missing.' });
        continue;
      }
      try {
        const meta = await readJsonFile(this.metaPath(id), ReportMeta);
        if (meta) listings.push({ state: 'ok', meta });
      } catch (error) {
        listings.push({ state: 'damaged', id, file: this.metaPath(id), reason: errorMessage(error) });
      }
    }
    return listings;
  }

  /** Removes a pair that could not be migrated (the user chose to delete it). */
  async remove(id: string): Promise<void> {
    await rm(this.reportPath(id), { force: true });
    await rm(this.metaPath(id), { force: true });
  }

  /** Moves a migrated pair out of the way, into `reports/migrated/` (kept, never deleted). */
  async retire(id: string): Promise<void> {
    const kept = join(this.dir, 'migrated');
    await mkdir(kept, { recursive: true, mode: 0o700 });
    await rename(this.reportPath(id), join(kept, `${id}.report.json`));
    await rename(this.metaPath(id), join(kept, `${id}.meta.json`));
  }
}
