import { randomUUID } from 'node:crypto';
import { AppError } from '../../../shared/errors';
import { buildReportModel, countReport, currencyTotals } from '../../../shared/report-model';
import { REPORT_COMPLETE, REPORT_RUNNING, type ReportPeriod } from '../../../shared/schemas/billing-report';
import { REPORT_SCHEMA_VERSION, type ReportJob, type ReportMeta, type ReportProgress, type SavedReport } from '../../../shared/schemas/saved-report';
import type { Profile } from '../../../shared/schemas/profile';
import { pollBillingReport, startBillingReport } from './report-api';
import type { ServiceClient } from '../platform/service-client';
import type { EventHub } from '../platform/event-hub';
import type { Clock } from '../platform/ports';
import type { JobStore } from '../platform/job-store';
import type { ReportStore } from './report-store';
import { RunningLoops } from '../platform/poll-loop';

/** Spec §3.1/§8: at least 30 s between polls of a real service. */
export const SERVICE_POLL_FLOOR_MS = 30_000;
/** A twin on this machine may be polled faster (tests, demo). */
export const LOOPBACK_POLL_FLOOR_MS = 100;

export interface ReportJobDeps {
  clock: Clock;
  jobs: JobStore<ReportJob>;
  reports: ReportStore;
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

/** A readable default name: "Billing 2026-10" for a whole month, else the dates. */
export function defaultReportName(period: ReportPeriod): string {
  const [year, month] = period.startDate.split('-').map(Number) as [number, number];
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const wholeMonth = period.startDate.endsWith('-01') && period.endDate === `${period.startDate.slice(0, 8)}${String(lastDay).padStart(2, '0')}`;
  return wholeMonth ? `Billing ${period.startDate.slice(0, 7)}` : `Billing ${period.startDate} – ${period.endDate}`;
}

const TRANSIENT = new Set(['network', 'timeout', 'service', 'rate-limited']);

/**
 * Report generation as a durable workflow: POST, persist the job with its location, then poll until the status is
 * complete, keeping the job through network loss and restarts; cancellable at any point.
 */
export class ReportJobs {
  private readonly loops = new RunningLoops();

  constructor(private readonly deps: ReportJobDeps) {}

  async request(profileId: string, period: ReportPeriod): Promise<ReportJob> {
    const profile = await this.deps.getProfile(profileId);
    const client = await this.deps.clientFor(profile);
    const location = await startBillingReport(client, period);
    const now = this.deps.clock.now();
    const job: ReportJob = {
      id: randomUUID(),
      profileId,
      profileName: profile.name,
      period,
      location,
      startedAt: new Date(now).toISOString(),
      polls: 0,
      lastStatus: null,
      nextPollAt: new Date(now + pollInterval(client, this.deps.pollIntervalMs, this.deps.loopbackPollIntervalMs)).toISOString(),
      error: null,
    };
    await this.deps.jobs.put(job); // on disk before the first poll
    this.emit(job, 'waiting', null, null);
    this.run(job);
    return job;
  }

  list(): Promise<ReportJob[]> {
    return this.deps.jobs.list();
  }

  /** Picks up every unfinished job, e.g. after a restart. */
  async resumeAll(): Promise<ReportJob[]> {
    const jobs = (await this.deps.jobs.list()).filter((job) => job.error === null);
    for (const job of jobs) this.run(job);
    return jobs;
  }

  /** Waits until the given jobs (or all running ones) stop: done, failed or cancelled. */
  settled(ids?: string[]): Promise<void> {
    return this.loops.settled(ids);
  }

  async cancel(jobId: string): Promise<void> {
    const job = await this.deps.jobs.get(jobId);
    await this.loops.stop(jobId);
    await this.deps.jobs.remove(jobId);
    if (job) this.emit(job, 'cancelled', 'Cancelled. The service may still finish the report; nothing was saved.', null);
  }

  /** Starts polling again a job that stopped with an error (or that no process is running). */
  async retry(jobId: string): Promise<ReportJob> {
    const job = await this.deps.jobs.get(jobId);
    if (!job) throw new AppError('not-found', 'That report request no longer exists.');
    const resumed: ReportJob = { ...job, error: null, nextPollAt: new Date(this.deps.clock.now()).toISOString() };
    await this.deps.jobs.put(resumed);
    this.run(resumed);
    return resumed;
  }

  /** Stops every poll loop (the jobs stay saved and resume next time). */
  stopAll(): Promise<void> {
    return this.loops.stopAll();
  }

  private run(job: ReportJob): void {
    this.loops.start(job.id, (signal) => this.loop(job, signal));
  }

  private async loop(initial: ReportJob, signal: AbortSignal): Promise<void> {
    let job = initial;
    const { clock } = this.deps;
    try {
      const profile = await this.deps.getProfile(job.profileId);
      const client = await this.deps.clientFor(profile);
      const interval = pollInterval(client, this.deps.pollIntervalMs, this.deps.loopbackPollIntervalMs);
      for (;;) {
        const wait = job.nextPollAt ? Date.parse(job.nextPollAt) - clock.now() : 0;
        if (wait > 0) await clock.sleep(wait, signal);
        this.emit(job, 'polling', null, null);
        let poll;
        try {
          poll = await pollBillingReport(client, job.location, signal, (notice) => this.emit(job, 'retrying', `${notice.reason} Retrying in ${Math.round(notice.delayMs / 1000)} s.`, null));
        } catch (error) {
          if (signal.aborted) return;
          if (error instanceof AppError && TRANSIENT.has(error.code)) {
            // Keep the job; try again at the next poll time.
            job = { ...job, nextPollAt: new Date(clock.now() + interval).toISOString() };
            await this.deps.jobs.put(job);
            this.emit(job, 'retrying', `${error.message} Closebook keeps the request and tries again.`, null);
            continue;
          }
          throw error;
        }
        job = { ...job, polls: job.polls + 1, lastStatus: poll.status };
        if (poll.status === REPORT_RUNNING) {
          job = { ...job, nextPollAt: new Date(clock.now() + interval).toISOString() };
          await this.deps.jobs.put(job);
          this.emit(job, 'waiting', null, null);
          continue;
        }
        if (poll.status === REPORT_COMPLETE && poll.entries) {
          this.emit(job, 'saving', null, null);
          const meta = await this.save(job, client, poll.entries);
          await this.deps.jobs.remove(job.id);
          this.emit(job, 'done', null, meta.id);
          this.deps.notify?.('Billing report ready', `${meta.name} (${meta.counts.lines.toLocaleString('en')} billing lines) is saved and can be opened offline.`);
          return;
        }
        throw new AppError(
          'bad-response',
          `The service answered report status ${poll.status}, which Closebook does not know (0 = generating, 5 = complete), so it stopped asking. ` +
            `Try the request again later, or ask the service's support what status ${poll.status} means.`,
        );
      }
    } catch (error) {
      if (signal.aborted || (error instanceof AppError && error.code === 'cancelled')) return;
      const message = error instanceof AppError ? error.message : `Closebook could not finish the report request (${error instanceof Error ? error.message : String(error)}).`;
      job = { ...job, error: message, nextPollAt: null };
      await this.deps.jobs.put(job).catch(() => undefined);
      this.emit(job, 'failed', message, null);
    }
  }

  private async save(job: ReportJob, client: ServiceClient, entries: SavedReport['entries']): Promise<ReportMeta> {
    const model = buildReportModel(entries, { searchable: false }); // totals only
    const meta: ReportMeta = {
      id: randomUUID(),
      schemaVersion: REPORT_SCHEMA_VERSION,
      name: defaultReportName(job.period),
      profileId: job.profileId,
      profileName: job.profileName,
      host: new URL(client.connection.baseUrl).host,
      period: job.period,
      fetchedAt: new Date(this.deps.clock.now()).toISOString(),
      counts: countReport(entries),
      totals: currencyTotals(model.lines, model.scale),
    };
    await this.deps.reports.save({ meta, entries });
    return meta;
  }

  private emit(job: ReportJob, state: ReportProgress['state'], message: string | null, reportId: string | null): void {
    this.deps.events.emit('report:progress', {
      jobId: job.id,
      profileId: job.profileId,
      period: job.period,
      state,
      lastStatus: job.lastStatus,
      polls: job.polls,
      elapsedMs: Math.max(0, this.deps.clock.now() - Date.parse(job.startedAt)),
      nextPollAt: job.nextPollAt,
      message: message ?? job.error,
      reportId,
    });
  }
}
