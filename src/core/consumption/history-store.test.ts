import { mkdir, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import type { Submission } from '@shared/schemas/consumption';
import { temporaryDir } from '@testing/test-support';
import { FileSubmissionStore } from './history-store';

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';
const C = '33333333-3333-4333-8333-333333333333';

const cleanups = cleanupsAfterEach();

async function dataDir(): Promise<string> {
  const dir = await temporaryDir();
  cleanups.push(dir.remove);
  return dir.path;
}

function submission(id: string, day: number, fields: Partial<Submission> = {}): Submission {
  const at = `2026-11-0${day}T09:00:00.000Z`;
  return {
    id,
    profileId: 'p1',
    profileName: 'Prod',
    fileName: `day ${day}.csv`,
    contentHash: `hash-${day}`,
    rows: [{ row: 2, subscriptionId: 's1', isAddon: 'no', addonId: '', quantity: '12.5', consumptionId: '' }],
    records: [{ subscriptionId: 's1', isAddon: false, quantity: 12.5 }],
    taskId: null,
    statusUrl: null,
    state: 'sending',
    message: null,
    failures: [],
    createdAt: at,
    updatedAt: at,
    polls: 0,
    nextPollAt: null,
    ...fields,
  };
}

const fileOf = (dir: string, id: string) => join(dir, 'consumption', `${id}.json`);
const indexOf = (dir: string) => join(dir, 'consumption', 'index.json');
const legacyOf = (dir: string) => join(dir, 'jobs', 'consumption-history.json');

/** Exactly what the build before this store wrote (JobStore version 1: one indented file). */
async function writeLegacy(dir: string, jobs: Submission[]): Promise<string> {
  await mkdir(join(dir, 'jobs'), { recursive: true });
  const text = `${JSON.stringify({ version: 1, jobs }, null, 2)}\n`;
  await writeFile(legacyOf(dir), text);
  return text;
}

const queued = submission(A, 1, {
  state: 'Queued',
  taskId: 'task-1',
  statusUrl: '/v1/bulkconsumptions/task-1',
  message: 'Accepted',
  nextPollAt: '2026-11-01T09:00:03.000Z',
});
const successful = submission(B, 2, {
  state: 'Successful',
  taskId: 'task-2',
  statusUrl: '/v1/bulkconsumptions/task-2',
  polls: 3,
  message: 'The record was submitted.',
});

describe('consumption history store', () => {
  it('puts, gets and lists whole submissions, and summarizes them from the index alone', async () => {
    const dir = await dataDir();
    const store = new FileSubmissionStore(dir);
    expect(await store.list()).toEqual([]);
    await store.put(submission(A, 1));
    await store.put(submission(B, 2, { state: 'Failed', failures: [{ row: 2, errorMessage: 'no', subscriptionId: 's1', addonId: null, quantity: 12.5 }] }));
    expect(await store.get(A)).toEqual(submission(A, 1));
    expect(await store.get(C)).toBeUndefined();
    expect(await store.get('../jobs/consumption-history')).toBeUndefined();
    expect((await store.list()).map((s) => s.id)).toEqual([A, B]);
    const index = JSON.parse(await readFile(indexOf(dir), 'utf8'));
    expect(index).toMatchObject({
      version: 2,
      submissions: [
        { id: A, profileId: 'p1', contentHash: 'hash-1', state: 'sending' },
        { id: B, state: 'Failed', failureCount: 1 },
      ],
    });
    expect(index.submissions[0]).not.toHaveProperty('rows');
    // the summaries come from the index: they survive the submission files being unreadable
    await writeFile(fileOf(dir, A), 'not json');
    await writeFile(fileOf(dir, B), 'not json');
    expect(await new FileSubmissionStore(dir).summaries()).toEqual([
      expect.objectContaining({ id: A, state: 'sending', recordCount: 1, failureCount: 0 }),
      expect.objectContaining({ id: B, state: 'Failed', recordCount: 1, failureCount: 1 }),
    ]);
  });

  it('rewrites only the polled submission file and the index', async () => {
    const dir = await dataDir();
    const store = new FileSubmissionStore(dir);
    await store.put(submission(A, 1, { state: 'Queued' }));
    await store.put(submission(B, 2, { state: 'Queued' }));
    const past = new Date('2026-01-01T00:00:00Z');
    for (const path of [fileOf(dir, A), fileOf(dir, B), indexOf(dir)]) await utimes(path, past, past);
    const before = await readFile(fileOf(dir, B), 'utf8');

    await store.put(submission(A, 1, { state: 'Processing', polls: 1 }));

    expect(await readFile(fileOf(dir, B), 'utf8')).toBe(before);
    expect((await stat(fileOf(dir, B))).mtimeMs).toBe(past.getTime());
    expect((await stat(fileOf(dir, A))).mtimeMs).toBeGreaterThan(past.getTime());
    expect((await stat(indexOf(dir))).mtimeMs).toBeGreaterThan(past.getTime());
    expect(JSON.parse(await readFile(fileOf(dir, A), 'utf8'))).toMatchObject({ state: 'Processing', polls: 1 });
    expect((await store.summaries()).map((s) => s.state)).toEqual(['Processing', 'Queued']);
    expect((await readdir(join(dir, 'consumption'))).sort()).toEqual([`${A}.json`, `${B}.json`, 'index.json']);
  });

  it('leaves a damaged submission file out of the list, keeps it on disk and in the history, and says so when opened', async () => {
    const dir = await dataDir();
    const store = new FileSubmissionStore(dir);
    await store.put(submission(A, 1));
    await store.put(submission(B, 2));
    await store.put(submission(C, 3));
    await writeFile(fileOf(dir, B), '{"id": "trunc');

    expect((await store.list()).map((s) => s.id)).toEqual([A, C]);
    expect((await store.summaries()).map((s) => s.id)).toEqual([A, B, C]);
    await expect(store.get(B)).rejects.toMatchObject({ code: 'storage', message: expect.stringContaining(`${B}.json is damaged`) });
    expect(await readFile(fileOf(dir, B), 'utf8')).toBe('{"id": "trunc');
    // a file that holds another submission is damaged too, not silently shown under the wrong id
    await writeFile(fileOf(dir, C), JSON.stringify(submission(A, 3)));
    await expect(store.get(C)).rejects.toMatchObject({ code: 'storage' });
    expect((await store.list()).map((s) => s.id)).toEqual([A]);
  });

  it('rebuilds a missing or damaged index from the submission files', async () => {
    const dir = await dataDir();
    const first = new FileSubmissionStore(dir);
    await first.put(submission(B, 2));
    await first.put(submission(A, 1));

    await rm(indexOf(dir));
    expect((await new FileSubmissionStore(dir).summaries()).map((s) => s.id)).toEqual([A, B]); // oldest first
    expect(JSON.parse(await readFile(indexOf(dir), 'utf8')).submissions).toHaveLength(2);

    await writeFile(indexOf(dir), '{"version": 2, "submissions": [{"id"');
    expect((await new FileSubmissionStore(dir).list()).map((s) => s.id)).toEqual([A, B]);

    // damaged while in use: the same store rebuilds it at its next call, and a put loses nothing
    await writeFile(indexOf(dir), '[]');
    await first.put(submission(C, 3));
    expect((await first.summaries()).map((s) => s.id)).toEqual([A, B, C]);
  });

  it('catches up an index left behind by a crash between the two writes', async () => {
    const dir = await dataDir();
    await new FileSubmissionStore(dir).put(submission(A, 1, { state: 'Queued' }));
    // the crash: the submission files were written, the index was not
    await writeFile(fileOf(dir, A), JSON.stringify(submission(A, 1, { state: 'Successful' })));
    await writeFile(fileOf(dir, B), JSON.stringify(submission(B, 2, { state: 'sending' })));

    const store = new FileSubmissionStore(dir);
    expect((await store.summaries()).map((s) => [s.id, s.state])).toEqual([
      [A, 'Queued'],
      [B, 'sending'],
    ]); // a file the index lacks is added when the store opens
    expect((await store.list()).map((s) => s.state)).toEqual(['Successful', 'sending']);
    expect((await store.summaries()).map((s) => s.state)).toEqual(['Successful', 'sending']); // the full read corrected it
  });

  it('imports the single history file of the earlier build and keeps it as .migrated', async () => {
    const dir = await dataDir();
    const text = await writeLegacy(dir, [queued, successful]);

    const store = new FileSubmissionStore(dir);
    expect(await store.list()).toEqual([queued, successful]);
    expect(await store.get(A)).toEqual(queued);
    expect((await store.summaries()).map((s) => [s.id, s.state, s.taskId])).toEqual([
      [A, 'Queued', 'task-1'],
      [B, 'Successful', 'task-2'],
    ]);
    await expect(stat(legacyOf(dir))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(`${legacyOf(dir)}.migrated`, 'utf8')).toBe(text);

    // once only: a later start neither imports again nor touches the kept file
    await store.put({ ...queued, state: 'Successful' });
    expect((await new FileSubmissionStore(dir).list()).map((s) => s.state)).toEqual(['Successful', 'Successful']);
    expect(await readFile(`${legacyOf(dir)}.migrated`, 'utf8')).toBe(text);
  });

  it('finishes a migration that was cut short, and never overwrites an earlier kept copy', async () => {
    const dir = await dataDir();
    await writeLegacy(dir, [queued, successful]);
    // cut short: one submission file written, no index, the old file not yet renamed
    await mkdir(join(dir, 'consumption'));
    await writeFile(fileOf(dir, A), JSON.stringify(queued));
    await writeFile(`${legacyOf(dir)}.migrated`, 'an earlier copy');

    const store = new FileSubmissionStore(dir);
    expect((await store.list()).map((s) => s.id)).toEqual([A, B]);
    expect(await readFile(`${legacyOf(dir)}.migrated`, 'utf8')).toBe('an earlier copy');
    expect(JSON.parse(await readFile(`${legacyOf(dir)}.migrated-2`, 'utf8')).jobs).toHaveLength(2);
  });

  it('keeps a newer submission file over the older copy in the old file', async () => {
    const dir = await dataDir();
    const newer = { ...queued, state: 'Successful' as const, updatedAt: '2026-11-01T10:00:00.000Z' };
    await new FileSubmissionStore(dir).put(newer);
    await writeLegacy(dir, [queued, successful]);
    expect(await new FileSubmissionStore(dir).list()).toEqual([newer, successful]);
  });

  it('refuses a damaged old history file by name and leaves it as it is', async () => {
    const dir = await dataDir();
    await mkdir(join(dir, 'jobs'));
    await writeFile(legacyOf(dir), '{"version": 1, "jobs": [');
    const store = new FileSubmissionStore(dir);
    await expect(store.list()).rejects.toMatchObject({ code: 'storage', message: expect.stringContaining('consumption-history.json is damaged') });
    expect(await readFile(legacyOf(dir), 'utf8')).toBe('{"version": 1, "jobs": [');
    // repaired by the user: the same store tries again
    await writeLegacy(dir, [successful]);
    expect((await store.list()).map((s) => s.id)).toEqual([B]);
  });
});
