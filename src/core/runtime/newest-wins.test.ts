import { describe, expect, it } from 'vitest';
import { NewestWins } from './newest-wins';

/** Work that runs until its signal aborts (then fails) or it is let finish, and says when it started. */
function controllable(name: string, log: string[]) {
  let finish: (value: string) => void = () => undefined;
  const work = (signal: AbortSignal) =>
    new Promise<string>((resolve, reject) => {
      log.push(`${name} started`);
      finish = resolve;
      signal.addEventListener('abort', () => {
        log.push(`${name} stopped`);
        reject(new Error(`${name} stopped`));
      });
    });
  return { work, finish: (value: string) => finish(value) };
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('newest wins', () => {
  it('stops the work under way for the newest, passes over work still waiting, and runs one at a time', async () => {
    const newest = new NewestWins();
    const log: string[] = [];
    const [s, st, sto] = ['s', 'st', 'sto'].map((name) => controllable(name, log));
    const first = newest.run(s!.work);
    await turn();
    expect(log).toEqual(['s started']);
    const second = newest.run(st!.work);
    const third = newest.run(sto!.work);
    await expect(first).rejects.toThrow('s stopped');
    await expect(second).rejects.toMatchObject({ code: 'cancelled', message: 'A newer request took the place of this one before it started.' });
    await turn();
    // "st" never started: "sto" was asked for before "s" had ended; "sto" started only once it had.
    expect(log).toEqual(['s started', 's stopped', 'sto started']);
    sto!.finish('found');
    await expect(third).resolves.toBe('found');
    // Work that ended leaves nothing to stop: the next runs at once.
    const next = controllable('stor', log);
    const fourth = newest.run(next.work);
    await turn();
    next.finish('found again');
    await expect(fourth).resolves.toBe('found again');
    expect(log.at(-1)).toBe('stor started');
  });

  it('lets work that ignores its signal end before the newest starts', async () => {
    const newest = new NewestWins();
    const order: string[] = [];
    let finishSlow: () => void = () => undefined;
    const slow = newest.run(
      () =>
        new Promise<string>((resolve) => {
          order.push('slow started');
          finishSlow = () => resolve('slow');
        }),
    );
    await turn();
    const quick = newest.run(async () => {
      order.push('quick started');
      return 'quick';
    });
    await turn();
    expect(order).toEqual(['slow started']);
    finishSlow();
    await expect(slow).resolves.toBe('slow');
    await expect(quick).resolves.toBe('quick');
    expect(order).toEqual(['slow started', 'quick started']);
  });
});
