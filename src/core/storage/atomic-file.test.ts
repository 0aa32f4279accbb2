import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { z } from 'zod';
import { temporaryDir } from '@testing/test-support';
import { readJsonFile, SerialQueue, writeJsonAtomic } from './atomic-file';

const cleanups = cleanupsAfterEach();

describe('atomic JSON files', () => {
  it('writes through a temporary file and leaves no temporary behind', async () => {
    const dir = await temporaryDir();
    cleanups.push(dir.remove);
    const path = join(dir.path, 'settings.json');
    await writeJsonAtomic(path, { a: 1 });
    await writeJsonAtomic(path, { a: 2 });
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ a: 2 });
    expect(await readdir(dir.path)).toEqual(['settings.json']);
  });

  it('reads missing as null and names the bad field of an invalid file', async () => {
    const dir = await temporaryDir();
    cleanups.push(dir.remove);
    const path = join(dir.path, 'x.json');
    const schema = z.object({ count: z.number() });
    expect(await readJsonFile(path, schema)).toBeNull();
    await writeFile(path, '{"count":"three"}');
    await expect(readJsonFile(path, schema)).rejects.toMatchObject({ code: 'storage', message: expect.stringContaining('at count') });
  });

  it('runs queued writers one after another, even when one fails', async () => {
    const queue = new SerialQueue();
    const order: number[] = [];
    const slow = queue.run(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push(1);
    });
    const failing = queue.run(async () => {
      order.push(2);
      throw new Error('boom');
    });
    const last = queue.run(async () => order.push(3));
    await slow;
    await expect(failing).rejects.toThrow('boom');
    await last;
    expect(order).toEqual([1, 2, 3]);
  });
});
