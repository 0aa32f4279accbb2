import { describe, expect, it } from 'vitest';
import { fullCollection } from './full-collection';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('fullCollection', () => {
  it('frees what nothing holds any more, now', async () => {
    // Made in a call of its own and looked at only through a WeakRef, in a later turn (a WeakRef keeps its target
    // for the rest of the turn it was made or read in).
    const made = (() => new WeakRef(Array.from({ length: 200_000 }, (_, index) => ({ index, text: `line ${index}` }))))();
    await nextTurn();
    expect(made.deref()).toBeDefined();
    await nextTurn();
    fullCollection();
    await nextTurn();
    expect(made.deref()).toBeUndefined();
  });
});
