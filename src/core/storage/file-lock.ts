import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { AppError } from '@shared/errors';
import { SerialQueue } from './atomic-file';
import { fileFailure } from './file-errors';

/**
 * The desktop app and the CLI share profiles, report jobs, settings, thresholds and the consumption history: two
 * processes reading, changing and writing one file at once would each write over the other's change (eight
 * parallel `profiles add` kept three profiles). Each such update runs holding `<file>.lock`, created exclusively.
 * The ledger is not among them: DuckDB allows one process at a time, and the app holds it while the CLI adds a profile.
 */

/** How long an update waits for another process's (each takes milliseconds) before saying so. */
const WAIT_FOR_LOCK_MS = 10_000;
/** A lock whose holder left no readable note this long ago was dropped by a crash between creating and writing it. */
const UNREADABLE_LOCK_STALE_MS = 5_000;
/** No update holds a lock this long: its holder's process id has been reused by another program. */
const LOCK_STALE_MS = 120_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Is `pid` a running process? (A lock or a staged file of a process that is gone belongs to no one.) */
export function processRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the lock if its holder is gone (or it is older than any update), re-reading it first so a fresh lock is never taken. */
async function removedIfStale(lockPath: string): Promise<{ removed: boolean; holder: string | undefined }> {
  const note = await readFile(lockPath, 'utf8').catch(() => null);
  if (note === null) return { removed: false, holder: undefined }; // just released: try again at once
  const pid = Number(/^(\d+) /.exec(note)?.[1]);
  const age = Date.now() - ((await stat(lockPath).catch(() => null))?.mtimeMs ?? Date.now());
  const stale = Number.isInteger(pid) ? !processRunning(pid) || age > LOCK_STALE_MS : age > UNREADABLE_LOCK_STALE_MS;
  if (!stale || (await readFile(lockPath, 'utf8').catch(() => null)) !== note)
    return { removed: false, holder: Number.isInteger(pid) ? String(pid) : undefined };
  await rm(lockPath, { force: true });
  return { removed: true, holder: undefined };
}

/**
 * Runs `work` holding the lock of `file` (`<file>.lock`). A data folder nothing may write (a read-only disk) has no
 * update to lose: there `work` runs without the lock, and a write in it fails with its own clear error.
 */
export async function withFileLock<T>(file: string, work: () => Promise<T>): Promise<T> {
  const lockPath = `${file}.lock`;
  const note = `${process.pid} ${randomBytes(6).toString('hex')}`;
  const deadline = Date.now() + WAIT_FOR_LOCK_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      await writeFile(lockPath, note, { flag: 'wx', mode: 0o600 });
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return work();
      if (code === 'ENOENT') {
        await mkdir(dirname(lockPath), { recursive: true, mode: 0o700 });
        continue;
      }
      if (code !== 'EEXIST') {
        throw new AppError(
          'storage',
          `Closebook could not change ${file} (${fileFailure(error).cause.toLowerCase()}). Check the disk has space and the folder is writable.`,
        );
      }
      const { removed, holder } = await removedIfStale(lockPath);
      if (removed) continue;
      if (Date.now() > deadline) {
        throw new AppError(
          'conflict',
          `${basename(file)} is being changed by another Closebook process${holder ? ` (PID ${holder})` : ''} and has been for ${WAIT_FOR_LOCK_MS / 1000} s. Try again; if it repeats, close other Closebook windows and commands, or remove ${lockPath} when none runs.`,
        );
      }
      await sleep(2 + Math.random() * 8 * Math.min(attempt + 1, 8));
    }
  }
  try {
    return await work();
  } finally {
    if ((await readFile(lockPath, 'utf8').catch(() => null)) === note) await rm(lockPath, { force: true });
  }
}

/** Read-modify-write of one shared file: one at a time in this process (a queue), and across processes (the lock). */
export class FileUpdates {
  private readonly queue = new SerialQueue();

  constructor(private readonly file: string) {}

  run<T>(task: () => Promise<T>): Promise<T> {
    return this.queue.run(() => withFileLock(this.file, task));
  }
}
