import { describe, expect, it } from 'vitest';
import { BackgroundWork } from './background-work';

describe('work kept in the background', () => {
  it('is waited for until all of it has settled, a failure included, and is let go once it has', async () => {
    const work = new BackgroundWork();
    let finish = () => undefined as void;
    work.add(new Promise<void>((resolve) => (finish = resolve)));
    const failed = Promise.reject(new Error('logged by its owner'));
    failed.catch(() => undefined);
    work.add(failed.catch(() => undefined));
    let settled = false;
    const waiting = work.settled().then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    finish();
    await waiting;
    expect(settled).toBe(true);
    // Nothing left running: a later wait does not wait for the settled work again.
    await expect(work.settled()).resolves.toBeUndefined();
  });
});
