import { resolve } from 'node:path';
import { AppError } from '../../shared/errors';
import { ReportPeriod, type ReportPeriod as Period } from '../../shared/schemas/billing-report';
import { ReportJob, type ReportProgress } from '../../shared/schemas/saved-report';
import { EventHub } from '../core/platform/event-hub';
import { writeReportWorkbookFile } from '../core/reports/report-workbook';
import { systemClock } from '../core/platform/ports';
import { JobStore } from '../core/platform/job-store';
import { ReportStore } from '../core/reports/report-store';
import { ReportJobs, SERVICE_POLL_FLOOR_MS } from '../core/reports/report-job';
import { CONNECTION_OPTIONS, type CliContext, EXIT, parse, resolveProfile, UsageError, withContext } from './context';

function formatElapsed(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`;
}

function progressLine(progress: ReportProgress): string {
  const status = progress.lastStatus === null ? 'requested' : progress.lastStatus === 0 ? 'generating (status 0)' : `status ${progress.lastStatus}`;
  const next = progress.nextPollAt && ['waiting', 'retrying'].includes(progress.state) ? `, next poll ${progress.nextPollAt.slice(11, 19)} UTC` : '';
  const message = progress.message ? ` — ${progress.message}` : '';
  return `report ${progress.period.startDate}…${progress.period.endDate}: ${progress.state}, ${status}, ${progress.polls} polls, ${formatElapsed(progress.elapsedMs)} elapsed${next}${message}`;
}

/** The core report workflow, hosted by the CLI: the same jobs file and saved reports as the app. */
async function cliReportJobs(context: CliContext, flags: Record<string, unknown>, pollSeconds: number | undefined) {
  const { profile, client } = await resolveProfile(context, flags);
  const resolved = { client };
  const events = new EventHub();
  events.subscribe((event, payload) => {
    if (event === 'report:progress') process.stderr.write(`${progressLine(payload as ReportProgress)}\n`);
  });
  if (pollSeconds !== undefined && !resolved.client.isLoopback && pollSeconds * 1000 < SERVICE_POLL_FLOOR_MS) {
    process.stderr.write(`Polling every ${SERVICE_POLL_FLOOR_MS / 1000} s: the service asks clients to wait at least that long between polls.\n`);
  }
  const jobs = new ReportJobs({
    clock: systemClock,
    jobs: new JobStore(context.dataDir, 'report-jobs', ReportJob),
    reports: new ReportStore(context.dataDir),
    events,
    getProfile: async (id) => {
      if (id !== profile.id) throw new AppError('not-found', 'That report request belongs to another profile.');
      return profile;
    },
    clientFor: async () => resolved.client,
    ...(pollSeconds === undefined ? {} : { pollIntervalMs: pollSeconds * 1000, loopbackPollIntervalMs: pollSeconds * 1000 }),
  });
  return { jobs, events, profile };
}

/** Runs jobs to their end; Ctrl-C stops polling but leaves them saved for `report resume`. */
async function waitForJobs(jobs: ReportJobs, events: EventHub, jobIds: string[], out: string | undefined, context: CliContext): Promise<number> {
  const outcomes = new Map<string, ReportProgress>();
  events.subscribe((event, payload) => {
    const progress = payload as ReportProgress;
    if (event === 'report:progress' && ['done', 'failed', 'cancelled'].includes(progress.state)) outcomes.set(progress.jobId, progress);
  });
  let interrupted = false;
  const onInterrupt = () => {
    interrupted = true;
    void jobs.stopAll();
  };
  process.once('SIGINT', onInterrupt);
  try {
    await jobs.settled(jobIds);
  } finally {
    process.removeListener('SIGINT', onInterrupt);
  }
  if (interrupted) {
    process.stderr.write('Stopped. The request is saved: run `report resume` (with the same profile) to carry on.\n');
    return 130;
  }
  let code: number = EXIT.ok;
  for (const id of jobIds) {
    const outcome = outcomes.get(id);
    if (outcome?.state === 'done' && outcome.reportId) {
      process.stdout.write(`${outcome.reportId}\n`);
      if (out) {
        const report = await new ReportStore(context.dataDir).open(outcome.reportId);
        const summary = await writeReportWorkbookFile(report, resolve(out), { appVersion: process.env.npm_package_version ?? '0.0.0', exportedAt: new Date() });
        process.stderr.write(`Wrote ${summary.lines} billing lines to ${resolve(out)}.\n`);
      }
    } else {
      process.stderr.write(`closebook: ${outcome?.message ?? 'the report request did not finish'}\n`);
      code = EXIT.service;
    }
  }
  return code;
}

function seconds(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new UsageError('--poll-interval must be a number of seconds greater than 0');
  return parsed;
}

/** `report fetch --from … --to … [--out F.xlsx] [--poll-interval S]` and `report resume`. */
export async function reportCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  const { values } = parse(rest, { ...CONNECTION_OPTIONS, from: { type: 'string' }, to: { type: 'string' }, out: { type: 'string' }, 'poll-interval': { type: 'string' } });
  if (action !== 'fetch' && action !== 'resume') throw new UsageError('Usage: report fetch --from YYYY-MM-DD --to YYYY-MM-DD [--out FILE.xlsx] [--poll-interval SECONDS] | report resume');
  let period: Period | undefined;
  if (action === 'fetch') {
    const parsed = ReportPeriod.safeParse({ startDate: values.from, endDate: values.to });
    if (!parsed.success) throw new UsageError(parsed.error.issues.map((issue) => `--${issue.path[0] === 'startDate' ? 'from' : 'to'} ${issue.message}`).join('; '));
    period = parsed.data;
  }
  if (values.out && !values.out.toLowerCase().endsWith('.xlsx')) throw new UsageError('--out must name an .xlsx file');
  return withContext(values['data-dir'], async (context) => {
    const { jobs, events, profile } = await cliReportJobs(context, values, seconds(values['poll-interval']));
    if (period) {
      const job = await jobs.request(profile.id, period);
      return waitForJobs(jobs, events, [job.id], values.out, context);
    }
    const mine = (await jobs.list()).filter((job) => job.profileId === profile.id);
    if (mine.length === 0) {
      process.stderr.write('No unfinished report requests for this profile.\n');
      return EXIT.ok;
    }
    for (const job of mine) await jobs.retry(job.id);
    return waitForJobs(jobs, events, mine.map((job) => job.id), values.out, context);
  });
}

/** `reports list [--json]`, `reports export ID --out F.xlsx [--group NAME]…`, `reports delete ID`: all offline. */
export async function reportsCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parse(rest, {
    out: { type: 'string' },
    group: { type: 'string' },
    organization: { type: 'string' },
    service: { type: 'string' },
    currency: { type: 'string' },
    text: { type: 'string' },
  });
  return withContext(values['data-dir'], async (context) => {
    const store = new ReportStore(context.dataDir);
    if (action === 'list') {
      const listings = await store.list();
      if (values.json) process.stdout.write(`${JSON.stringify(listings, null, 2)}\n`);
      for (const listing of values.json ? [] : listings) {
        if (listing.state === 'ok') {
          const { meta } = listing;
          const totals = meta.totals.map((total) => `${total.currency} ${total.sales}`).join(', ');
          process.stdout.write(`${meta.id}  ${meta.name}  ${meta.period.startDate}…${meta.period.endDate}  ${meta.profileName}  ${meta.counts.lines} lines  ${totals}\n`);
        } else process.stdout.write(`${listing.id}  DAMAGED  ${listing.reason}\n`);
      }
      if (!values.json && listings.length === 0) process.stderr.write(`No saved reports in ${context.dataDir}.\n`);
      return EXIT.ok;
    }
    const id = positionals[0];
    if (!id) throw new UsageError(`Usage: reports ${action ?? '<list|export|delete>'} ID`);
    if (action === 'export') {
      if (!values.out?.toLowerCase().endsWith('.xlsx')) throw new UsageError('reports export needs --out FILE.xlsx');
      const report = await store.open(id);
      if (values.group && !report.entries.some((entry) => entry.organizations.some((organization) => organization.organizationGroups.includes(values.group as string)))) {
        throw new UsageError(`No organization in this report belongs to the group "${values.group}".`);
      }
      const filter = { group: values.group, organization: values.organization, service: values.service, currency: values.currency, text: values.text };
      const summary = await writeReportWorkbookFile(report, resolve(values.out), { appVersion: process.env.npm_package_version ?? '0.0.0', exportedAt: new Date(), filter });
      process.stderr.write(`Wrote ${summary.lines} billing lines to ${resolve(values.out)}.\n`);
      return EXIT.ok;
    }
    if (action === 'delete') {
      await store.meta(id).catch(() => {
        throw new UsageError(`No saved report with id ${id}.`);
      });
      await store.delete(id);
      process.stderr.write(`Deleted report ${id}.\n`);
      return EXIT.ok;
    }
    throw new UsageError('Usage: reports list [--json] | reports export ID --out FILE.xlsx [--group NAME] | reports delete ID');
  });
}
