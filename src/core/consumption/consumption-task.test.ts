import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import type { InputRow, Submission, SubmissionSummary } from '@shared/schemas/consumption';
import { startTwin, type Twin } from '@testing/test-support';
import { type Connection, ServiceClient } from '../service-api/service-client';
import { failedRowsCsv } from './failed-rows';
import { EventHub } from '../runtime/event-hub';
import { FakeClock, REMOTE, remoteFetch, temporaryDir } from '@testing/test-support';
import { consumptionPollDelay, ConsumptionTasks } from './consumption-task';
import { FileSubmissionStore, type SubmissionStore } from './history-store';

const UNKNOWN = '11111111-2222-4333-8444-555555555555';
const cleanups = cleanupsAfterEach();

async function setup(twinOptions: Parameters<typeof startTwin>[0] = {}, changeAnswer?: (response: Response) => Response) {
  const clock = new FakeClock();
  const twin = await startTwin({ taskQueuedMs: 4_000, taskProcessingMs: 8_000, now: () => clock.now(), ...twinOptions });
  const dir = await temporaryDir();
  cleanups.push(async () => {
    await twin.close();
    await dir.remove();
  });
  const c = twin.credentials;
  const connection: Connection = {
    baseUrl: REMOTE,
    clientId: c.clientId,
    username: c.username,
    resellerId: c.resellerId,
    sellerId: c.sellerId,
    readSecrets: async () => ({ apiSecret: c.apiSecret, password: c.password }),
  };
  const fetch = remoteFetch(twin);
  const client = new ServiceClient(connection, { fetch: changeAnswer ? async (input, init) => changeAnswer(await fetch(input, init)) : fetch, clock });
  const profile = { id: '11111111-1111-4111-8111-111111111111', name: 'Prod', kind: 'service' as const, createdAt: '', updatedAt: '', ...connection };
  const events = new EventHub();
  const progress: SubmissionSummary[] = [];
  events.subscribe((event, payload) => event === 'consumption:progress' && progress.push(payload as SubmissionSummary));
  const store = new FileSubmissionStore(dir.path);
  const make = (using: SubmissionStore = store) =>
    new ConsumptionTasks({ clock, store: using, events, getProfile: async () => profile, clientFor: async () => client });
  return { twin, clock, dir, store, progress, profile, tasks: make(), make };
}

function metered(twin: Twin) {
  const subscriptions = twin.organizations.flatMap((o) => o.services.flatMap((s) => s.subscriptions)).filter((s) => s.metered);
  const withAddon = subscriptions.find((s) => s.addons.length > 0);
  if (!withAddon) throw new Error('no metered subscription with an add-on');
  return { plain: subscriptions.find((s) => s !== withAddon)!, withAddon };
}

function rows(twin: Twin, extra: Partial<InputRow>[] = []): InputRow[] {
  const { plain, withAddon } = metered(twin);
  return [
    { row: 2, subscriptionId: plain.subscriptionId, isAddon: 'no', addonId: '', quantity: '12.5', consumptionId: '' },
    { row: 3, subscriptionId: withAddon.subscriptionId, isAddon: 'yes', addonId: withAddon.addons[0]!.addonId, quantity: '3', consumptionId: '' },
    ...extra.map((fields, index) => ({ row: 4 + index, subscriptionId: UNKNOWN, isAddon: 'no', addonId: '', quantity: '1', consumptionId: '', ...fields })),
  ];
}

describe('consumption task', () => {
  it('goes Queued → Processing → Successful, polling after 3 s and backing off to 30 s', async () => {
    const env = await setup({ taskQueuedMs: 20_000, taskProcessingMs: 60_000 });
    const submission = await env.tasks.submit(env.profile.id, 'march.csv', rows(env.twin));
    expect(submission.state).toBe('Queued');
    await env.tasks.settled();
    expect(env.clock.sleeps.slice(0, 5)).toEqual([3_000, 6_000, 12_000, 24_000, 30_000]);
    expect(Math.max(...env.clock.sleeps)).toBe(30_000);
    const states = env.progress.map((p) => p.state);
    expect(states).toContain('Processing');
    expect(states.at(-1)).toBe('Successful');
    expect(env.twin.savedConsumption()).toHaveLength(2);
    expect((await env.tasks.get(submission.id)).message).toBe('All 2 records were submitted.');
  });

  it('says of a batch of one that its record was submitted, or was rejected', async () => {
    const env = await setup();
    const [one] = rows(env.twin);
    const submitted = await env.tasks.submit(env.profile.id, 'one.csv', [one!]);
    await env.tasks.settled();
    expect((await env.tasks.get(submitted.id)).message).toBe('The record was submitted.');
    const [, , unknown] = rows(env.twin, [{}]);
    const rejected = await env.tasks.submit(env.profile.id, 'unknown.csv', [{ ...unknown!, row: 2 }]);
    await env.tasks.settled();
    expect((await env.tasks.get(rejected.id)).message).toMatch(/^The service rejected 1 of 1 record, so it saved none of this batch\./);
  });

  it('joins each failed record to its row, says nothing was saved, and the fixed batch then succeeds', async () => {
    const env = await setup();
    const batch = rows(env.twin, [{}]);
    const first = await env.tasks.submit(env.profile.id, 'march.csv', batch);
    await env.tasks.settled();
    const failed = await env.tasks.get(first.id);
    expect(failed.state).toBe('Failed');
    expect(failed.failures).toEqual([expect.objectContaining({ row: 4, errorMessage: expect.stringContaining('does not exist for seller') })]);
    expect(failed.message).toMatch(/saved none of this batch/);
    expect(env.twin.savedConsumption()).toHaveLength(0);
    expect(failedRowsCsv(failed)).toContain(`4,${UNKNOWN},no,,1,,`);

    const fixed = await env.tasks.submit(
      env.profile.id,
      'march.csv',
      batch.filter((row) => row.row !== 4),
    );
    await env.tasks.settled();
    expect((await env.tasks.get(fixed.id)).state).toBe('Successful');
    expect(env.twin.savedConsumption()).toHaveLength(2);
    expect((await env.tasks.history()).map((s) => s.state)).toEqual(['Successful', 'Failed']);

    // Finished batches stay finished: "check again" is refused, not turned back into Queued.
    for (const id of [first.id, fixed.id]) {
      await expect(env.tasks.resume(id)).rejects.toMatchObject({ code: 'validation', message: expect.stringMatching(/nothing left to check/) });
    }
    expect((await env.tasks.history()).map((s) => s.state)).toEqual(['Successful', 'Failed']);
  });

  it('asks before sending a batch identical to one that succeeded', async () => {
    const env = await setup({ taskQueuedMs: 0, taskProcessingMs: 0 });
    const batch = rows(env.twin);
    await env.tasks.submit(env.profile.id, 'a.csv', batch);
    await env.tasks.settled();
    await expect(env.tasks.submit(env.profile.id, 'copy of a.csv', batch)).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/already submitted successfully on \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(task /),
    });
    const again = await env.tasks.submit(env.profile.id, 'copy of a.csv', batch, { confirmRepeat: true });
    await env.tasks.settled();
    expect((await env.tasks.get(again.id)).state).toBe('Successful');
  });

  it("asks again only for the same period: the same quantities for another month are that month's usage", async () => {
    const env = await setup({ taskQueuedMs: 0, taskProcessingMs: 0 });
    const batch = rows(env.twin);
    const october = { startDate: '2026-10-01', endDate: '2026-10-31' };
    await env.tasks.submit(env.profile.id, 'october.csv', batch); // last month by default
    await env.tasks.settled();
    await expect(env.tasks.submit(env.profile.id, 'october again.csv', batch, { period: october })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('This exact batch for October 2026 was already submitted successfully'),
    });
    const november = await env.tasks.submit(env.profile.id, 'november.csv', batch, { period: { startDate: '2026-11-01', endDate: '2026-11-30' } });
    await env.tasks.settled();
    expect((await env.tasks.history()).map((s) => [s.fileName, s.period, s.state])).toEqual([
      ['november.csv', { startDate: '2026-11-01', endDate: '2026-11-30' }, 'Successful'],
      ['october.csv', october, 'Successful'],
    ]);
    expect(november.period).toEqual({ startDate: '2026-11-01', endDate: '2026-11-30' });
  });

  it("keeps the user's own columns with the batch, and never sends them", async () => {
    const env = await setup({ taskQueuedMs: 0, taskProcessingMs: 0 });
    const [first, second] = rows(env.twin);
    const batch = [
      { ...first!, extra: ['Contoso', 'CC-1', 'dropped: no column'] },
      { ...second!, extra: ['Fabrikam'] },
    ];
    const sent = await env.tasks.submit(env.profile.id, 'own columns.csv', batch, { extraColumns: ['Customer', 'Cost centre'] });
    await env.tasks.settled();
    const kept = await env.tasks.get(sent.id);
    expect(kept.extraColumns).toEqual(['Customer', 'Cost centre']);
    expect(kept.rows.map((row) => row.extra)).toEqual([
      ['Contoso', 'CC-1'],
      ['Fabrikam', ''],
    ]);
    expect(JSON.stringify(env.twin.savedConsumption())).not.toMatch(/Contoso|Fabrikam|CC-1/);
    for (const record of env.twin.savedConsumption())
      expect(Object.keys(record).sort()).toEqual(expect.arrayContaining(['isAddon', 'quantity', 'subscriptionId']));
    expect(
      env.twin
        .savedConsumption()
        .flatMap(Object.keys)
        .filter((key) => !['subscriptionId', 'isAddon', 'addonId', 'quantity', 'consumptionId'].includes(key)),
    ).toEqual([]);
  });

  it.each([
    ['its connection broke', { kind: 'drop-after-processing' as const }],
    ['a gateway gave up waiting (504)', { kind: 'status' as const, status: 504 }],
    ['a gateway could not get its answer (502)', { kind: 'status' as const, status: 502 }],
  ])('marks a send whose answer was lost (%s) as "outcome unknown", and never sends it again without a yes', async (_, fault) => {
    const env = await setup({ taskQueuedMs: 0, taskProcessingMs: 0 });
    env.twin.faults.add({ ...fault, method: 'POST', path: 'bulkconsumptions' });
    const batch = rows(env.twin);
    const lost = await env.tasks.submit(env.profile.id, 'a.csv', batch);
    expect(lost).toMatchObject({ state: 'outcome-unknown', taskId: null, message: expect.stringContaining('cannot tell whether the service received it') });
    await expect(env.tasks.submit(env.profile.id, 'a.csv', batch)).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('may have arrived'),
    });
  });

  it('marks a send the service plainly refused (405) as an error that may be sent again, not as one that may have arrived', async () => {
    const env = await setup({ taskQueuedMs: 0, taskProcessingMs: 0 });
    env.twin.faults.add({ kind: 'status', status: 405, method: 'POST', path: 'bulkconsumptions' });
    const batch = rows(env.twin);
    await expect(env.tasks.submit(env.profile.id, 'a.csv', batch)).resolves.toMatchObject({ state: 'error', message: expect.stringContaining('HTTP 405') });
    await expect(env.tasks.submit(env.profile.id, 'a.csv', batch)).resolves.toMatchObject({ state: 'Queued' });
    await env.tasks.settled();
  });

  it('keeps an accepted batch whose status points at another host as "outcome unknown" with its task id, never a plain error', async () => {
    const foreign = (response: Response) => {
      if (response.status !== 202) return response;
      const headers = new Headers(response.headers);
      headers.set('location', 'https://elsewhere.example.net/tasks/1');
      return new Response(response.body, { status: response.status, headers });
    };
    const env = await setup({ taskQueuedMs: 0, taskProcessingMs: 0 }, foreign);
    const batch = rows(env.twin);
    const sent = await env.tasks.submit(env.profile.id, 'a.csv', batch);
    expect(sent).toMatchObject({ state: 'outcome-unknown', taskId: expect.stringMatching(/\S/), statusUrl: expect.stringContaining(REMOTE) });
    expect(sent.message).toMatch(/accepted this batch as task .*elsewhere\.example\.net/);
    // Sending it again needs the user's yes, as for any batch that may have arrived.
    await expect(env.tasks.submit(env.profile.id, 'a.csv', batch)).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('may have arrived'),
    });
    // Checking the task at the service's own address finds the result.
    await env.tasks.resume(sent.id);
    await env.tasks.settled();
    expect((await env.tasks.get(sent.id)).state).toBe('Successful');
    expect(env.twin.savedConsumption()).toHaveLength(2);
  });

  it('treats a 2xx answer it cannot read as "outcome unknown"', async () => {
    const unreadable = (response: Response) => (response.status === 202 ? new Response('<html>ok</html>', { status: 202 }) : response);
    const env = await setup({}, unreadable);
    const sent = await env.tasks.submit(env.profile.id, 'a.csv', rows(env.twin));
    expect(sent.state).toBe('outcome-unknown');
    expect(sent.message).toMatch(/cannot tell whether the batch was accepted/);
  });

  it('submits nothing while a row is invalid, naming the rows', async () => {
    const env = await setup();
    await expect(env.tasks.submit(env.profile.id, 'bad.csv', rows(env.twin, [{ subscriptionId: 'nope' }]))).rejects.toMatchObject({
      code: 'validation',
      fields: { 'row.4.subscriptionId': expect.any(String) },
    });
    expect(await env.tasks.history()).toEqual([]);
  });

  it('is on disk before the POST, and after a restart resumes a task in flight; a send cut off becomes "outcome unknown"', async () => {
    const env = await setup({ taskQueuedMs: 60_000, taskProcessingMs: 0 });
    const submission = await env.tasks.submit(env.profile.id, 'a.csv', rows(env.twin));
    await env.tasks.stopAll(); // the app closes while the task is queued
    const onDisk = JSON.parse(await readFile(join(env.dir.path, 'consumption', `${submission.id}.json`), 'utf8')) as Submission;
    expect(onDisk).toMatchObject({ id: submission.id, state: 'Queued', taskId: submission.taskId });
    await env.store.put({ ...onDisk, id: '22222222-2222-4222-8222-222222222222', state: 'sending', taskId: null, statusUrl: null });

    const restarted = env.make();
    await restarted.resumeAll();
    await restarted.settled();
    expect((await restarted.get(submission.id)).state).toBe('Successful');
    expect((await restarted.get('22222222-2222-4222-8222-222222222222')).state).toBe('outcome-unknown');
  });

  it('resumes a task in flight that the earlier build saved in its single history file, after the upgrade', async () => {
    const env = await setup({ taskQueuedMs: 60_000, taskProcessingMs: 0 });
    const submission = await env.tasks.submit(env.profile.id, 'a.csv', rows(env.twin));
    await env.tasks.stopAll(); // the earlier build closes while the task is queued…
    expect(submission).toMatchObject({ state: 'Queued', taskId: expect.any(String), statusUrl: expect.any(String) });
    await rm(join(env.dir.path, 'consumption'), { recursive: true });
    await mkdir(join(env.dir.path, 'jobs'));
    const legacy = `${JSON.stringify({ version: 1, jobs: [submission] }, null, 2)}\n`; // …having saved it the way it did
    await writeFile(join(env.dir.path, 'jobs', 'consumption-history.json'), legacy);

    const upgraded = env.make(new FileSubmissionStore(env.dir.path));
    await upgraded.resumeAll();
    await upgraded.settled();
    expect((await upgraded.get(submission.id)).state).toBe('Successful');
    expect(env.twin.savedConsumption()).toHaveLength(2);
    expect(await readFile(join(env.dir.path, 'jobs', 'consumption-history.json.migrated'), 'utf8')).toBe(legacy);
  });

  it('needs a seller id on the profile', async () => {
    const env = await setup();
    const tasks = new ConsumptionTasks({
      clock: env.clock,
      store: env.store,
      events: new EventHub(),
      getProfile: async () => ({ ...env.profile, sellerId: '' }),
      clientFor: async (profile) =>
        new ServiceClient({ ...profile, readSecrets: async () => ({ apiSecret: 'x', password: 'y' }) }, { fetch: remoteFetch(env.twin), clock: env.clock }),
    });
    await expect(tasks.submit(env.profile.id, 'a.csv', rows(env.twin))).rejects.toMatchObject({
      code: 'validation',
      message: expect.stringContaining('no seller ID'),
    });
    expect(await tasks.history()).toEqual([]);
  });
});

describe('consumption poll delay', () => {
  it('starts after a few seconds and doubles up to 30 s; a loopback twin goes faster', () => {
    expect([0, 1, 2, 3, 4, 9].map((polls) => consumptionPollDelay(polls, false))).toEqual([3_000, 6_000, 12_000, 24_000, 30_000, 30_000]);
    expect(consumptionPollDelay(0, true)).toBeLessThan(1_000);
  });
});
