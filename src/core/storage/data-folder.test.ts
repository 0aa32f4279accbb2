import { mkdir, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { temporaryDir } from '@testing/test-support';
import { STALE_TEMPORARY_MS, tidyDataFolder } from './data-folder';
import { silentLogger } from '../ports/ports';

const cleanups = cleanupsAfterEach();

describe('tidying the data folder at start', () => {
  it('removes stale temporaries of interrupted writes, keeps fresh ones and every real file, and makes subfolders owner-only', async () => {
    const dir = await temporaryDir();
    cleanups.push(dir.remove);
    const now = Date.now();
    await mkdir(join(dir.path, 'jobs'), { mode: 0o755 });
    await mkdir(join(dir.path, 'received'), { mode: 0o755 });
    const files = {
      staleJob: join(dir.path, 'jobs', 'report-jobs.json.0123456789ab.tmp'),
      stalePart: join(dir.path, 'received', 'job.json.gz.part'),
      staleProfiles: join(dir.path, 'profiles.json.abcdefabcdef.tmp'),
      fresh: join(dir.path, 'jobs', 'report-jobs.json.ffffffffffff.tmp'),
      real: join(dir.path, 'jobs', 'report-jobs.json'),
      lookalike: join(dir.path, 'jobs', 'notes.tmp'),
    };
    for (const file of Object.values(files)) await writeFile(file, 'x');
    const old = new Date(now - STALE_TEMPORARY_MS - 1000);
    for (const file of [files.staleJob, files.stalePart, files.staleProfiles, files.real, files.lookalike]) await utimes(file, old, old);

    const { removed } = await tidyDataFolder(dir.path, now, silentLogger);
    expect(removed.sort()).toEqual(
      [join('jobs', 'report-jobs.json.0123456789ab.tmp'), 'profiles.json.abcdefabcdef.tmp', join('received', 'job.json.gz.part')].sort(),
    );
    for (const kept of [files.fresh, files.real, files.lookalike]) expect((await stat(kept)).isFile()).toBe(true);
    for (const folder of ['jobs', 'received']) expect((await stat(join(dir.path, folder))).mode & 0o777).toBe(0o700);
  });

  it('does nothing (and does not fail) on a data folder that does not exist yet', async () => {
    expect(await tidyDataFolder(join('/nonexistent', 'closebook-test'), Date.now(), silentLogger)).toEqual({ removed: [] });
  });
});
