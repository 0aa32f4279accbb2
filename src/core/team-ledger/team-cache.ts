import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { Logger } from '../ports/ports';
import { readJsonFile, SerialQueue, writeJsonAtomic } from '../storage/atomic-file';
import { errorMessage } from '@shared/error-message';

/** The workstation's copy of what it last read from the team ledger, for when the server cannot be reached. */
export const TEAM_CACHE_FILE = 'team-ledger-cache.json';

const Part = z.object({ syncedAt: z.string(), value: z.unknown() });
const CacheFile = z.object({ parts: z.record(z.string(), Part) });

/**
 * The last state read from the team ledger — per month its sign-off, reviews and log, and who is signed in — kept
 * in the data folder, so that without the server the month still opens (read-only, saying since when). Only a
 * copy: written when what was read changed, and a damaged or missing copy is only an empty one (the server is the
 * record).
 */
export class TeamCache {
  private parts: Promise<Map<string, z.infer<typeof Part>>> | null = null;
  private readonly writes = new SerialQueue();
  /** The time each part was last written to disk with. */
  private readonly written = new Map<string, string>();
  private readonly path: string;

  constructor(
    dataDir: string,
    private readonly log: Logger,
  ) {
    this.path = join(dataDir, TEAM_CACHE_FILE);
  }

  private load() {
    this.parts ??= readJsonFile(this.path, CacheFile).then(
      (file) => new Map(Object.entries(file?.parts ?? {})),
      () => new Map<string, z.infer<typeof Part>>(),
    );
    return this.parts;
  }

  /** The copy of one signed-in role at one server: another person or another ledger never reads it. */
  scoped(scope: string): Pick<TeamCache, 'get' | 'put'> {
    return {
      get: (key) => this.get(`${scope}|${key}`),
      put: (key, value, syncedAt) => this.put(`${scope}|${key}`, value, syncedAt),
    };
  }

  /** Forgets the copy (connecting to another ledger or as another person, or disconnecting). */
  async clear(): Promise<void> {
    this.parts = Promise.resolve(new Map());
    this.written.clear();
    await this.writes.run(() => rm(this.path, { force: true }));
  }

  async get<T>(key: string): Promise<{ value: T; syncedAt: string } | undefined> {
    const part = (await this.load()).get(key);
    return part ? { value: part.value as T, syncedAt: part.syncedAt } : undefined;
  }

  /**
   * Keeps what was just read live, and when; written to disk when it differs from the copy, or when the copy's time
   * is a minute old (so "synced at" stays true to the minute without a write at every read).
   */
  async put(key: string, value: unknown, syncedAt: string): Promise<void> {
    const parts = await this.load();
    const before = parts.get(key);
    parts.set(key, { syncedAt, value });
    const same = before && JSON.stringify(before.value) === JSON.stringify(value);
    if (same && Date.parse(syncedAt) - Date.parse(this.written.get(key) ?? before.syncedAt) < 60_000) return;
    this.written.set(key, syncedAt);
    await this.writes
      .run(() => writeJsonAtomic(this.path, { parts: Object.fromEntries(parts) }, { compact: true }))
      .catch((error: unknown) => this.log.warn('the team ledger copy could not be written', { error: errorMessage(error) }));
  }
}
