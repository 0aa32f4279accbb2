import { join } from 'node:path';
import { z } from 'zod';
import { readJsonFile, writeJsonAtomic } from './atomic-file';
import { FileUpdates } from './file-lock';

/**
 * A small durable list of workflow records (report jobs): one JSON file, written atomically after every change,
 * so a job is on disk before its first poll and survives a crash or restart. A file an earlier version wrote is
 * read through `legacy` (its records upgraded) and saved in the current version at the next change.
 */
export class JobStore<T extends { id: string }> {
  private readonly path: string;
  private readonly updates: FileUpdates;
  private readonly file: z.ZodType<{ jobs: T[] }>;

  constructor(
    dataDir: string,
    name: string,
    private readonly version: number,
    job: z.ZodType<T>,
    legacy: Record<number, z.ZodType<T, unknown>> = {},
  ) {
    this.path = join(dataDir, 'jobs', `${name}.json`);
    this.updates = new FileUpdates(this.path); // the app and the CLI both save report jobs
    const files = [version, ...Object.keys(legacy).map(Number)].map((fileVersion) =>
      z.object({ version: z.literal(fileVersion), jobs: z.array(fileVersion === version ? job : (legacy[fileVersion] as z.ZodType<T, unknown>)) }),
    );
    this.file = (files.length === 1 ? files[0] : z.union(files as unknown as [z.ZodTypeAny, z.ZodTypeAny])) as unknown as z.ZodType<{ jobs: T[] }>;
  }

  async list(): Promise<T[]> {
    return (await readJsonFile(this.path, this.file))?.jobs ?? [];
  }

  async get(id: string): Promise<T | undefined> {
    return (await this.list()).find((job) => job.id === id);
  }

  put(job: T): Promise<void> {
    return this.change((jobs) => [...jobs.filter((candidate) => candidate.id !== job.id), job]);
  }

  /**
   * Writes the list as it is: proof that a new job could be saved. Callers ask before starting work at the
   * service that only a saved job could follow (a report requested but not kept would be lost).
   */
  ensureWritable(): Promise<void> {
    return this.change((jobs) => jobs);
  }

  remove(id: string): Promise<void> {
    return this.change((jobs) => jobs.filter((job) => job.id !== id));
  }

  private change(update: (jobs: T[]) => T[]): Promise<void> {
    return this.updates.run(async () => {
      const jobs = update(await this.list());
      await writeJsonAtomic(this.path, { version: this.version, jobs });
    });
  }
}
