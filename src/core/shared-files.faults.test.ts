import { spawn, spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { inlineConnection, runCliProcess } from '@testing/cli-test-support';
import { FUZZ_SEED, Fuzz, saveFigures } from '@testing/fuzz';
import { TSX } from '@testing/simulator';
import { temporaryDir } from '@testing/test-support';

/**
 * Files the desktop app and the CLI share, written by several processes at once: profiles (real `profiles add`
 * commands in parallel), report jobs, check thresholds and screen settings (child processes updating them in a
 * seeded interleaving). No update may be lost, and a lock left by a killed process must not stop the next one.
 */

let dataDir: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  dataDir = await temporaryDir();
});
afterAll(async () => {
  await dataDir?.remove();
});

/** A child process that makes `count` updates of one store, each adding its own record. */
function updater(store: 'jobs' | 'thresholds', writer: number, count: number, seed: number): Promise<number | null> {
  const script = `
    const { JobStore } = require('./src/core/storage/job-store');
    const { ThresholdStore } = require('./src/core/close/thresholds');
    const { z } = require('zod');
    const dir = ${JSON.stringify(dataDir.path)};
    const jobs = new JobStore(dir, 'race-jobs', 1, z.object({ id: z.string() }));
    const thresholds = new ThresholdStore(dir);
    let state = ${seed} >>> 0;
    const pause = () => new Promise((resolve) => setTimeout(resolve, (state = (state * 1103515245 + 12345) >>> 0) % 4));
    (async () => {
      for (let index = 0; index < ${count}; index++) {
        await pause();
        if (${JSON.stringify(store)} === 'jobs') await jobs.put({ id: 'w${writer}-' + index });
        else await thresholds.set('w${writer}-' + index, { marginDeviationPoints: (index % 99) + 1, quantityJumpPercent: 50 });
      }
    })().then(() => process.exit(0), (error) => { process.stderr.write(String(error && error.message)); process.exit(1); });`;
  return new Promise((resolve) => {
    const child = spawn(TSX, ['-e', script], { cwd: process.cwd(), stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('exit', resolve);
  });
}

describe('files shared by the app and the CLI', () => {
  it('loses no update when several processes write at once', async () => {
    const fuzz = new Fuzz(FUZZ_SEED ^ 0x10c);
    const lost: string[] = [];
    let inputs = 0;

    // Eight `profiles add` at once (secrets from the environment: there is no keychain here).
    const connection = inlineConnection('https://billing.example.com');
    const added = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        runCliProcess(['profiles', 'add', '--name', `Parallel ${index + 1}`, ...connection, '--secrets-from-env'], dataDir.path),
      ),
    );
    inputs += added.length;
    const failedAdds = added.filter((result) => result.code !== 0).map((result) => result.stderr.trim());
    const profiles = (JSON.parse(await readFile(join(dataDir.path, 'profiles.json'), 'utf8')) as { profiles: { name: string }[] }).profiles
      .map((profile) => profile.name)
      .sort();
    const expected = Array.from({ length: 8 }, (_, index) => `Parallel ${index + 1}`).sort();
    if (JSON.stringify(profiles) !== JSON.stringify(expected)) lost.push(`profiles add ×8 kept ${profiles.length}: ${profiles.join(', ')}`);

    // Report jobs and thresholds: four writers each, a seeded number of updates with seeded pauses between.
    for (const store of ['jobs', 'thresholds'] as const) {
      const counts = Array.from({ length: 4 }, () => fuzz.int(10, 25));
      const codes = await Promise.all(counts.map((count, writer) => updater(store, writer, count, fuzz.int(1, 1_000_000))));
      inputs += counts.reduce((sum, count) => sum + count, 0);
      if (codes.some((code) => code !== 0)) lost.push(`${store}: a writer failed (${codes.join(', ')})`);
      const file = JSON.parse(await readFile(join(dataDir.path, store === 'jobs' ? 'jobs/race-jobs.json' : 'check-thresholds.json'), 'utf8')) as {
        jobs?: { id: string }[];
        profiles?: Record<string, unknown>;
      };
      const ids = new Set(store === 'jobs' ? (file.jobs ?? []).map((job) => job.id) : Object.keys(file.profiles ?? {}));
      const missing = counts.flatMap((count, writer) => Array.from({ length: count }, (_, index) => `w${writer}-${index}`)).filter((id) => !ids.has(id));
      if (missing.length) lost.push(`${store}: ${missing.length} of ${inputs} updates lost (${missing.slice(0, 5).join(', ')} …)`);
    }

    // A lock left by a process that was killed holding it: the next update takes it over.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    await mkdir(join(dataDir.path, 'jobs'), { recursive: true });
    await writeFile(join(dataDir.path, 'profiles.json.lock'), `${gone} 0123456789ab`);
    const afterKill = await runCliProcess(['profiles', 'add', '--name', 'After a crash', ...connection, '--secrets-from-env'], dataDir.path);
    inputs += 1;
    if (afterKill.code !== 0) lost.push(`a stale lock stopped profiles add: ${afterKill.stderr.trim()}`);

    saveFigures(inject('faultFiguresDir'), {
      boundary: '9 Files shared by processes',
      inputs,
      crashes: failedAdds.length,
      unclear: 0,
      damaged: lost.length,
      notes: [
        '8 parallel `profiles add`; 4 processes updating report jobs and 4 thresholds at seeded pauses; a stale lock of a killed process (damaged = an update lost)',
      ],
      examples: [...failedAdds.slice(0, 4), ...lost],
    });
    expect(failedAdds).toEqual([]);
    expect(lost).toEqual([]);
  }, 120_000);
});
