import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { z } from 'zod';
import { AppError } from '@shared/errors';
import { fileFailure } from './file-errors';
import { plainIssue, plainIssues } from '../runtime/plain-issues';

/**
 * Writes a file so that a crash leaves either the old or the new content, never half of one: write a temporary
 * file beside it, flush it to disk, then rename it over the original.
 */
export async function writeFileAtomic(path: string, content: string | Uint8Array): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const handle = await open(temporary, 'w', 0o600);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw storageError(path, 'write', error);
  }
}

/** Small files are indented for people who open them; big ones (`compact`) are not, which halves their size. */
export async function writeJsonAtomic(path: string, value: unknown, options: { compact?: boolean } = {}): Promise<void> {
  await writeFileAtomic(path, `${options.compact ? JSON.stringify(value) : JSON.stringify(value, null, 2)}\n`);
}

/**
 * Reads and validates a JSON file. Missing → null. Unreadable or invalid → a storage error that names the file
 * and leaves it untouched, so the user can repair or remove it.
 */
export async function readJsonFile<T>(path: string, schema: z.ZodType<T>): Promise<T | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw storageError(path, 'read', error);
  }
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, '')); // a byte-order mark: the file was saved by hand in an editor
  } catch {
    throw new AppError(
      'storage',
      `${basename(path)} is damaged (not valid JSON). Closebook left it as it is at ${path}; restore it from a backup or remove it.`,
    );
  }
  const parsed = schema.safeParse(json, { error: plainIssues });
  if (!parsed.success) {
    const { where, message } = plainIssue(parsed.error);
    throw new AppError(
      'storage',
      `${basename(path)} is damaged (at ${where}: ${message}). Closebook left it as it is at ${path}; restore it from a backup or remove it.`,
    );
  }
  return parsed.data;
}

function storageError(path: string, action: 'read' | 'write', error: unknown): AppError {
  const { cause } = fileFailure(error);
  return new AppError('storage', `Closebook could not ${action} ${path} (${cause.toLowerCase()}). Check the disk has space and the folder is writable.`);
}

/** Runs tasks one after another, so two writers of one file never interleave. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
