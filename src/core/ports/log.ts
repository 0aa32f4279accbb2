import { appendFileSync, chmodSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from './ports';
import { errorMessage } from '@shared/error-message';

/** Names under which a secret travels: a detail's key, a JSON field, a query or form parameter. */
const SECRET_NAME = String.raw`[\w-]*(?:secret|password|passwd|pwd|token|authorization|cookie|api[_-]?key)[\w-]*`;
const SECRET_KEYS = new RegExp(`^${SECRET_NAME}$`, 'i');

/**
 * Credentials inside text, whatever carries them: a bearer token or Basic credentials; `name=value` in a query, a
 * form body or at the very start of a string; a JSON field, as written or escaped inside another JSON string; the
 * password of a URL (`https://user:password@host`).
 */
const SECRET_TEXT: [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 ***'],
  [new RegExp(`(^|[?&\\s"';,])(${SECRET_NAME})=[^&\\s"';,]+`, 'gi'), '$1$2=***'],
  [new RegExp(`"(${SECRET_NAME})"\\s*:\\s*"(?:[^"\\\\]|\\\\.)*"`, 'gi'), '"$1":"***"'],
  [new RegExp(`\\\\"(${SECRET_NAME})\\\\"\\s*:\\s*\\\\"(?:[^"\\\\]|\\\\[^"])*\\\\"`, 'gi'), '\\"$1\\":\\"***\\"'],
  [/\b([a-z][a-z0-9+.-]*:\/\/[^/\s:@]*):[^\s@]+@/gi, '$1:***@'], // to the @: a careless caller may not have encoded a / in it
];

const scrub = (text: string) => SECRET_TEXT.reduce((masked, [pattern, replacement]) => masked.replace(pattern, replacement), text);

/** Details as they may be written: keys that look like secrets masked at any depth, credentials inside values masked too. */
function safeDetails(details: Record<string, unknown> | undefined): string {
  if (!details) return '';
  return ` ${scrub(JSON.stringify(details, (key, value: unknown) => (key && SECRET_KEYS.test(key) ? '***' : value)))}`;
}

type Sink = (line: string) => void;

function loggerOver(sinks: Sink[], prefix: string): Logger {
  const write = (level: string, message: string, details?: Record<string, unknown>) => {
    const line = `${prefix} ${level}: ${scrub(message)}${safeDetails(details)}`;
    for (const sink of sinks) sink(line);
  };
  return { info: (message, details) => write('info', message, details), warn: (message, details) => write('warn', message, details) };
}

/** Logs to stderr; any detail whose key looks like a secret is masked, so a careless call cannot leak one. */
export function createStderrLogger(prefix = 'closebook'): Logger {
  return loggerOver([(line) => process.stderr.write(`${line}\n`)], prefix);
}

/** How big `closebook.log` grows before it is rotated, and how many earlier files are kept (`.1` newest). */
export const LOG_FILE_LIMIT = { bytes: 1024 * 1024, kept: 3 };

/**
 * Logs to stderr and to `logs/closebook.log` in the data folder (owner-only; rotated at LOG_FILE_LIMIT, so support
 * can be sent a log that never grows without bound). Lines carry a UTC timestamp; secrets are masked as on stderr.
 * A log file that cannot be written never stops the app: the line still goes to stderr.
 */
export function createFileLogger(
  dataDir: string,
  prefix = 'closebook',
  limit = LOG_FILE_LIMIT,
  stderr: Sink = (line) => process.stderr.write(`${line}\n`),
): Logger {
  const dir = join(dataDir, 'logs');
  const file = join(dir, 'closebook.log');
  let broken = false;
  const toFile: Sink = (line) => {
    if (broken) return;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (size(file) >= limit.bytes) rotate(file, limit.kept);
      appendFileSync(file, `${new Date().toISOString()} ${line}\n`, { mode: 0o600 });
      chmodSync(file, 0o600);
    } catch (error) {
      broken = true;
      stderr(`${prefix} warn: the log file ${file} cannot be written (${errorMessage(error)}); logging to stderr only`);
    }
  };
  return loggerOver([stderr, toFile], prefix);
}

function size(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function rotate(file: string, kept: number): void {
  for (let index = kept - 1; index >= 1; index--) {
    try {
      renameSync(`${file}.${index}`, `${file}.${index + 1}`);
    } catch {
      // that generation does not exist yet
    }
  }
  renameSync(file, `${file}.1`);
}
