/** What quitting needs of Electron's app (a double in tests). */
export interface QuittingApp {
  on(event: 'before-quit', listener: (event: { preventDefault(): void }) => void): unknown;
  quit(): void;
}

/**
 * Quitting waits for `stop` (the service: its ledger closes once no DuckDB statement runs; closed under one, the
 * process could not exit). Should that take longer than `waitMs` (one statement of minutes), `onLate` ends the
 * process: what was saved is whole in the ledger's file and its WAL, the step under way is not saved.
 */
export function quitWhenStopped(app: QuittingApp, stop: () => Promise<unknown>, waitMs: number, onLate: () => void): void {
  let state: 'running' | 'stopping' | 'stopped' = 'running';
  app.on('before-quit', (event) => {
    if (state === 'stopped') return; // the quit asked for below
    event.preventDefault();
    if (state === 'stopping') return; // asked again meanwhile: the first one quits
    state = 'stopping';
    const late = setTimeout(onLate, waitMs);
    void stop()
      .catch(() => undefined) // a failed stop is the service's to log; quitting goes on
      .then(() => {
        clearTimeout(late);
        state = 'stopped';
        app.quit();
      });
  });
}
