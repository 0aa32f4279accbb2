import { execFileSync } from 'node:child_process';
import { mkdir, open, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { ChannelName } from '@shared/contract';
import { runCliProcess } from '@testing/cli-test-support';
import { FUZZ_SEED, Fuzz, saveFigures, unclearReason, fuzzCount } from '@testing/fuzz';
import { type ServiceFixture, serviceFixture } from '@testing/service-fixture';
import { temporaryDir } from '@testing/test-support';
import { dispatch } from './runtime/dispatch';
import { OutputFolder, outputIo } from './storage/output-file';
import { silentLogger } from './ports/ports';

/**
 * Every file Closebook writes for a user, with a full disk at each step of the write (injected: opening, the
 * first or a later write, the flush, the move, the copy to another disk), and then for real on a small tmpfs
 * filled to the brim. Each write must fail loudly — a storage error in one clear line that says the disk is full —
 * within seconds (never hang), and leave no file at the target and nothing beside it or in the staging folder. The
 * app's channels are called through dispatch, as the renderer calls them; the CLI as a process.
 */

const ANSWER_WITHIN_MS = 15_000;
const ROUNDS = fuzzCount('CLOSEBOOK_FUZZ_OUTPUT_ROUNDS', 3);

let fixture: ServiceFixture;
let files: { path: string; remove: () => Promise<void> };
/** Where the fixture's host puts the next file it is handed (the desktop's save dialog, in effect). */
let deliverTo = '';

beforeAll(async () => {
  files = await temporaryDir('closebook-outputs-');
  fixture = await serviceFixture({
    ports: {
      deliver: async (fileName, _kind, write) => {
        await write(deliverTo);
        return { kind: 'saved', path: deliverTo };
      },
    },
  });
});

afterAll(async () => {
  await fixture?.close();
  await files?.remove();
});

/** Each kind of file, written to `path` as the app or the CLI writes it. */
const OUTPUTS: { name: string; write: (path: string) => Promise<unknown> }[] = [
  { name: 'xlsx', write: (path) => fixture.service.reports.exportReport(fixture.report.id, `${path}.xlsx`) },
  { name: 'csv', write: (path) => fixture.service.reports.exportReport(fixture.report.id, `${path}.csv`) },
  { name: 'parquet', write: (path) => fixture.service.reports.exportReport(fixture.report.id, `${path}.parquet`) },
  {
    name: 'xlsx of a view (app)',
    write: (path) => viaChannel('reports:export', { reportId: fixture.report.id, format: 'xlsx', filter: { text: 'a' } }, `${path}.xlsx`),
  },
  { name: 'csv (app)', write: (path) => viaChannel('reports:export', { reportId: fixture.report.id, format: 'csv' }, `${path}.csv`) },
  { name: 'shared report (app)', write: (path) => viaChannel('reports:share', { reportId: fixture.report.id }, `${path}.closebook-report.json.gz`) },
  {
    name: 'failed rows csv (app)',
    write: (path) => viaChannel('consumption:export-failed', { submissionId: fixture.submission.id, format: 'csv' }, `${path}.csv`),
  },
  { name: 'failed rows xlsx (CLI)', write: (path) => fixture.service.consumption.writeFailedRows(fixture.submission.id, `${path}.xlsx`) },
  { name: 'consumption template (app)', write: (path) => viaChannel('consumption:template', { format: 'xlsx' }, `${path}.xlsx`) },
  { name: 'PDF (app)', write: (path) => viaChannel('view:print-pdf', { fileName: 'October' }, `${path}.pdf`) },
  { name: 'group packs', write: (path) => fixture.service.reports.exportGroupPacks(fixture.report.id, path) },
  {
    name: 'comparison workbook',
    write: async (path) =>
      fixture.service.close.exportComparison(await fixture.service.close.compare(fixture.decoyReport.id, fixture.report.id), `${path}.xlsx`),
  },
  { name: 'evidence pack (CLI)', write: (path) => fixture.service.close.evidence(fixture.report.id, `${path}.pdf`) },
  { name: 'evidence pack (app)', write: (path) => viaChannel('close:evidence', { reportId: fixture.report.id }, `${path}.pdf`) },
  { name: 'ledger backup', write: (path) => fixture.service.ledger.backup(`${path}.duckdb`) },
];

/** A channel through dispatch, as the renderer calls it: an error arrives as { ok: false }, and is thrown here. */
async function viaChannel(channel: ChannelName, input: unknown, target: string): Promise<unknown> {
  deliverTo = target;
  const answer = await dispatch(fixture.service, channel, input, silentLogger);
  if (!answer.ok) throw Object.assign(new Error(answer.error.message), answer.error);
  return answer.data;
}

const diskFull = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
const STEPS = ['open', 'first write', 'a later write', 'flush', 'move', 'copy to another disk'] as const;

/** Makes `step` fail once with a full disk; returns how to tell whether it fired (DuckDB writes Parquet and backups itself). */
function injectDiskFull(step: (typeof STEPS)[number], laterWrite: number): () => boolean {
  let fired = false;
  const fire = () => {
    fired = true;
    return Promise.reject(diskFull());
  };
  if (step === 'open') vi.spyOn(outputIo, 'open').mockImplementationOnce(fire);
  if (step === 'first write') vi.spyOn(outputIo, 'write').mockImplementationOnce(fire);
  if (step === 'a later write') {
    const real = outputIo.write;
    let calls = 0;
    vi.spyOn(outputIo, 'write').mockImplementation((handle, chunk) => (++calls === laterWrite ? fire() : real(handle, chunk)));
  }
  if (step === 'flush') vi.spyOn(outputIo, 'sync').mockImplementationOnce(fire);
  if (step === 'move') vi.spyOn(outputIo, 'rename').mockImplementationOnce(fire);
  if (step === 'copy to another disk') {
    vi.spyOn(outputIo, 'rename').mockRejectedValueOnce(Object.assign(new Error('EXDEV: cross-device link not permitted'), { code: 'EXDEV' }));
    vi.spyOn(outputIo, 'copyFile').mockImplementationOnce(fire);
  }
  return () => fired;
}

/** Settles `work` or says it hung. */
async function answer(
  work: Promise<unknown>,
): Promise<{ outcome: 'ok' } | { outcome: 'failed'; error: { code?: string; message?: string } } | { outcome: 'hung' }> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<{ outcome: 'hung' }>((resolve) => (timer = setTimeout(() => resolve({ outcome: 'hung' }), ANSWER_WITHIN_MS)));
  try {
    return await Promise.race([
      work.then(
        () => ({ outcome: 'ok' as const }),
        (error: { code?: string; message?: string }) => ({ outcome: 'failed' as const, error }),
      ),
      hung,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe('a full disk at each step of every write', () => {
  it('fails loudly, clearly and within seconds, and leaves nothing behind', async () => {
    const fuzz = new Fuzz(FUZZ_SEED ^ 0x0f11);
    const problems = { crashes: [] as string[], unclear: [] as string[], damaged: [] as string[] };
    const started = performance.now();
    let inputs = 0;
    let fired = 0;
    const staging = join(fixture.ports.dataDir, 'staging');
    for (let round = 0; round < ROUNDS; round++) {
      for (const output of OUTPUTS) {
        for (const step of STEPS) {
          inputs += 1;
          const folder = join(files.path, `${round}-${inputs}`);
          await mkdir(folder);
          const target = join(folder, 'October');
          const didFire = injectDiskFull(step, fuzz.int(2, 6));
          const result = await answer(output.write(target));
          vi.restoreAllMocks();
          const what = `${output.name}, disk full at the ${step}`;
          const left = (await readdir(folder, { recursive: true })).filter((name) => !name.endsWith('.keep'));
          if (result.outcome === 'hung') problems.crashes.push(`${what}: no answer within ${ANSWER_WITHIN_MS / 1000} s`);
          else if (result.outcome === 'ok') {
            // Only a write whose failing step was never taken (DuckDB writes Parquet and backups itself) may succeed.
            if (didFire()) problems.crashes.push(`${what}: answered as done after the disk was full`);
          } else {
            if (didFire()) fired += 1;
            if (result.error.code !== 'storage') problems.crashes.push(`${what}: ${result.error.code ?? 'no code'}: ${result.error.message}`);
            const reason = unclearReason(result.error.message, result.error.code);
            if (reason || !/^The disk is full \(the disk holding /.test(String(result.error.message)))
              problems.unclear.push(`${what}: ${reason ?? 'does not say the disk is full'}: ${result.error.message}`);
            if (left.length) problems.damaged.push(`${what}: left ${left.join(', ')}`);
          }
          const staged = await readdir(staging).catch(() => []);
          if (staged.length) problems.damaged.push(`${what}: left in the staging folder: ${staged.join(', ')}`);
        }
      }
    }
    const seconds = (performance.now() - started) / 1000;
    saveFigures(inject('faultFiguresDir'), {
      boundary: '6 Files written to a full disk',
      inputs,
      crashes: problems.crashes.length,
      unclear: problems.unclear.length,
      damaged: problems.damaged.length,
      notes: [
        `${OUTPUTS.length} kinds of file × ${STEPS.length} steps × ${ROUNDS} rounds; the full disk was reached in ${fired} (DuckDB writes Parquet and backups itself, so their open and write steps are not ours); ${seconds.toFixed(1)} s`,
      ],
      examples: [...problems.crashes.slice(0, 6), ...problems.unclear.slice(0, 6), ...problems.damaged.slice(0, 6)],
    });
    expect(problems.crashes).toEqual([]);
    expect(problems.unclear).toEqual([]);
    expect(problems.damaged).toEqual([]);
    expect(fired).toBeGreaterThan(OUTPUTS.length * ROUNDS * 3);
  });
});

/** A small tmpfs filled to the brim, or null where mounting is refused (not root, or a container without it). */
async function fullDisk(): Promise<{ path: string; release: () => Promise<void> } | null> {
  const dir = await temporaryDir('closebook-full-disk-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0777', 'tmpfs', dir.path], { stdio: 'ignore' });
  } catch {
    await dir.remove();
    return null;
  }
  const release = async () => {
    execFileSync('umount', [dir.path], { stdio: 'ignore' });
    await dir.remove();
  };
  // Filled by one file that grows until the disk refuses even a byte: no file of any size fits after it.
  const filler = await open(join(dir.path, 'filler.keep'), 'w');
  try {
    for (const size of [64 * 1024, 4096, 1]) {
      for (;;) {
        try {
          await filler.write(Buffer.alloc(size));
        } catch {
          break;
        }
      }
    }
  } finally {
    await filler.close();
  }
  return { path: dir.path, release };
}

describe('a real full disk (a 1 MB tmpfs, filled)', () => {
  let disk: Awaited<ReturnType<typeof fullDisk>> = null;
  beforeAll(async () => {
    disk = await fullDisk();
  });
  afterAll(async () => {
    await disk?.release();
  });

  it('refuses every kind of file with the disk named, and leaves only what was there', async (context) => {
    if (!disk) return context.skip('mounting a tmpfs is refused here (it needs root)');
    const problems: string[] = [];
    for (const output of OUTPUTS) {
      const result = await answer(output.write(join(disk.path, `full-${output.name.replace(/\W+/g, '-')}`)));
      if (result.outcome !== 'failed') problems.push(`${output.name}: ${result.outcome}`);
      else if (!result.error.message?.startsWith(`The disk is full (the disk holding ${disk.path}`)) problems.push(`${output.name}: ${result.error.message}`);
    }
    expect(problems).toEqual([]);
    expect(await readdir(disk.path)).toEqual(['filler.keep']);
  });

  it('the CLI: reports export to .xlsx and .csv and report fetch --out exit non-zero with one line naming the disk, and write nothing', async (context) => {
    if (!disk) return context.skip('mounting a tmpfs is refused here (it needs root)');
    const dataDir = await temporaryDir();
    try {
      const twin = fixture.twin;
      const c = twin.credentials;
      const connection = ['--base-url', twin.baseUrl, '--client-id', c.clientId, '--username', c.username, '--reseller-id', c.resellerId];
      const fetched = await runCliProcess(
        ['report', 'fetch', '--from', '2026-08-01', '--to', '2026-08-31', '--poll-interval', '1', '--out', join(disk.path, 'august.xlsx'), ...connection],
        dataDir.path,
      );
      expect(fetched.code).toBe(2);
      expect(fetched.stderr.trim().split('\n').at(-1)).toBe(
        `closebook: The disk is full (the disk holding ${disk.path}): ${join(disk.path, 'august.xlsx')} could not be written. Nothing was saved there; free some space on that disk (or save somewhere else) and try again.`,
      );
      const reportId = fetched.stdout.trim();
      for (const name of ['august.xlsx', 'august.csv']) {
        const exported = await runCliProcess(['reports', 'export', reportId, '--out', join(disk.path, name)], dataDir.path);
        expect(exported.code).toBe(2);
        expect(exported.stderr.trim().split('\n')).toEqual([
          expect.stringMatching(new RegExp(`^closebook: The disk is full \\(the disk holding ${disk.path}\\): .*${name} could not be written\\.`)),
        ]);
      }
      expect(await readdir(disk.path)).toEqual(['filler.keep']);
      expect(await readdir(join(dataDir.path, 'staging'))).toEqual([]);
    } finally {
      await dataDir.remove();
    }
  });

  it('names the data folder’s disk when that is the one full, and keeps the months saved there', async (context) => {
    if (!disk) return context.skip('mounting a tmpfs is refused here (it needs root)');
    const target = await temporaryDir();
    const dataDir = await temporaryDir();
    try {
      // The data folder's staging folder on the full disk, the user's folder elsewhere.
      const staging = join(disk.path, 'staging');
      await mkdir(staging);
      await symlink(staging, join(dataDir.path, 'staging'));
      const outputs = new OutputFolder(dataDir.path);
      const result = await answer(outputs.writeBytes(join(target.path, 'x.csv'), Buffer.alloc(256 * 1024, 65)));
      expect(result).toMatchObject({
        outcome: 'failed',
        error: { message: expect.stringContaining(`The disk is full (the disk holding Closebook's data folder, ${dataDir.path})`) },
      });
      expect(await readdir(target.path)).toEqual([]);
      expect(await readdir(staging)).toEqual([]);
      expect(await readFile(join(disk.path, 'filler.keep')).then((bytes) => bytes.length > 0)).toBe(true);
      await rm(staging, { recursive: true });
    } finally {
      await target.remove();
      await dataDir.remove();
    }
  });
});
