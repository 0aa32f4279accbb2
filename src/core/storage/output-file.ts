import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, chmod, copyFile, type FileHandle, lstat, mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { AppError } from '@shared/errors';
import { outputFailureMessage } from './file-errors';
import { processRunning } from './file-lock';

/**
 * Every file Closebook hands to a user (workbooks, CSV, Parquet, shared reports, failed rows, packs, backups) is
 * written here first: into a staging folder of the data folder, flushed, and only then moved to the user's path.
 * So a failure — a full disk above all — leaves the user's folder as it was, and a kill leaves the temporary where
 * the next start finds it. DuckDB may write only inside the data folder (see the ledger), which this also serves.
 */

/**
 * The file-system calls behind an output, in one object so a fault test can make any one step fail (a full disk
 * on the first write, on the flush, on the move). Production code never replaces them.
 */
export const outputIo = {
  open: (path: string, flags: string, mode?: number) => open(path, flags, mode),
  write: async (handle: FileHandle, chunk: Uint8Array) => {
    for (let at = 0; at < chunk.length;) at += (await handle.write(chunk, at, chunk.length - at)).bytesWritten;
  },
  sync: (handle: FileHandle) => handle.sync(),
  rename: (from: string, to: string) => rename(from, to),
  copyFile: (from: string, to: string) => copyFile(from, to, constants.COPYFILE_EXCL),
  writeFile: (path: string, content: string) => writeFile(path, content, { mode: 0o600, flag: 'wx' }),
};

/**
 * Temporaries in the staging folder: `<pid>-<hex>.tmp` (a file, or an earlier version’s scratch folder of an export’s parts; with DuckDB's `.wal` beside a
 * backup), and `<pid>-<hex>.moving` naming a copy beside a user's file. Earlier versions wrote an export's parts
 * beside its temporary (`<pid>-<hex>.tmp.part-<n>.<csv|file>`): swept too.
 */
const STAGED = /^(\d+)-([0-9a-f]{12})\.(tmp|moving)(\.wal|\.part-\d+\.(?:csv|file))?$/;

/** A new temporary's name in the staging folder, as STAGED knows it. */
const temporaryName = () => `${process.pid}-${randomBytes(6).toString('hex')}.tmp`;

/**
 * A file being written: a Writable for writers that want a stream (exceljs, gzip), and `put` for our own loops. A
 * failed write is sticky — every later `put` rejects at once and `failure` rejects — so nothing ever waits for a
 * 'drain' that cannot come.
 */
export class FileSink extends Writable {
  /** Rejects with the first write error: race a writer that waits on the stream itself (exceljs) against it. */
  readonly failure: Promise<never>;

  private constructor(private readonly handle: FileHandle) {
    super({ highWaterMark: 1024 * 1024 });
    this.failure = new Promise<never>((_resolve, reject) => this.once('error', reject));
    this.failure.catch(() => undefined); // seen by whoever races it; an unraced failure is reported by `put`/`complete`
  }

  static async create(path: string): Promise<FileSink> {
    return new FileSink(await outputIo.open(path, 'wx', 0o600));
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    outputIo.write(this.handle, chunk).then(() => done(), done);
  }

  override _final(done: (error?: Error | null) => void): void {
    outputIo.sync(this.handle).then(() => done(), done);
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.handle.close().then(
      () => done(error),
      () => done(error),
    );
  }

  /** Throws the write error, if one happened: for loops that produce rows between writes. */
  check(): void {
    if (this.errored) throw this.errored;
  }

  /** Writes a chunk, waiting while the buffer is full; rejects as soon as any write has failed. */
  async put(chunk: string | Uint8Array): Promise<void> {
    this.check();
    if (this.write(chunk)) return;
    await new Promise<void>((resolve, reject) => {
      const settle = (error?: Error | null) => {
        this.off('drain', onDrain);
        this.off('error', settle);
        this.off('close', onClose);
        if (error) reject(error);
        else resolve();
      };
      const onDrain = () => settle();
      const onClose = () => settle(this.errored ?? new Error('the file was closed before it was complete'));
      this.on('drain', onDrain);
      this.on('error', settle);
      this.on('close', onClose);
    });
  }

  /** Ends the file and resolves once everything is on disk (flushed). */
  async complete(): Promise<void> {
    this.check();
    await new Promise<void>((resolve, reject) => {
      this.once('error', reject);
      this.end(() => resolve());
    });
    this.check();
  }
}

/** One data folder's staging folder; `outputsFor` gives the one instance per data folder. */
export class OutputFolder {
  private resolved: Promise<string> | null = null;

  constructor(private readonly dataDir: string) {}

  /**
   * The staging folder: `staging/` in the data folder, or — when the data folder cannot be written (a read-only
   * disk or share) — a folder of this user's in the system's temporary folder, so saved months still export. On
   * first use, what killed or failed writes left there is removed.
   */
  folder(): Promise<string> {
    this.resolved ??= this.resolve().catch((error: unknown) => {
      this.resolved = null;
      throw error;
    });
    return this.resolved;
  }

  /** A temporary in the staging folder for `use` (a download, a file made to be sent), removed afterwards whatever happens. */
  async scratch<T>(use: (temporary: string) => Promise<T>): Promise<T> {
    const temporary = join(await this.folder(), temporaryName());
    try {
      return await use(temporary);
    } finally {
      await rm(temporary, { force: true });
    }
  }

  /**
   * Writes `target` through a temporary that `fill` writes (and may pass to DuckDB). Only when `fill` resolves is the
   * temporary flushed and moved into place; on any failure `target` is untouched, nothing is left beside it, and
   * the error is one line naming the file and the cause.
   */
  async write<T>(target: string, fill: (temporary: string) => Promise<T>): Promise<T> {
    const staging = await this.folder();
    const temporary = join(staging, temporaryName());
    let phase: 'fill' | 'move' = 'fill';
    try {
      const result = await fill(temporary);
      await chmod(temporary, 0o600); // DuckDB makes its files with the default mode; an export is its owner's
      await flush(temporary);
      phase = 'move';
      await this.moveInto(staging, temporary, target);
      return result;
    } catch (error) {
      if (error instanceof AppError) throw error; // already in words (a refused file name, a damaged month)
      // A full staging disk is the data folder's disk, not the user's: name the one that failed.
      throw new AppError('storage', outputFailureMessage(target, error, phase === 'fill' ? `Closebook's data folder, ${this.dataDir}` : dirname(target)));
    } finally {
      await rm(temporary, { force: true }).catch(() => undefined);
    }
  }

  /** `write` for a file made in memory (a template, failed rows, a PDF). */
  writeBytes(target: string, content: string | Uint8Array): Promise<void> {
    return this.write(target, async (temporary) => {
      const sink = await FileSink.create(temporary);
      try {
        await sink.put(content);
        await sink.complete();
      } finally {
        sink.destroy();
      }
    });
  }

  /** `write` through a FileSink: `produce` writes the content, the sink is completed (flushed) after it. */
  writeStream<T>(target: string, produce: (sink: FileSink) => Promise<T>): Promise<T> {
    return this.write(target, async (temporary) => {
      const sink = await FileSink.create(temporary);
      try {
        const result = await Promise.race([produce(sink), sink.failure]);
        await sink.complete();
        return result;
      } finally {
        sink.destroy();
      }
    });
  }

  /**
   * A rename when the staging folder and the target share a disk; otherwise a copy into a temporary beside the
   * target (named in a `.moving` note in the staging folder first, so a kill mid-copy is tidied at the next start),
   * flushed, then renamed over the target — the user's file is either the old one or the whole new one.
   */
  private async moveInto(staging: string, temporary: string, target: string): Promise<void> {
    try {
      await outputIo.rename(temporary, target);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    }
    const hex = randomBytes(6).toString('hex');
    const beside = `${target}.${hex}.tmp`;
    const note = join(staging, `${process.pid}-${hex}.moving`);
    await outputIo.writeFile(note, beside);
    try {
      await outputIo.copyFile(temporary, beside);
      await flush(beside);
      await outputIo.rename(beside, target);
    } finally {
      await rm(beside, { force: true }).catch(() => undefined);
      await rm(note, { force: true }).catch(() => undefined);
    }
  }

  private async resolve(): Promise<string> {
    let folder = join(this.dataDir, 'staging');
    try {
      await mkdir(folder, { recursive: true, mode: 0o700 });
      await access(folder, constants.W_OK);
    } catch {
      folder = await privateTemporaryFolder();
    }
    await sweep(folder);
    return folder;
  }
}

/** The system temporary folder's `closebook-staging-<uid>`, made owner-only; refused if someone else made it. */
async function privateTemporaryFolder(): Promise<string> {
  const folder = join(tmpdir(), `closebook-staging-${process.getuid?.() ?? 'user'}`);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const info = await lstat(folder);
  if (!info.isDirectory() || (process.getuid && info.uid !== process.getuid()) || (info.mode & 0o077) !== 0) {
    throw new AppError(
      'storage',
      `Closebook's data folder is read-only and ${folder} belongs to someone else, so there is nowhere to prepare the file. Make the data folder writable, or remove ${folder}.`,
    );
  }
  return folder;
}

/** Removes what writes of processes that are gone left in `folder`, and the copies their notes name. */
async function sweep(folder: string): Promise<void> {
  for (const name of await readdir(folder).catch(() => [] as string[])) {
    const match = STAGED.exec(name);
    if (!match || processRunning(Number(match[1]))) continue;
    const path = join(folder, name);
    if (match[3] === 'moving') {
      const beside = (await readFile(path, 'utf8').catch(() => '')).trim();
      // Only ever the copy this note was written for: a path ending in the note's own random part.
      if (beside.endsWith(`.${match[2]}.tmp`)) await rm(beside, { force: true }).catch(() => undefined);
    }
    await rm(path, { force: true, recursive: true }).catch(() => undefined); // an earlier version's scratch folder too
  }
}

async function flush(path: string): Promise<void> {
  const handle = await outputIo.open(path, 'r+');
  try {
    await outputIo.sync(handle);
  } finally {
    await handle.close();
  }
}

const folders = new Map<string, OutputFolder>();

/** The staging folder of a data folder (one instance each, so its tidy-up runs once per process). */
export function outputsFor(dataDir: string): OutputFolder {
  let outputs = folders.get(dataDir);
  if (!outputs) folders.set(dataDir, (outputs = new OutputFolder(dataDir)));
  return outputs;
}
