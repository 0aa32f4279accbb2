import { join } from 'node:path';
import { z } from 'zod';
import { readJsonFile, SerialQueue, writeJsonAtomic } from './atomic-file';

/**
 * A small durable list of workflow records (report jobs, consumption tasks): one JSON file, written atomically
 * after every change, so a job is on disk before its first poll and survives a crash or restart.
 */
export class JobStore<T extends { id: string }> {
  private readonly path: string;
  private readonly queue = new SerialQueue();
  private readonly file: z.ZodType<{ version: 1; jobs: T[] }>;

  constructor(dataDir: string, name: string, job: z.ZodType<T>) {
    this.path = join(dataDir, 'jobs', `${name}.json`);
    this.file = z.object({ version: z.literal(1), jobs: z.array(job) }) as unknown as z.ZodType<{ version: 1; jobs: T[] }>;
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

  remove(id: string): Promise<void> {
    return this.change((jobs) => jobs.filter((job) => job.id !== id));
  }

  private change(update: (jobs: T[]) => T[]): Promise<void> {
    return this.queue.run(async () => {
      const jobs = update(await this.list());
      await writeJsonAtomic(this.path, { version: 1, jobs });
    });
  }
}
