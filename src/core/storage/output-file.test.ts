import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { temporaryDir } from '@testing/test-support';
import { OutputFolder, outputIo } from './output-file';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  while (cleanups.length) await cleanups.pop()?.();
});

async function folders() {
  const data = await temporaryDir();
  const user = await temporaryDir();
  cleanups.push(data.remove, user.remove);
  return { dataDir: data.path, userDir: user.path, outputs: new OutputFolder(data.path) };
}

const diskFull = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

/** What is in a folder besides the files a test put there. */
async function leftIn(folder: string): Promise<string[]> {
  return (await readdir(folder)).sort();
}

describe('files handed to the user', () => {
  it('replaces the file only when complete, owner-only, and leaves nothing in the staging folder or beside it', async () => {
    const { userDir, outputs } = await folders();
    const target = join(userDir, 'month.csv');
    await writeFile(target, 'old');
    const result = await outputs.write(target, async (temporary) => {
      expect(temporary.startsWith(userDir)).toBe(false); // never beside the user's file
      expect(await readFile(target, 'utf8')).toBe('old');
      await writeFile(temporary, 'new');
      return 42;
    });
    expect(result).toBe(42);
    expect(await readFile(target, 'utf8')).toBe('new');
    expect((await stat(target)).mode & 0o777).toBe(0o600);
    expect(await leftIn(userDir)).toEqual(['month.csv']);
    expect(await leftIn(await outputs.folder())).toEqual([]);
  });

  it('streams through a sink, and the bytes arrive in order', async () => {
    const { userDir, outputs } = await folders();
    const target = join(userDir, 'lines.csv');
    await outputs.writeStream(target, async (sink) => {
      for (let index = 0; index < 20_000; index++) await sink.put(`line ${index}\n`);
    });
    const text = await readFile(target, 'utf8');
    expect(text.split('\n')).toHaveLength(20_001);
    expect(text.startsWith('line 0\nline 1\n')).toBe(true);
  });

  // A full disk at each step of a write: opening, the first and a later write, the flush, the move, and — across
  // disks — the copy. Each must fail with one line naming the file and the cause, and leave nothing anywhere.
  const steps = [
    { step: 'open', fail: () => vi.spyOn(outputIo, 'open').mockRejectedValueOnce(diskFull()) },
    { step: 'first write', fail: () => vi.spyOn(outputIo, 'write').mockRejectedValueOnce(diskFull()) },
    {
      step: 'a later write',
      fail: () => {
        const real = outputIo.write;
        let calls = 0;
        vi.spyOn(outputIo, 'write').mockImplementation((handle, chunk) => (++calls === 3 ? Promise.reject(diskFull()) : real(handle, chunk)));
      },
    },
    { step: 'flush', fail: () => vi.spyOn(outputIo, 'sync').mockRejectedValueOnce(diskFull()) },
    { step: 'move', fail: () => vi.spyOn(outputIo, 'rename').mockRejectedValueOnce(diskFull()) },
    {
      step: 'copy to another disk',
      fail: () => {
        vi.spyOn(outputIo, 'rename').mockRejectedValueOnce(Object.assign(new Error('EXDEV'), { code: 'EXDEV' }));
        vi.spyOn(outputIo, 'copyFile').mockRejectedValueOnce(diskFull());
      },
    },
  ];
  for (const { step, fail } of steps) {
    it(`fails loudly on a full disk at the ${step}, keeping the old file and leaving no temporary`, async () => {
      const { userDir, outputs } = await folders();
      const target = join(userDir, 'October.xlsx');
      await writeFile(target, 'old');
      await outputs.folder();
      fail();
      let producer: 'not started' | 'writing' | 'stopped' = 'not started';
      const writing = outputs.writeStream(target, async (sink) => {
        producer = 'writing';
        try {
          for (let index = 0; index < 200; index++) await sink.put(Buffer.alloc(64 * 1024, 65));
        } finally {
          producer = 'stopped';
        }
      });
      const outcome = await Promise.race([
        writing.then(
          () => 'resolved',
          (error: unknown) => error,
        ),
        new Promise((resolve) => setTimeout(() => resolve('hung'), 10_000)),
      ]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(producer).not.toBe('writing'); // the loop that writes was stopped too, not left waiting for ever
      expect(outcome).toMatchObject({
        code: 'storage',
        message: expect.stringMatching(
          /^The disk is full \(the disk holding .+\): .*October\.xlsx could not be written\. Nothing was saved there; free some space/,
        ),
      });
      expect(await readFile(target, 'utf8')).toBe('old');
      expect(await leftIn(userDir)).toEqual(['October.xlsx']);
      expect(await leftIn(await outputs.folder())).toEqual([]);
    });
  }

  it('names the data folder when the staging disk is the one that is full, and the user’s folder when the move fails', async () => {
    const { dataDir, userDir, outputs } = await folders();
    vi.spyOn(outputIo, 'write').mockRejectedValueOnce(diskFull());
    await expect(outputs.writeBytes(join(userDir, 'a.csv'), 'x')).rejects.toMatchObject({
      message: expect.stringContaining(`the disk holding Closebook's data folder, ${dataDir}`),
    });
    vi.spyOn(outputIo, 'rename').mockRejectedValueOnce(diskFull());
    await expect(outputs.writeBytes(join(userDir, 'b.csv'), 'x')).rejects.toMatchObject({ message: expect.stringContaining(`the disk holding ${userDir}`) });
  });

  it('copies across disks through a temporary beside the target, named in a note, and removes both', async () => {
    const { userDir, outputs } = await folders();
    const target = join(userDir, 'pack.xlsx');
    vi.spyOn(outputIo, 'rename').mockRejectedValueOnce(Object.assign(new Error('EXDEV'), { code: 'EXDEV' }));
    const copy = vi.spyOn(outputIo, 'copyFile');
    await outputs.writeBytes(target, 'content');
    expect(copy).toHaveBeenCalledTimes(1);
    expect(String(copy.mock.calls[0]?.[1])).toMatch(/pack\.xlsx\.[0-9a-f]{12}\.tmp$/);
    expect(await readFile(target, 'utf8')).toBe('content');
    expect(await leftIn(userDir)).toEqual(['pack.xlsx']);
    expect(await leftIn(await outputs.folder())).toEqual([]);
  });

  it('at first use removes what a killed write left: its staged file, an earlier version’s scratch folder and the copy its note names, never a running process’s', async () => {
    const { dataDir, userDir } = await folders();
    const staging = join(dataDir, 'staging');
    await mkdir(staging, { recursive: true });
    // A process id that is certainly gone: a child that has exited.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    const beside = join(userDir, 'October.xlsx.0123456789ab.tmp');
    await writeFile(beside, 'half');
    await writeFile(join(staging, `${gone}-0123456789ab.moving`), beside);
    await writeFile(join(staging, `${gone}-aaaaaaaaaaaa.tmp`), 'half');
    // A killed export's scratch folder, a part written in it (as earlier versions wrote a CSV or Parquet export).
    await mkdir(join(staging, `${gone}-cccccccccccc.tmp`, 'nested'), { recursive: true });
    await writeFile(join(staging, `${gone}-cccccccccccc.tmp`, 'part-0.csv'), 'half');
    await writeFile(join(staging, `${gone}-dddddddddddd.tmp.part-3.file`), 'half'); // as earlier versions named a part
    await writeFile(join(staging, `${process.pid}-bbbbbbbbbbbb.tmp`), 'being written');
    await writeFile(join(userDir, 'unrelated.tmp'), 'the user’s own');
    await new OutputFolder(dataDir).folder();
    expect(await leftIn(staging)).toEqual([`${process.pid}-bbbbbbbbbbbb.tmp`]);
    expect(await leftIn(userDir)).toEqual(['unrelated.tmp']);
  });
});
