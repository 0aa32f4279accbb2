import { afterEach } from 'vitest';

/**
 * What a test leaves to undo (a folder, an open ledger, a server): pushed as it is made, and undone after each test,
 * the last made first. Call once per file (or per describe), where the tests it serves are declared.
 */
export function cleanupsAfterEach(): (() => Promise<void> | void)[] {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()?.();
  });
  return cleanups;
}
