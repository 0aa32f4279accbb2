import { afterEach, describe, expect, it, vi } from 'vitest';
import { quitWhenStopped } from './quit';

/** Electron's app as quitting sees it: its before-quit listener and the quits asked for. */
function fakeApp() {
  let listener: ((event: { preventDefault(): void }) => void) | null = null;
  const app = {
    quits: 0,
    on: (_event: 'before-quit', handler: typeof listener) => (listener = handler),
    quit: () => app.quits++,
    /** Asks to quit as Electron does (Cmd+Q, the last window closed): true when the quit was held back. */
    beforeQuit: () => {
      const event = { preventDefault: vi.fn() };
      listener!(event);
      return event.preventDefault.mock.calls.length > 0;
    },
  };
  return app;
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

afterEach(() => vi.useRealTimers());

describe('quitting', () => {
  it('holds the quit until the service has stopped, then quits once', async () => {
    const app = fakeApp();
    const stopped = deferred();
    const stop = vi.fn(() => stopped.promise);
    const late = vi.fn();
    quitWhenStopped(app, stop, 10_000, late);
    expect(app.beforeQuit()).toBe(true);
    expect(app.beforeQuit()).toBe(true); // asked again while stopping: still held, and stopped once
    expect(stop).toHaveBeenCalledTimes(1);
    await Promise.resolve();
    expect(app.quits).toBe(0);
    stopped.resolve();
    await vi.waitFor(() => expect(app.quits).toBe(1));
    expect(app.beforeQuit()).toBe(false); // the quit it asked for goes through
    expect(late).not.toHaveBeenCalled();
  });

  it('quits when stopping fails too', async () => {
    const app = fakeApp();
    quitWhenStopped(app, () => Promise.reject(new Error('the team ledger did not answer')), 10_000, vi.fn());
    app.beforeQuit();
    await vi.waitFor(() => expect(app.quits).toBe(1));
  });

  it('ends the process when stopping takes longer than it may, and not before', async () => {
    vi.useFakeTimers();
    const app = fakeApp();
    const late = vi.fn();
    quitWhenStopped(app, () => new Promise(() => {}), 10_000, late);
    app.beforeQuit();
    await vi.advanceTimersByTimeAsync(9_999);
    expect(late).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(late).toHaveBeenCalledTimes(1);
    expect(app.quits).toBe(0);
  });
});
