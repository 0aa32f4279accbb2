import type { z } from 'zod';

const KINDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  bigint: 'a whole number',
};

/**
 * A zod error map in plain words, for what crosses a boundary (IPC input, files): zod's own wording names
 * JavaScript's types ("Invalid input: expected string, received NaN", "received JsonNumber", a bare "Invalid
 * input" for a union). A missing value is left to the shared "is required"; every other message is kept.
 */
export const plainIssues: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === 'invalid_type' && issue.input !== undefined) return `must be ${KINDS[issue.expected] ?? issue.expected}`;
  if (issue.code === 'invalid_value' && issue.values.length === 1) return `must be ${JSON.stringify(issue.values[0])}`;
  if (issue.code === 'invalid_union') {
    const firsts = issue.errors.map((alternative) => alternative[0]);
    // Each alternative a type ("text or a number"); otherwise the first alternative's own message says what fits.
    if (firsts.length && firsts.every((first) => first?.code === 'invalid_type'))
      return `must be ${[...new Set(firsts.map((first) => KINDS[(first as { expected: string }).expected] ?? (first as { expected: string }).expected))].join(' or ')}`;
    return firsts[0]?.message;
  }
  return undefined;
};

/**
 * Where a failed parse went wrong and what is wrong there, in plain words (parse with `plainIssues`). A union —
 * a file's versions, say — is described by the alternative that got furthest: the one the value was meant to be.
 */
export function plainIssue(error: z.ZodError): { where: string; message: string } {
  let issue = error.issues[0];
  let prefix: PropertyKey[] = [];
  while (issue?.code === 'invalid_union' && issue.errors.length) {
    const firsts = issue.errors.flatMap((alternative) => (alternative[0] ? [alternative[0]] : []));
    if (!firsts.length) break;
    prefix = [...prefix, ...issue.path];
    issue = firsts.reduce((best, next) => (next.path.length > best.path.length ? next : best));
  }
  const path = [...prefix, ...(issue?.path ?? [])];
  return { where: path.map(String).join('.') || 'top level', message: issue?.message ?? 'unexpected content' };
}
