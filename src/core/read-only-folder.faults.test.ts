import { execFileSync } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ChannelName } from '@shared/contract';
import { runCliProcess } from '@testing/cli-test-support';
import { saveFigures, unclearReason } from '@testing/fuzz';
import { type ServiceFixture, serviceFixture } from '@testing/service-fixture';
import { temporaryDir } from '@testing/test-support';
import { dispatch } from './runtime/dispatch';
import { silentLogger } from './ports/ports';
import { createService, type Service } from './service';

/**
 * A data folder on a read-only disk or share (a colleague's, a backup, a locked-down machine): saved months still
 * list, open, filter and export — through the app's channels and the CLI — and what would change something is
 * refused in words that say why and what to do, never a raw EROFS. Nothing is written into the folder.
 */

let fixture: ServiceFixture;
let mounted: { path: string; release: () => Promise<void> } | null = null;
let service: Service;
let exports: { path: string; remove: () => Promise<void> };
/** November, fetched beside the fixture's October before the folder turns read-only: a month to compare and close. */
let novemberId: string;

beforeAll(async () => {
  fixture = await serviceFixture();
  const job = await fixture.service.handlers['reports:request']({ profileId: fixture.profile.id, period: { startDate: '2026-11-01', endDate: '2026-11-30' } });
  const [done] = await fixture.service.reports.waitFor([job.id]);
  if (!done?.reportId) throw new Error(`November's request ended ${done?.state}: ${done?.message}`);
  novemberId = done.reportId;
  await fixture.service.dispose(); // the ledger is one process's at a time: let go of it
  const dir = await temporaryDir('closebook-read-only-');
  try {
    execFileSync('mount', ['--bind', fixture.ports.dataDir, dir.path], { stdio: 'ignore' });
    execFileSync('mount', ['-o', 'remount,ro,bind', dir.path], { stdio: 'ignore' });
    mounted = {
      path: dir.path,
      release: async () => {
        execFileSync('umount', [dir.path], { stdio: 'ignore' });
        await dir.remove(); // the mount point, empty again
      },
    };
  } catch {
    await dir.remove();
    return;
  }
  service = createService({
    ...fixture.ports,
    dataDir: mounted.path,
    deliver: async (fileName, _kind, write) => {
      const path = join(exports.path, fileName);
      await write(path);
      return { kind: 'saved', path };
    },
  });
  exports = await temporaryDir('closebook-read-only-exports-');
  await service.start();
});

afterAll(async () => {
  await service?.dispose();
  await mounted?.release();
  await fixture?.close();
  await exports?.remove();
});

const call = async (channel: ChannelName, input: unknown) => dispatch(service, channel, input, silentLogger);

describe('a read-only data folder', () => {
  it('lists, opens and exports saved months, and refuses changes in words', async (context) => {
    if (!mounted) return context.skip('a read-only bind mount is refused here (it needs root)');
    const reportId = fixture.report.id;
    const failures: string[] = [];
    const unclear: string[] = [];
    const reads: [ChannelName, unknown][] = [
      ['app:info', {}],
      ['profiles:list', {}],
      ['reports:list', {}],
      ['reports:jobs', {}],
      ['consumption:history', {}],
      ['settings:get', {}],
      ['reports:open', { reportId }],
      [
        'reports:window',
        { reportId, filter: {}, sort: { key: 'label', direction: 'asc' }, expansion: { all: 'organizations', toggled: [] }, offset: 0, count: 50 },
      ],
      [
        'reports:window',
        { reportId, filter: { text: 'a' }, sort: { key: 'sales', direction: 'desc' }, expansion: { all: 'none', toggled: [] }, offset: 0, count: 50 },
      ],
      ['reports:invoicing', { reportId, filter: {} }],
      ['reports:export', { reportId, format: 'xlsx' }],
      ['reports:export', { reportId, format: 'csv', filter: { text: 'a' } }],
      ['reports:export', { reportId, format: 'parquet' }],
      ['reports:share', { reportId }],
      // The month close makes its comparison and checks without saving them: kept for the session, asked twice.
      ['close:state', { reportId: novemberId }],
      ['close:compare', { beforeId: reportId, afterId: novemberId }],
      ['close:compare', { beforeId: reportId, afterId: novemberId }],
      ['reports:export', { reportId: novemberId, format: 'xlsx' }],
    ];
    for (const [channel, input] of reads) {
      const answer = await call(channel, input);
      if (!answer.ok) failures.push(`${channel}: ${answer.error.message}`);
    }
    const changes: [ChannelName, unknown][] = [
      ['reports:rename', { reportId, name: 'Renamed' }],
      ['reports:delete', { reportId }],
      ['settings:save', { reportColumns: ['sales'] }],
    ];
    for (const [channel, input] of changes) {
      const answer = await call(channel, input);
      if (answer.ok) failures.push(`${channel}: answered as done in a read-only folder`);
      else {
        const reason = unclearReason(answer.error.message, answer.error.code);
        if (reason || !/read-only/.test(answer.error.message) || /EROFS|unexpected/i.test(answer.error.message))
          unclear.push(`${channel}: ${reason ?? answer.error.message}`);
      }
    }
    const cli = await runCliProcess(['reports', 'export', reportId, '--out', join(exports.path, 'cli.xlsx')], mounted.path);
    if (cli.code !== 0) failures.push(`CLI reports export: ${cli.stderr.trim()}`);
    // The comparison is made for the session only: the listing reads it where it was made, as the JSON does.
    const [listed, json] = await Promise.all([
      runCliProcess(['reports', 'compare', reportId, novemberId], mounted.path),
      runCliProcess(['reports', 'compare', reportId, novemberId, '--json'], mounted.path),
    ]);
    const inJson = json.code === 0 ? (JSON.parse(json.stdout) as unknown[]).length : -1;
    const lines = listed.stdout
      .split(/\nChanges \(\d+\):\n/)[1]
      ?.split('\n')
      .filter(Boolean).length;
    if (listed.code !== 0 || inJson <= 0 || lines !== inJson)
      failures.push(`CLI reports compare: ${lines} changes listed, ${inJson} in its JSON ${listed.stderr.trim()}`);
    saveFigures(inject('faultFiguresDir'), {
      boundary: '10 Read-only data folder',
      inputs: reads.length + changes.length + 3,
      crashes: failures.length,
      unclear: unclear.length,
      damaged: 0,
      notes: [
        `${reads.length} reads and exports through the app's channels, the CLI's export and its comparison (listed and as JSON) worked; ${changes.length} changes were refused in words (crashes = a read that failed)`,
      ],
      examples: [...failures, ...unclear],
    });
    expect(failures).toEqual([]);
    expect(unclear).toEqual([]);
    const exported = await readdir(exports.path);
    expect(exported.filter((name) => name.endsWith('.xlsx')).length).toBe(3);
    for (const name of exported) expect((await stat(join(exports.path, name))).size).toBeGreaterThan(0);
  });
});
