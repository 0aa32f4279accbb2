import { AppError, type ErrorCode } from '@shared/errors';
import { EXIT } from './exit-codes';
import { errorMessage } from '@shared/error-message';

// What every command needs to end, kept apart from the service it runs on.

export { EXIT };

export class UsageError extends Error {}

export function exitCodeFor(code: ErrorCode): number {
  return code === 'validation' ? EXIT.usage : code === 'control' ? EXIT.control : EXIT.service;
}

/** A failure as one line on stderr, and its exit code. */
export function fail(error: unknown): number {
  if (error instanceof UsageError) {
    process.stderr.write(`closebook: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof AppError) {
    process.stderr.write(`closebook: ${error.message}\n`);
    return exitCodeFor(error.code);
  }
  process.stderr.write(`closebook: unexpected error: ${errorMessage(error)}\n`);
  return EXIT.service;
}
