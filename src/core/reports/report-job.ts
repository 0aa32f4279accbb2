import { randomUUID } from 'node:crypto';
import { AppError } from '@shared/errors';
import { REPORT_COMPLETE, REPORT_RUNNING, type ReportPeriod } from '@shared/schemas/billing-report';
import { ReportJob, ReportJobV1 } from '@shared/schemas/saved-report';
import type { Profile } from '@shared/schemas/profile';
import { startBillingReport } from './report-api';
import type { RetryNotice, ServiceClient } from '../service-api/service-client';
import type { EventHub } from '../runtime/event-hub';
import type { Clock } from '../ports/ports';
import { JobStore } from '../storage/job-store';
import type { ReportReceiver } from './report-receiver';
import { PollLoops } from '../runtime/poll-loop';
import { errorMessage } from '@shared/error-message';

/** Spec §3.1/§8: at least 30 s between polls of a real service. */
export const SERVICE_POLL_FLOOR_MS = 30_000;
/** A twin on this machine may be polled faster (tests, demo). */
export const LOOPBACK_POLL_FLOOR_MS = 100;

/** The report requests in flight, in `jobs/report-jobs.json`: version 2 keeps each job's state; version 1 files are upgraded on read. */
export function reportJobStore(dataDir: string): JobStore<ReportJob> {
  return new JobStore(dataDir, 'report-jobs', 2, ReportJob, { 1: ReportJobV1 });
}

export interface ReportJobDeps {
  clock: Clock;
  jobs: JobStore<ReportJob>;
  receiver: ReportReceiver;
  events: EventHub;
  getProfile: (profileId: string) => Promise<Profile>;
  clientFor: (profile: Profile) => Promise<ServiceClient>;
  notify?: ((title: string, body: string) => void) | undefined;
  /** Wanted interval between polls; raised to the floor for the host being polled. */
  pollIntervalMs?: number;
  loopbackPollIntervalMs?: number;
}

/** The interval actually used: never under 30 s unless the service runs on this machine. */
export function pollInterval(client: Pick<ServiceClient, 'isLoopback'>, wantedMs: number | undefined, loopbackWantedMs: number | undefined): number {
  if (client.isLoopback) return Math.max(LOOPBACK_POLL_FLOOR_MS, loopbackWantedMs ?? wantedMs ?? 2_000);
  return Math.max(SERVICE_POLL_FLOOR_MS, wantedMs ?? SERVICE_POLL_FLOOR_MS);
}

/**
 * A readable default name: "Billing 2026-10" for a whole month, else the dates — and the profile's name after it
 * ("Billing 2026-10 · Acme"), so months of two services never look the same in a list, a file name or a sheet.
 */
export function defaultReportName(period: ReportPeriod, profileName?: string): string {
  const name = periodName(period);
  return profileName ? `${name} · ${profileName}`.slice(0, 120) : name;
}

function periodName(period: ReportPeriod): string {
  const [year, month] = period.startDate.split('-').map(Number) as [number, number];
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const wholeMonth = period.startDate.endsWith('-01') && period.endDate === `${period.startDate.slice(0, 8)}${String(lastDay).padStart(2, '0')}`;
  return wholeMonth ? `Billing ${period.startDate.slice(0, 7)}` : `Billing ${period.startDate} – ${period.endDate}`;
}

/**
 * Report generation as a durable workflow: POST, persist the job with its location, then poll until the status is
 * complete, keeping the job through network loss and restarts; cancellable at any point. Every change of the job
 * is saved and sent as a `report:progress` event.
 */
export class ReportJobs {
  private readonly loops: PollLoops<ReportJob>;
  /** The last state of each job this process has seen, so a host can tell how a finished job ended. */
  private readonly lastSeen = new Map<string, ReportJob>();

  constructor(private readonly deps: ReportJobDeps) {
    this.loops = new PollLoops(deps.clock, {
      poll: (job, signal) => this.poll(job, signal),
      keep: async (job, error) => {
        const client = await this.client(job);
        return this.update(job, {
          state: 'retrying',
          busy: error.code === 'rate-limited',
          message: `${error.message} Closebook keeps the request and tries again.`,
          nextPollAt: this.after(this.interval(client)),
        });
      },
      stop: async (job, error) => {
        await this.update(job, { state: 'failed', message: error.message, nextPollAt: null });
      },
    });
  }

  async request(profileId: string, period: ReportPeriod): Promise<ReportJob> {
    const profile = await this.deps.getProfile(profileId);
    const client = await this.deps.clientFor(profile);
    await this.deps.jobs.ensureWritable().catch((error: unknown) => {
      throw new AppError(
        'storage',
        `Closebook cannot save in its data folder, so it did not ask the service for the report (a request it could not keep track of would be lost). ${errorMessage(error)}`,
      );
    });
    const location = await startBillingReport(client, period);
    const job: ReportJob = {
      id: randomUUID(),
      profileId,
      profileName: profile.name,
      period,
      location,
      startedAt: this.after(0),
      updatedAt: this.after(0),
      state: 'waiting',
      polls: 0,
      lastStatus: null,
      nextPollAt: this.after(this.interval(client)),
      message: null,
      reportId: null,
    };
    const saved = await this.save(job); // on disk before the first poll
    this.loops.start(saved);
    return saved;
  }

  list(): Promise<ReportJob[]> {
    return this.deps.jobs.list();
  }

  /** Picks up every unfinished job, e.g. after a restart; a job that stopped for the user stays stopped. */
  async resumeAll(): Promise<ReportJob[]> {
    const jobs = (await this.deps.jobs.list()).filter((job) => job.state !== 'failed');
    for (const job of jobs) this.loops.start(job);
    return jobs;
  }

  /** Waits until the given jobs (or all running ones) stop: done, failed or cancelled. */
  settled(ids?: string[]): Promise<void> {
    return this.loops.settled(ids);
  }

  /**
   * Stops a job and forgets it. A report already being saved is saved whole (the body is in; the save is one
   * transaction): then the job ends as done, and says so, rather than "nothing was saved".
   */
  async cancel(jobId: string): Promise<void> {
    const job = await this.deps.jobs.get(jobId);
    await this.loops.stop(jobId);
    if (this.lastSeen.get(jobId)?.state === 'done') return;
    await this.deps.jobs.remove(jobId);
    if (job) this.emit({ ...job, state: 'cancelled', nextPollAt: null, message: 'Cancelled. The service may still finish the report; nothing was saved.' });
  }

  /**
   * Starts polling again a job that stopped with an error (or that no process is running): at once, unless the
   * service was asked less than a poll interval ago (a job stops right after the poll it stopped on).
   */
  async retry(jobId: string): Promise<ReportJob> {
    const job = await this.deps.jobs.get(jobId);
    if (!job) throw new AppError('not-found', 'That report request no longer exists.');
    // A profile since deleted is the poll's to report, in words.
    const client = await this.client(job).catch(() => null);
    const spaced = client ? Date.parse(job.updatedAt) + this.interval(client) : 0;
    const resumed = await this.update(job, { state: 'waiting', message: null, nextPollAt: new Date(Math.max(this.deps.clock.now(), spaced)).toISOString() });
    this.loops.start(resumed);
    return resumed;
  }

  /** Stops every poll loop (the jobs stay saved and resume next time). */
  stopAll(): Promise<void> {
    return this.loops.stopAll();
  }

  private async poll(initial: ReportJob, signal: AbortSignal): Promise<{ job: ReportJob; done: boolean }> {
    const client = await this.client(initial);
    const interval = this.interval(client);
    // Saved before the service is asked: a process that ends during this poll resumes no sooner than the service
    // allows after it (a restart within 30 s of a poll would otherwise ask again at once).
    const asked = { ...initial, nextPollAt: this.after(interval), updatedAt: this.after(0) };
    await this.deps.jobs.put(asked);
    const job = { ...asked, state: 'polling' as const };
    this.emit(job);
    const onRetry = (notice: RetryNotice) =>
      this.emit({ ...job, state: 'retrying', busy: notice.busy, message: `${notice.reason} Retrying in ${Math.round(notice.delayMs / 1000)} s.` });
    const outcome = await this.deps.receiver.receive(job, client, {
      signal,
      onRetry,
      spacedMs: interval,
      onDownloading: (bytes, totalBytes) => this.emit({ ...job, transfer: totalBytes === null ? { bytes } : { bytes, totalBytes } }),
      onSaving: (lines, percent) => this.emit({ ...job, state: 'saving', transfer: { lines, percent } }),
    });
    const status = outcome.complete ? REPORT_COMPLETE : outcome.status;
    const answered = { ...job, polls: job.polls + 1, lastStatus: status, message: null };
    if (status === REPORT_RUNNING) {
      return { job: await this.update(answered, { state: 'waiting', nextPollAt: this.after(interval) }), done: false };
    }
    if (outcome.complete) {
      await this.deps.jobs.remove(job.id);
      const done: ReportJob = { ...answered, state: 'done', nextPollAt: null, reportId: outcome.reportId };
      this.emit(done);
      this.deps.notify?.(
        'Billing report ready',
        `${defaultReportName(job.period, job.profileName)} (${outcome.lines.toLocaleString('en')} billing lines) is saved and can be opened offline.`,
      );
      return { job: done, done: true };
    }
    throw new AppError(
      'bad-response',
      `The service answered report status ${status}, which Closebook does not know (0 = generating, 5 = complete), so it stopped asking. ` +
        `Try the request again later, or ask the service's support what status ${status} means.`,
    );
  }

  private async client(job: ReportJob): Promise<ServiceClient> {
    return this.deps.clientFor(await this.deps.getProfile(job.profileId));
  }

  private interval(client: ServiceClient): number {
    return pollInterval(client, this.deps.pollIntervalMs, this.deps.loopbackPollIntervalMs);
  }

  private after(ms: number): string {
    return new Date(this.deps.clock.now() + ms).toISOString();
  }

  private update(job: ReportJob, change: Partial<ReportJob>): Promise<ReportJob> {
    return this.save({ ...job, ...change });
  }

  private async save(job: ReportJob): Promise<ReportJob> {
    const stamped = { ...job, updatedAt: this.after(0) };
    await this.deps.jobs.put(stamped);
    this.emit(stamped);
    return stamped;
  }

  latest(jobId: string): ReportJob | undefined {
    return this.lastSeen.get(jobId);
  }

  private emit(job: ReportJob): void {
    const stamped = { ...job, updatedAt: this.after(0) };
    this.lastSeen.set(job.id, stamped);
    this.deps.events.emit('report:progress', stamped);
  }
}
