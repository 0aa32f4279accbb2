import { appendFileSync, chmodSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from './ports';

const SECRET_KEYS = /secret|password|token|authorization|cookie/i;
/** A value that carries a credential whatever its key: a bearer token, Basic credentials, a token in a query. */
const SECRET_VALUES = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+|([?&](access_token|token|password|client_secret)=)[^&\s"]+/gi;

/** Details as they may be written: keys that look like secrets masked, credentials inside values masked too. */
function safeDetails(details: Record<string, unknown> | undefined): string {
  if (!details) return '';
  const safe = Object.fromEntries(Object.entries(details).map(([key, value]) => [key, SECRET_KEYS.test(key) ? '***' : value]));
  return ` ${scrub(JSON.stringify(safe))}`;
}

const scrub = (text: string) => text.replace(SECRET_VALUES, (_match, scheme: string | undefined, query: string | undefined) => (scheme ? `${scheme} ***` : `${query}***`));

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
export function createFileLogger(dataDir: string, prefix = 'closebook', limit = LOG_FILE_LIMIT, stderr: Sink = (line) => process.stderr.write(`${line}\n`)): Logger {
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
      stderr(`${prefix} warn: the log file ${file} cannot be written (${error instanceof Error ? error.message : String(error)}); logging to stderr only`);
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
