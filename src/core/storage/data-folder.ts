import { chmod, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../ports/ports';

/** The data folder's own subfolders, where Closebook writes temporaries beside the files they replace. */
const FOLDERS_WITH_TEMPORARIES = ['', 'jobs', 'consumption', 'received', 'reports'];

/** What atomic writes leave when a crash comes between writing and renaming (see atomic-file.ts, report-receiver.ts). */
const TEMPORARY = /\.[0-9a-f]{12}\.tmp$|\.part$/;

/**
 * A temporary this old belongs to no running write: even a million-line download keeps touching its file. Younger
 * ones may be another Closebook process's (the CLI beside the app), so they are left alone.
 */
export const STALE_TEMPORARY_MS = 30 * 60 * 1000;

/**
 * Removes the temporaries that crashes left behind in the data folder, and makes its subfolders readable by their
 * owner only (folders made by earlier versions included). Nothing here may stop the app from starting.
 */
export async function tidyDataFolder(dataDir: string, now: number, log: Logger): Promise<{ removed: string[] }> {
  const removed: string[] = [];
  for (const folder of FOLDERS_WITH_TEMPORARIES) {
    const path = join(dataDir, folder);
    let names: string[];
    try {
      names = await readdir(path);
      if (folder) await chmod(path, 0o700);
    } catch {
      continue; // not there (yet), or not ours to read
    }
    for (const name of names.filter((candidate) => TEMPORARY.test(candidate))) {
      const file = join(path, name);
      try {
        const info = await stat(file);
        if (!info.isFile() || now - info.mtimeMs < STALE_TEMPORARY_MS) continue;
        await rm(file, { force: true });
        removed.push(join(folder, name));
      } catch {
        // gone already, or not removable: the next start tries again
      }
    }
  }
  if (removed.length) log.info('removed temporaries left by an interrupted write', { files: removed.length });
  return { removed };
}
