import { z } from 'zod';

/**
 * Every failure that crosses a boundary (IPC, HTTP bridge, CLI) carries one of these codes, so each host can
 * decide what to do (retry, re-authenticate, exit code) without parsing message text.
 */
export const ErrorCode = z.enum([
  'validation', // the input is wrong; `fields` says where
  'auth', // the service refused the credentials
  'network', // the service could not be reached
  'timeout', // the service did not answer in time
  'service', // the service answered with a server error
  'rate-limited', // the service asked us to slow down
  'bad-response', // the service answered with something we cannot read
  'refused', // the service answered with a status it does not explain and asking again will not change (a 4xx, a redirect)
  'not-found',
  'conflict',
  'control', // a control of the month close refused the step (self-approval, an open exception, a locked month)
  'outcome-unknown', // a request that changes data may or may not have reached the service
  'keychain-unavailable',
  'forbidden-origin', // a URL pointed away from the profile's own service
  'cancelled',
  'storage', // a file on disk could not be read or written
  'untrusted-sender',
  'internal',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const AppErrorShape = z.object({
  code: ErrorCode,
  message: z.string(),
  /** Field path (dot-separated) → message, for forms. */
  fields: z.record(z.string(), z.string()).optional(),
});
export type AppErrorShape = z.infer<typeof AppErrorShape>;

/** An error with a code and a message written for a finance user, safe to show as is. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly fields?: Record<string, string>;

  constructor(code: ErrorCode, message: string, fields?: Record<string, string>) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    if (fields) this.fields = fields;
  }

  toShape(): AppErrorShape {
    return this.fields ? { code: this.code, message: this.message, fields: this.fields } : { code: this.code, message: this.message };
  }
}

/** Where a zod issue is: its dot path, e.g. `contact.email`, or "top level" for the value as a whole. */
function issueWhere(issue: z.ZodError['issues'][number]): string {
  return issue.path.map(String).join('.') || 'top level';
}

/** The first issue of a zod failure, as every message about one names it: where, and what is wrong there. */
export function describeIssue(error: z.ZodError): { where: string; message: string } {
  const issue = error.issues[0];
  return issue ? { where: issueWhere(issue), message: issue.message } : { where: 'top level', message: 'unexpected content' };
}

/** Turns a zod error into field messages keyed by dot path, e.g. `contact.email`. */
export function fieldErrorsFromZod(error: z.ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) fields[issueWhere(issue)] ??= issue.message;
  return fields;
}

/** A validation AppError from a zod failure, its message naming the first bad field. */
export function validationError(error: z.ZodError, what: string): AppError {
  const { where, message } = describeIssue(error);
  return new AppError('validation', `${what} is not valid (${where}: ${message}).`, fieldErrorsFromZod(error));
}
