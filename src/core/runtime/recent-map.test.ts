import { describe, expect, it } from 'vitest';
import { keepRecent, recentAnswer } from './recent-map';

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
    recentAnswer(map, 'a', 2, () => failing);
    recentAnswer(map, 'b', 2, () => Promise.resolve(2));
    expect([...map.keys()]).toEqual(['a', 'b']);
    await failing.catch(() => undefined);
    await Promise.resolve();
    expect([...map.keys()]).toEqual(['b']);
  });

  it('answers a kept key with what it kept, made once, and puts it last', async () => {
    const map = new Map<string, Promise<number>>();
    let made = 0;
    const make = () => Promise.resolve(++made);
    recentAnswer(map, 'a', 2, make);
    recentAnswer(map, 'b', 2, make);
    expect(await recentAnswer(map, 'a', 2, make)).toBe(1);
    expect(made).toBe(2);
    expect([...map.keys()]).toEqual(['b', 'a']);
  });
});
