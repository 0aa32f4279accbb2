import { describe, expect, it } from 'vitest';
import { keepRecent, keepRecentAnswer } from './recent-map';

describe('keepRecent', () => {
  it('puts what is kept or used again last, and lets the oldest go beyond the capacity', () => {
    const map = new Map<string, number>();
    for (const [key, value] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const)
      keepRecent(map, key, value, 3);
    keepRecent(map, 'a', 10, 3); // used again: now the newest, with its new value
    keepRecent(map, 'd', 4, 3); // one too many: the oldest ("b") goes
    expect([...map]).toEqual([
      ['c', 3],
      ['a', 10],
      ['d', 4],
    ]);
  });

  it('keeps an answer on its way, and drops it once it fails (a newer one under the key stays)', async () => {
    const map = new Map<string, Promise<number>>();
    const failing = Promise.reject(new Error('no'));
    keepRecentAnswer(map, 'a', failing, 2);
    keepRecentAnswer(map, 'b', Promise.resolve(2), 2);
    expect([...map.keys()]).toEqual(['a', 'b']);
    await failing.catch(() => undefined);
    await Promise.resolve();
    expect([...map.keys()]).toEqual(['b']);
  });
});
