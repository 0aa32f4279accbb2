import { access, readdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { AppError } from '@shared/errors';
import { Submission, SubmissionSummary } from '@shared/schemas/consumption';
import { isGuid } from '@shared/schemas/common';
import { readJsonFile, writeJsonAtomic } from '../storage/atomic-file';
import { FileUpdates } from '../storage/file-lock';
import { type Logger, silentLogger } from '../ports/ports';
import { errorMessage } from '@shared/error-message';

/**
 * Consumption history, behind one interface so that moving it (say, into an embedded database) stays local to
 * the implementation. `summaries` is the cheap view (no rows, records or failures) for lists and repeat checks.
 */
export interface SubmissionStore {
  /** Every readable submission, whole; one that cannot be read is left out (and left on disk). */
  list(): Promise<Submission[]>;
  /** What a history list needs, without reading any submission file. */
  summaries(): Promise<SubmissionSummary[]>;
  /** Undefined when there is no such submission; a storage error naming the file when it is damaged. */
  get(id: string): Promise<Submission | undefined>;
  /** Saves a new submission or replaces one (a poll): one submission file and the index are rewritten. */
  put(submission: Submission): Promise<void>;
}

const INDEX_VERSION = 2;
const IndexFile = z.object({ version: z.literal(INDEX_VERSION), submissions: z.array(SubmissionSummary) });
/** What `JobStore` wrote up to version 1: the whole history in one file. */
const LegacyFile = z.object({ version: z.literal(1), jobs: z.array(Submission) });

export function summarize(submission: Submission): SubmissionSummary {
  const { rows: _rows, records, failures, ...rest } = submission;
  return { ...rest, recordCount: records.length, failureCount: failures.length };
}

/**
 * Files in `consumption/`: `<id>.json` holds one whole submission, `index.json` a summary of each. A poll rewrites
 * its own submission file, then the index; that order means an index entry always has its file. The index is only
 * derived data: when it is missing or damaged it is rebuilt from the submission files, and when it is stale (a crash
 * between the two writes) it is corrected the next time the whole list is read (at start-up, by `resumeAll`).
 * On first use the old single file `jobs/consumption-history.json` is imported and kept as `.migrated`.
 */
export class FileSubmissionStore implements SubmissionStore {
  readonly dir: string;
  private readonly indexPath: string;
  private readonly legacyPath: string;
  private readonly queue: FileUpdates;
  private opening: Promise<void> | null = null;

  constructor(
    dataDir: string,
    private readonly log: Logger = silentLogger,
  ) {
    this.dir = join(dataDir, 'consumption');
    this.indexPath = join(this.dir, 'index.json');
    this.queue = new FileUpdates(this.indexPath); // the CLI submits batches beside the app
    this.legacyPath = join(dataDir, 'jobs', 'consumption-history.json');
  }

  /** The index order with each file read; a damaged or missing file is skipped, and a stale entry corrected. */
  list(): Promise<Submission[]> {
    return this.locked(async () => {
      const entries = await this.readIndex();
      const read = await Promise.all(entries.map(async (entry) => ({ entry, result: await this.readQuietly(entry.id) })));
      const submissions = read.flatMap(({ result }) => (result === null || result === 'damaged' ? [] : [result]));
      const healed = read.flatMap(({ entry, result }) => {
        if (result === null) return []; // its file was removed by hand
        return result === 'damaged' ? [entry] : [summarize(result)]; // a damaged file keeps its last known summary
      });
      if (!isDeepStrictEqual(healed, entries)) await this.writeIndex(healed);
      return submissions;
    });
  }

  summaries(): Promise<SubmissionSummary[]> {
    return this.locked(() => this.readIndex());
  }

  async get(id: string): Promise<Submission | undefined> {
    if (!isGuid(id) || id !== id.trim()) return undefined; // never let an id reach a file name unchecked
    await this.open();
    return (await this.readSubmission(id)) ?? undefined;
  }

  put(submission: Submission): Promise<void> {
    if (!isGuid(submission.id) || submission.id !== submission.id.trim())
      return Promise.reject(new AppError('internal', `A submission id must be a UUID, not "${submission.id}".`));
    return this.locked(async () => {
      await writeJsonAtomic(this.submissionPath(submission.id), submission, { compact: true });
      const entries = await this.readIndex();
      const summary = summarize(submission);
      const at = entries.findIndex((entry) => entry.id === submission.id);
      await this.writeIndex(at < 0 ? [...entries, summary] : entries.map((entry, index) => (index === at ? summary : entry)));
    });
  }

  private submissionPath(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  /** Runs after the one-time opening, and one at a time, so the index is never written by two hands at once. */
  private async locked<T>(task: () => Promise<T>): Promise<T> {
    await this.open();
    return this.queue.run(task);
  }

  /** Migrates and reconciles once per store; a failure (a damaged old file) is retried at the next call. */
  private open(): Promise<void> {
    this.opening ??= this.queue
      .run(() => this.migrateAndReconcile())
      .catch((error: unknown) => {
        this.opening = null;
        throw error;
      });
    return this.opening;
  }

  /**
   * Imports the old single file (each submission unless a file at least as new is already here, so a run cut
   * short simply runs again), brings the index in line with the files present, and only then sets the old file
   * aside: until that rename, the old file stays the source and nothing is lost.
   */
  private async migrateAndReconcile(): Promise<void> {
    const legacy = await readJsonFile(this.legacyPath, LegacyFile);
    const imported = new Set<string>();
    for (const submission of legacy?.jobs ?? []) {
      const current = await this.readQuietly(submission.id);
      if (current && current !== 'damaged' && current.updatedAt >= submission.updatedAt) continue;
      await writeJsonAtomic(this.submissionPath(submission.id), submission, { compact: true });
      imported.add(submission.id);
    }
    await this.reconcile(imported);
    if (legacy) {
      const kept = await this.freePath(`${this.legacyPath}.migrated`);
      await rename(this.legacyPath, kept).catch((error: unknown) => {
        throw new AppError(
          'storage',
          `Closebook imported ${this.legacyPath} but could not rename it (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}); it will try again. Check the folder is writable.`,
        );
      });
      this.log.info('Consumption history moved to one file per submission', { from: this.legacyPath, keptAs: kept, submissions: legacy.jobs.length });
    }
  }

  /** Adds files the index lacks (a crash between the two writes, an import), drops entries whose file is gone. */
  private async reconcile(refresh: Set<string>): Promise<void> {
    const ids = await this.fileIds();
    let entries: SubmissionSummary[];
    try {
      const index = await readJsonFile(this.indexPath, IndexFile);
      if (!index) {
        if (ids.length) await this.writeIndex(await this.summarize(ids));
        return;
      }
      entries = index.submissions;
    } catch (error) {
      this.log.warn('The consumption history index is damaged; rebuilding it from the submission files', { reason: errorMessage(error) });
      await this.writeIndex(await this.summarize(ids));
      return;
    }
    const present = new Set(ids);
    const known = new Set(entries.map((entry) => entry.id));
    const kept = entries.filter((entry) => present.has(entry.id) && !refresh.has(entry.id));
    const added = await this.summarize(ids.filter((id) => !known.has(id) || refresh.has(id)));
    const next = [...kept, ...added];
    if (!isDeepStrictEqual(next, entries)) await this.writeIndex(next);
  }

  /** The index, or (missing or damaged) one rebuilt from the files and saved. */
  private async readIndex(): Promise<SubmissionSummary[]> {
    try {
      const index = await readJsonFile(this.indexPath, IndexFile);
      if (index) return index.submissions;
    } catch (error) {
      this.log.warn('The consumption history index is damaged; rebuilding it from the submission files', { reason: errorMessage(error) });
    }
    const entries = await this.summarize(await this.fileIds());
    await this.writeIndex(entries);
    return entries;
  }

  private writeIndex(entries: SubmissionSummary[]): Promise<void> {
    return writeJsonAtomic(this.indexPath, { version: INDEX_VERSION, submissions: entries });
  }

  /** Summaries of these files, oldest first; damaged ones are left out (and left on disk). */
  private async summarize(ids: string[]): Promise<SubmissionSummary[]> {
    const read = await Promise.all(ids.map((id) => this.readQuietly(id)));
    return read
      .filter((result): result is Submission => result !== null && result !== 'damaged')
      .map(summarize)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  private async fileIds(): Promise<string[]> {
    try {
      return (await readdir(this.dir)).flatMap((name) => (name.endsWith('.json') && isGuid(name.slice(0, -5)) ? [name.slice(0, -5)] : []));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new AppError(
        'storage',
        `Closebook could not read the folder ${this.dir} (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}). Check the folder is readable.`,
      );
    }
  }

  /** A submission file, validated, that must also carry its own id (a copied or renamed file does not count). */
  private async readSubmission(id: string): Promise<Submission | null> {
    const submission = await readJsonFile(this.submissionPath(id), Submission);
    if (submission && submission.id !== id) {
      throw new AppError(
        'storage',
        `${id}.json is damaged (it holds the submission ${submission.id}). Closebook left it as it is at ${this.submissionPath(id)}; restore it from a backup or remove it.`,
      );
    }
    return submission;
  }

  /** Like `readSubmission`, but a damaged file is logged and reported as such, so it cannot hide the others. */
  private async readQuietly(id: string): Promise<Submission | null | 'damaged'> {
    try {
      return await this.readSubmission(id);
    } catch (error) {
      this.log.warn('A consumption submission file cannot be read; it is left out of the list', { file: this.submissionPath(id), reason: errorMessage(error) });
      return 'damaged';
    }
  }

  /** The first of `path`, `path-2`, `path-3` … that does not exist, so an earlier kept copy is never overwritten. */
  private async freePath(path: string): Promise<string> {
    for (let attempt = 1; ; attempt += 1) {
      const candidate = attempt === 1 ? path : `${path}-${attempt}`;
      try {
        await access(candidate);
      } catch {
        return candidate;
      }
    }
  }
}
