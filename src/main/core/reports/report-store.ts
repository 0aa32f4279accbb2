import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../../shared/errors';
import { type ReportListing, ReportMeta, SavedReport } from '../../../shared/schemas/saved-report';
import { readJsonFile, SerialQueue, writeJsonAtomic } from '../platform/atomic-file';

/**
 * Saved reports, one pair of files each in `reports/`: `<id>.report.json` (the whole report, self-contained, also
 * the file shared with colleagues) and `<id>.meta.json` (what the list needs, so listing never reads big files).
 * The report is written first and the meta last, so a meta file means a complete report.
 */
export class ReportStore {
  readonly dir: string;
  private readonly queue = new SerialQueue();

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'reports');
  }

  private reportPath(id: string) {
    return join(this.dir, `${id}.report.json`);
  }

  private metaPath(id: string) {
    return join(this.dir, `${id}.meta.json`);
  }

  save(report: SavedReport): Promise<void> {
    return this.queue.run(async () => {
      await writeJsonAtomic(this.reportPath(report.meta.id), report, { compact: true });
      await writeJsonAtomic(this.metaPath(report.meta.id), report.meta);
    });
  }

  /** Every report, newest first; a damaged one is listed with its reason and the others are untouched. */
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
        listings.push({ state: 'damaged', id, file: this.metaPath(id), reason: error instanceof Error ? error.message : String(error) });
      }
    }
    return listings.sort((a, b) => (b.state === 'ok' ? b.meta.fetchedAt : '').localeCompare(a.state === 'ok' ? a.meta.fetchedAt : ''));
  }

  async meta(id: string): Promise<ReportMeta> {
    const meta = await readJsonFile(this.metaPath(id), ReportMeta);
    if (!meta) throw new AppError('not-found', 'That saved report no longer exists.');
    return meta;
  }

  /** The whole report, validated; the list's meta (which carries renames) wins over the copy inside the file. */
  async open(id: string): Promise<SavedReport> {
    const meta = await this.meta(id);
    const report = await readJsonFile(this.reportPath(id), SavedReport);
    if (!report) throw new AppError('not-found', 'The report file of that saved report is missing.');
    return { meta, entries: report.entries };
  }

  rename(id: string, name: string): Promise<ReportMeta> {
    return this.queue.run(async () => {
      const meta = { ...(await this.meta(id)), name };
      await writeJsonAtomic(this.metaPath(id), meta);
      return meta;
    });
  }

  /** Removes both files (a damaged pair too). */
  delete(id: string): Promise<void> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return Promise.reject(new AppError('validation', 'That is not a saved report id.'));
    return this.queue.run(async () => {
      await rm(this.metaPath(id), { force: true });
      await rm(this.reportPath(id), { force: true });
    });
  }
}
