import { dirname } from 'node:path';
import { errorMessage } from '@shared/error-message';

/**
 * A failed file operation in words a person can act on. Node gives an errno code; DuckDB (Parquet, backups, the
 * ledger itself) gives only text, so both are read. Defined once: every writer and reader names causes this way.
 */
export interface FileFailure {
  /** The system's code (ENOSPC …), or the one the text stands for; undefined when neither says. */
  code: string | undefined;
  /** What went wrong, as the start of a sentence ("The disk is full"). */
  cause: string;
}

const CAUSES: Record<string, string> = {
  ENOSPC: 'The disk is full',
  EDQUOT: 'The disk quota is used up',
  EACCES: 'Permission denied',
  EPERM: 'Permission denied',
  EROFS: 'The disk is read-only',
  ENOENT: 'The folder does not exist',
  EISDIR: 'A folder is in its place',
  ENOTDIR: 'A file is where a folder should be',
  EBUSY: 'Another program holds it open',
  EMFILE: 'Too many files are open',
  EIO: 'The disk reported an input/output error',
};

/** The codes whose words are in DuckDB's (or a library's) message rather than in an errno. */
const CODES_IN_TEXT: [RegExp, string][] = [
  [/no space left|disk (is )?full/i, 'ENOSPC'],
  [/quota exceeded/i, 'EDQUOT'],
  [/read-only file system/i, 'EROFS'],
  [/permission denied/i, 'EACCES'],
  [/no such file or directory/i, 'ENOENT'],
];

export function fileFailure(error: unknown): FileFailure {
  const errno = (error as NodeJS.ErrnoException | null)?.code;
  const text = errorMessage(error);
  const code = errno && CAUSES[errno] ? errno : (CODES_IN_TEXT.find(([pattern]) => pattern.test(text))?.[1] ?? errno);
  const cause = code && CAUSES[code] ? CAUSES[code] : `It failed (${code ?? text.split('\n')[0]?.slice(0, 200)})`;
  return { code, cause };
}

/** True for a full disk or a used-up quota: the one failure where freeing space is the whole answer. */
export function isDiskFull(error: unknown): boolean {
  const { code } = fileFailure(error);
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/**
 * "The disk is full (the disk holding /home/a/Documents): October.xlsx could not be written. …" — one line for a
 * file handed to the user, naming the file, the folder whose disk failed, and what to do.
 */
export function outputFailureMessage(target: string, error: unknown, where: string = dirname(target)): string {
  const { code, cause } = fileFailure(error);
  const advice =
    code === 'ENOSPC' || code === 'EDQUOT'
      ? 'free some space on that disk (or save somewhere else) and try again'
      : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
        ? 'save it in a folder you can write to'
        : code === 'ENOENT'
          ? 'choose a folder that exists'
          : 'check the disk and the folder, then try again';
  const place = code === 'ENOSPC' || code === 'EDQUOT' || code === 'EROFS' ? `the disk holding ${where}` : where;
  return `${cause} (${place}): ${target} could not be written. Nothing was saved there; ${advice}.`;
}
