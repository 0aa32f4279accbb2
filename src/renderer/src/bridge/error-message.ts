/** A failure in words, for the screen. Apart from index.ts, which reaches for `window` when loaded: plain modules use it too. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
