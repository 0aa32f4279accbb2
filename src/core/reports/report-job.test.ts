import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import type { ReportJob } from '@shared/schemas/saved-report';
import { buildBillingReport, generateOrganizations, startTwin } from '@testing/test-support';
import { type Connection, ServiceClient } from '../service-api/service-client';
import { EventHub } from '../runtime/event-hub';
import type { Clock } from '../ports/ports';
import { startBillingReport } from './report-api';
import { LedgerHandle } from '../ledger/ledger';
import { silentLogger } from '../ports/ports';
import { ReportLibrary } from './report-library';
import { ReportReceiver, writeCompressed } from './report-receiver';
import { FakeClock, REMOTE, remoteFetch, temporaryDir } from '@testing/test-support';
import { defaultReportName, pollInterval, ReportJobs, reportJobStore } from './report-job';

const PERIOD = { startDate: '2026-10-01', endDate: '2026-10-31' };
const cleanups = cleanupsAfterEach();

/** A clock whose sleeps never end (until aborted) while stopped: the job waits for its first poll forever. */
class StoppedClock extends FakeClock {
  stopped = true;
  override sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (!this.stopped) return super.sleep(ms, signal);
    return new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError')), { once: true }));
  }
}

async function setup(
  options: { clock?: Clock; twin?: Parameters<typeof startTwin>[0]; rewriteLocation?: (location: string) => string; baseUrl?: string } = {},
) {
  const clock = options.clock ?? new FakeClock();
  const twin = await startTwin({ reportReadyAfterMs: 120_000, reportReadyAfterPolls: 0, now: () => clock.now(), ...options.twin });
  const dir = await temporaryDir();
  cleanups.push(async () => {
    await twin.close();
    await dir.remove();
  });
  const c = twin.credentials;
  const connection: Connection = {
    baseUrl: options.baseUrl ?? REMOTE,
    clientId: c.clientId,
    username: c.username,
    resellerId: c.resellerId,
    sellerId: c.sellerId,
    readSecrets: async () => ({ apiSecret: c.apiSecret, password: c.password }),
  };
  const client = new ServiceClient(connection, { fetch: remoteFetch(twin, options.rewriteLocation), clock });
  const profile = { id: '11111111-1111-4111-8111-111111111111', name: 'Prod', kind: 'service' as const, createdAt: '', updatedAt: '', ...connection };
  const events = new EventHub();
  const progress: ReportJob[] = [];
  events.subscribe((event, payload) => event === 'report:progress' && progress.push(payload as ReportJob));
  const jobStore = reportJobStore(dir.path);
  const ledger = new LedgerHandle(dir.path, silentLogger);
  cleanups.push(() => ledger.close());
  const reports = new ReportLibrary(ledger.get);
  const receiver = new ReportReceiver(
    dir.path,
    ledger.get,
    (job) => defaultReportName(job.period),
    () => clock.now(),
    async () => 'en',
  );
  const makeJobs = (jobClock: Clock = clock) =>
    new ReportJobs({ clock: jobClock, jobs: jobStore, receiver, events, getProfile: async () => profile, clientFor: async () => client });
  return { twin, clock, dir, client, profile, progress, jobStore, reports, jobs: makeJobs(), makeJobs };
}

describe('report job', () => {
  it('polls a remote service no closer than every 30 s and saves the report when complete', async () => {
    const env = await setup();
    const job = await env.jobs.request(env.profile.id, PERIOD);
    await env.jobs.settled();
    const sleeps = (env.clock as FakeClock).sleeps;
    expect(sleeps.length).toBeGreaterThanOrEqual(4);
    expect(sleeps.every((ms) => ms >= 30_000)).toBe(true); // spec §8, not the constant it guards
    const done = env.progress.find((p) => p.state === 'done');
    expect(done).toMatchObject({ id: job.id, lastStatus: 5 });
    expect(done?.polls).toBe(sleeps.length);
    const [listing] = await env.reports.list();
    expect(listing).toMatchObject({ name: 'Billing 2026-10', host: 'billing.example.com', period: PERIOD, id: done?.reportId });
    expect(await env.jobStore.list()).toEqual([]);
  });

  it('reports progress: status, polls, elapsed and next poll time', async () => {
    const env = await setup();
    await env.jobs.request(env.profile.id, PERIOD);
    await env.jobs.settled();
    const waiting = env.progress.filter((p) => p.state === 'waiting' && p.lastStatus === 0);
    expect(waiting.length).toBeGreaterThan(1);
    expect(waiting.map((p) => p.polls)).toEqual(waiting.map((_, index) => index + 1));
    const last = waiting.at(-1);
    expect(Date.parse(last?.updatedAt ?? '') - Date.parse(last?.startedAt ?? '')).toBeGreaterThanOrEqual(60_000);
    const nextPolls = waiting.map((p) => Date.parse(p.nextPollAt ?? ''));
    expect(nextPolls.slice(1).map((at, index) => at - (nextPolls[index] as number))).toEqual(nextPolls.slice(1).map(() => 30_000));
    // Each poll is saved as asked before it asks: a process that ends during it resumes 30 s after it, not at once.
    const asking = env.progress.filter((p) => p.state === 'polling' && !p.transfer);
    expect(asking.length).toBeGreaterThan(1);
    for (const p of asking) expect(Date.parse(p.nextPollAt ?? '') - Date.parse(p.updatedAt)).toBe(30_000);
  });

  it('tells how far a large report got: bytes of the length the service gave, then lines saved with the share of the file read', async () => {
    const env = await setup({ twin: { organizations: 300, linesPerOrganization: 100 } });
    await env.jobs.request(env.profile.id, PERIOD);
    await env.jobs.settled();
    const downloading = env.progress.filter((p) => p.state === 'polling' && p.transfer?.bytes);
    expect(downloading.length).toBeGreaterThan(0);
    for (const p of downloading) expect(p.transfer?.totalBytes).toBeGreaterThanOrEqual(p.transfer?.bytes ?? Infinity);
    const saving = env.progress.filter((p) => p.state === 'saving' && p.transfer?.lines);
    expect(saving.length).toBeGreaterThan(0);
    const percents = saving.map((p) => p.transfer?.percent ?? -1);
    expect(percents.every((percent) => percent > 0 && percent < 100)).toBe(true);
    expect([...percents].sort((a, b) => a - b)).toEqual(percents);
    expect(env.progress.at(-1)).toMatchObject({ state: 'done' });
  });

  it('is on disk before its first poll, and a new process resumes it on the saved location without a new request', async () => {
    const stopped = new StoppedClock();
    const env = await setup({ clock: stopped });
    const job = await env.jobs.request(env.profile.id, PERIOD);
    const onDisk = JSON.parse(await readFile(join(env.dir.path, 'jobs', 'report-jobs.json'), 'utf8')) as {
      jobs: { id: string; location: string; polls: number }[];
    };
    expect(onDisk.jobs).toEqual([expect.objectContaining({ id: job.id, location: job.location, polls: 0 })]);
    await env.jobs.stopAll(); // the app closes

    stopped.stopped = false; // time moves again in the next process
    const restarted = env.makeJobs(stopped);
    const twinState = async () => (await (await fetch(`${env.twin.baseUrl}/__twin/state`)).json()) as { reports: number };
    expect(await restarted.resumeAll()).toHaveLength(1);
    await restarted.settled();
    expect(env.progress.at(-1)).toMatchObject({ id: job.id, state: 'done' });
    expect((await twinState()).reports).toBe(1);
  });

  it('resumes a job saved by the first version of the jobs file (no state), and saves it in the new version', async () => {
    const env = await setup();
    const location = await startBillingReport(env.client, PERIOD);
    const v1 = {
      id: '33333333-3333-4333-8333-333333333333',
      profileId: env.profile.id,
      profileName: 'Prod',
      period: PERIOD,
      location,
      startedAt: new Date(env.clock.now()).toISOString(),
      polls: 1,
      lastStatus: 0,
      nextPollAt: null,
      error: null,
    };
    const stopped = { ...v1, id: '44444444-4444-4444-8444-444444444444', error: 'The service answered report status 3.' };
    await mkdir(join(env.dir.path, 'jobs'), { recursive: true });
    await writeFile(join(env.dir.path, 'jobs', 'report-jobs.json'), JSON.stringify({ version: 1, jobs: [v1, stopped] }));
    const resumed = await env.jobs.resumeAll();
    expect(resumed.map((job) => job.id)).toEqual([v1.id]);
    await env.jobs.settled();
    expect(env.progress.at(-1)).toMatchObject({ id: v1.id, state: 'done', reportId: expect.any(String) });
    const onDisk = JSON.parse(await readFile(join(env.dir.path, 'jobs', 'report-jobs.json'), 'utf8')) as { version: number; jobs: ReportJob[] };
    expect(onDisk).toMatchObject({ version: 2, jobs: [{ id: stopped.id, state: 'failed', message: stopped.error }] });
  });

  it('after a crash between download and save, ingests the kept file instead of asking again; without one, a 404 says the report is gone', async () => {
    const stopped = new StoppedClock();
    const env = await setup({ clock: stopped });
    const job = await env.jobs.request(env.profile.id, PERIOD);
    const other = await env.jobs.request(env.profile.id, { startDate: '2026-09-01', endDate: '2026-09-30' });
    await env.jobs.stopAll();
    // The body had arrived whole for the first job before the app died; the service has since dropped both reports.
    const data = buildBillingReport(generateOrganizations({ seed: 8, organizations: 4, linesPerOrganization: 3 }), '2026-10-01', '2026-10-31', { seed: 8 });
    async function* body() {
      yield JSON.stringify({ status: 5, data });
    }
    await writeCompressed(body(), join(env.dir.path, 'received', `${job.id}.json.gz`));
    env.twin.faults.add({ kind: 'status', status: 404, method: 'GET', path: 'MonthlyBilling', times: 10 });
    stopped.stopped = false;
    const restarted = env.makeJobs(stopped);
    await restarted.resumeAll();
    await restarted.settled();
    const done = env.progress.filter((p) => p.id === job.id).at(-1);
    expect(done).toMatchObject({ state: 'done', reportId: expect.any(String) });
    const [listing] = await env.reports.list();
    expect(listing?.counts.lines).toBe(
      data.flatMap((e) => e.organizations.flatMap((o) => o.services.flatMap((s) => s.items.flatMap((i) => i.products)))).length,
    );
    expect(env.progress.filter((p) => p.id === other.id).at(-1)).toMatchObject({
      state: 'failed',
      message: expect.stringContaining('no longer has this report'),
    });
  });

  it('cancels: the job is gone and nothing is saved', async () => {
    const env = await setup({ clock: new StoppedClock() });
    const job = await env.jobs.request(env.profile.id, PERIOD);
    await env.jobs.cancel(job.id);
    expect(await env.jobStore.list()).toEqual([]);
    expect(await env.reports.list()).toEqual([]);
    expect(env.progress.at(-1)).toMatchObject({ id: job.id, state: 'cancelled' });
  });

  it('cancelled while the report is being saved, ends as done with the report saved, not "nothing was saved"', async () => {
    const env = await setup({ twin: { organizations: 300, linesPerOrganization: 100 } });
    let cancelling: Promise<void> | undefined;
    const job = await env.jobs.request(env.profile.id, PERIOD);
    const watching = setInterval(() => {
      if (!cancelling && env.progress.some((p) => p.state === 'saving')) cancelling = env.jobs.cancel(job.id);
    }, 1);
    await env.jobs.settled();
    clearInterval(watching);
    expect(cancelling).toBeDefined();
    await cancelling;
    expect(env.progress.at(-1)).toMatchObject({ id: job.id, state: 'done', reportId: expect.any(String) });
    expect(await env.reports.list()).toHaveLength(1);
    expect(await env.jobStore.list()).toEqual([]);
  });

  it('stops on a status it does not know, naming the value, and keeps the job to try again', async () => {
    const env = await setup();
    env.twin.faults.add({ kind: 'report-status', status: 3 });
    const job = await env.jobs.request(env.profile.id, PERIOD);
    await env.jobs.settled();
    const failed = env.progress.at(-1);
    expect(failed).toMatchObject({ state: 'failed', message: expect.stringContaining('status 3') });
    expect((await env.jobStore.get(job.id))?.message).toContain('status 3');
    // Tried again at once, it still waits out the interval since the poll it stopped on.
    const resumed = await env.jobs.retry(job.id);
    expect(Date.parse(resumed.nextPollAt ?? '') - Date.parse(failed?.updatedAt ?? '')).toBe(30_000);
    await env.jobs.settled();
    expect(env.progress.at(-1)).toMatchObject({ state: 'done' });
  });

  it('keeps the job through server errors and dropped connections, showing "retrying", then finishes', async () => {
    const env = await setup();
    env.twin.faults.add({ kind: 'status', status: 503, method: 'GET', path: 'MonthlyBilling', times: 5 });
    env.twin.faults.add({ kind: 'drop', method: 'GET', path: 'MonthlyBilling', times: 2 });
    await env.jobs.request(env.profile.id, PERIOD);
    await env.jobs.settled();
    expect(env.progress.some((p) => p.state === 'retrying')).toBe(true);
    expect(env.progress.filter((p) => p.state === 'retrying').every((p) => !p.busy)).toBe(true);
    expect(env.progress.at(-1)).toMatchObject({ state: 'done' });
    // The client's own retries of the report's address wait out the poll interval too (spec §8), not 1, 2, 4 s.
    expect((env.clock as FakeClock).sleeps.every((ms) => ms >= 30_000)).toBe(true);
  });

  it('says the service is busy while it answers 429 (slow down), then finishes', async () => {
    const env = await setup();
    env.twin.faults.add({ kind: 'status', status: 429, method: 'GET', path: 'MonthlyBilling', times: 2 });
    env.twin.faults.add({ kind: 'status', status: 429, method: 'GET', path: 'MonthlyBilling', retryAfterSeconds: 300 });
    await env.jobs.request(env.profile.id, PERIOD);
    await env.jobs.settled();
    const retrying = env.progress.filter((p) => p.state === 'retrying');
    expect(retrying.length).toBeGreaterThan(0);
    expect(retrying.every((p) => p.busy && /busy/.test(p.message ?? ''))).toBe(true);
    expect(env.progress.at(-1)).toMatchObject({ state: 'done' });
    // No sooner than every 30 s, and the five minutes the service asked for waited in full.
    const sleeps = (env.clock as FakeClock).sleeps;
    expect(sleeps.every((ms) => ms >= 30_000)).toBe(true);
    expect(sleeps).toContain(300_000);
  });

  it('stops, saying to request the month again, when the report is gone (410), and on an answer it does not expect, rather than asking for ever', async () => {
    const env = await setup();
    env.twin.faults.add({ kind: 'status', status: 410, method: 'GET', path: 'MonthlyBilling', times: 50 });
    await env.jobs.request(env.profile.id, PERIOD);
    await env.jobs.settled();
    expect(env.progress.at(-1)).toMatchObject({ state: 'failed', message: expect.stringMatching(/no longer has this report.*Request the month again/) });
    env.twin.faults.clear();
    env.twin.faults.add({ kind: 'status', status: 405, method: 'GET', path: 'MonthlyBilling', times: 50 });
    await env.jobs.request(env.profile.id, PERIOD);
    await env.jobs.settled();
    expect(env.progress.at(-1)).toMatchObject({ state: 'failed', message: expect.stringMatching(/HTTP 405, which Closebook does not expect.*base URL/) });
  });

  it('signs in again when the token expires mid-job', async () => {
    const env = await setup();
    let expired = false;
    const jobs = env.jobs;
    await jobs.request(env.profile.id, PERIOD);
    const unsubscribe = (async () => {
      while (!expired) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (env.progress.some((p) => p.lastStatus === 0)) {
          env.twin.expireTokens();
          expired = true;
        }
      }
    })();
    await jobs.settled();
    await unsubscribe;
    expect(env.progress.at(-1)).toMatchObject({ state: 'done' });
  });

  it('refuses a location on another origin: the token never goes there and no job is kept', async () => {
    const env = await setup({ rewriteLocation: (location) => location.replace(/^http:\/\/127\.0\.0\.1:\d+/, 'https://elsewhere.example') });
    await expect(env.jobs.request(env.profile.id, PERIOD)).rejects.toMatchObject({ code: 'forbidden-origin' });
    expect(await env.jobStore.list()).toEqual([]);
  });

  it('sends no request when its job could not be saved (a data folder it cannot write), and says so', async () => {
    const env = await setup();
    await writeFile(join(env.dir.path, 'jobs'), 'a file where the jobs folder should be'); // unwritable, even for root
    await expect(env.jobs.request(env.profile.id, PERIOD)).rejects.toMatchObject({
      code: 'storage',
      message: expect.stringMatching(/did not ask the service.*writable/),
    });
    const twinState = (await (await fetch(`${env.twin.baseUrl}/__twin/state`)).json()) as { reports: number };
    expect(twinState.reports).toBe(0);
  });
});

describe('poll interval and names', () => {
  it('holds 30 s for any service not on this machine, and allows a loopback twin to go faster', () => {
    expect(pollInterval({ isLoopback: false }, 5_000, 5_000)).toBe(30_000);
    expect(pollInterval({ isLoopback: false }, 45_000, undefined)).toBe(45_000);
    expect(pollInterval({ isLoopback: true }, 30_000, 500)).toBe(500);
    expect(pollInterval({ isLoopback: true }, undefined, 1)).toBe(100);
  });

  it('names a whole month by the month', () => {
    expect(defaultReportName({ startDate: '2026-02-01', endDate: '2026-02-28' })).toBe('Billing 2026-02');
    expect(defaultReportName({ startDate: '2026-02-01', endDate: '2026-02-28' }, 'Acme Prod')).toBe('Billing 2026-02 · Acme Prod');
    expect(defaultReportName({ startDate: '2026-02-01', endDate: '2026-02-15' })).toBe('Billing 2026-02-01 – 2026-02-15');
  });
});
