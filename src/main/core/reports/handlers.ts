import { randomUUID } from 'node:crypto';
import type { ServiceHandlers } from '../../../shared/contract';
import { AppError, validationError } from '../../../shared/errors';
import { buildReportModel, countReport, currencyTotals, isEmptyFilter, type ReportFilter } from '../../../shared/report-model';
import { type ReportJob, SavedReport } from '../../../shared/schemas/saved-report';
import type { Profile } from '../../../shared/schemas/profile';
import type { Connections } from '../profiles/connections';
import type { Profiles } from '../profiles/profiles';
import type { EventHub } from '../platform/event-hub';
import { reportWorkbookBytes, writeReportWorkbookFile } from './report-workbook';
import { deliverFile } from '../platform/files';
import type { Ports } from '../platform/ports';
import { ReportStore } from './report-store';
import { pollInterval, ReportJobs, reportJobStore } from './report-job';


type ReportHandlers = Pick<
  ServiceHandlers,
  'reports:request' | 'reports:jobs' | 'reports:cancel' | 'reports:retry' | 'reports:list' | 'reports:open' | 'reports:rename' | 'reports:delete' | 'reports:export' | 'reports:share' | 'reports:import'
>;

/** What hosts may do with reports beyond the contract (the CLI waits on jobs and writes workbooks to paths). */
export interface ReportsApi {
  /** Report requests of a profile not yet saved (running, waiting or stopped). */
  unfinished(profileId: string): Promise<ReportJob[]>;
  /** Waits until the jobs end and returns each one's last state (done, failed or cancelled), in order. */
  waitFor(jobIds: string[]): Promise<(ReportJob | undefined)[]>;
  /** The interval Closebook actually polls a profile's service at (never under 30 s for a remote service). */
  pollIntervalFor(profileId: string): Promise<number>;
  /** Writes the workbook of a saved report (or of what `filter` keeps) to `path`. */
  exportWorkbook(reportId: string, path: string, filter?: ReportFilter): Promise<{ lines: number }>;
}

export interface ReportsModule {
  handlers: ReportHandlers;
  api: ReportsApi;
  jobs: ReportJobs;
}

/** Billing reports: the durable request jobs, the saved reports (usable offline), and their export. */
export function createReports(ports: Ports, events: EventHub, profiles: Profiles, connections: Connections): ReportsModule {
  const store = new ReportStore(ports.dataDir);
  const getProfile = (profileId: string) => profiles.get(profileId);
  const clientFor = (profile: Profile) => connections.clientFor(profile);
  const wantedInterval = ports.pollIntervals?.reportMs;
  const jobs = new ReportJobs({
    clock: ports.clock,
    jobs: reportJobStore(ports.dataDir),
    reports: store,
    events,
    getProfile,
    clientFor,
    notify: ports.notify,
    ...(wantedInterval === undefined ? {} : { pollIntervalMs: wantedInterval }),
  });

  const handlers: ReportHandlers = {
    'reports:request': ({ profileId, period }) => jobs.request(profileId, period),
    'reports:jobs': () => jobs.list(),
    'reports:cancel': async ({ jobId }) => {
      await jobs.cancel(jobId);
      return {};
    },
    'reports:retry': ({ jobId }) => jobs.retry(jobId),
    'reports:list': () => store.list(),
    'reports:open': ({ reportId }) => store.open(reportId),
    'reports:rename': ({ reportId, name }) => store.rename(reportId, name),
    'reports:delete': async ({ reportId }) => {
      await store.delete(reportId);
      return {};
    },
    'reports:export': async ({ reportId, filter }) => {
      const report = await store.open(reportId);
      const scoped = filter && !isEmptyFilter(filter) ? filter : undefined;
      const bytes = await reportWorkbookBytes(report, { appVersion: ports.appVersion, exportedAt: new Date(ports.clock.now()), ...(scoped ? { filter: scoped } : {}) });
      return deliverFile(ports, `${report.meta.name}${scoped ? ' (view)' : ''}.xlsx`, bytes, 'xlsx');
    },
    'reports:share': async ({ reportId }) => {
      const report = await store.open(reportId);
      return deliverFile(ports, `${report.meta.name}.closebook-report.json`, Buffer.from(JSON.stringify(report)), 'json');
    },
    'reports:import': async ({ fileName, content }) => importReport(store, fileName, content),
  };
  const api: ReportsApi = {
    unfinished: async (profileId) => (await jobs.list()).filter((job) => job.profileId === profileId),
    waitFor: async (jobIds) => {
      await jobs.settled(jobIds);
      return jobIds.map((id) => jobs.latest(id));
    },
    pollIntervalFor: async (profileId) => pollInterval(await clientFor(await getProfile(profileId)), wantedInterval, undefined),
    exportWorkbook: async (reportId, path, filter) => {
      const report = await store.open(reportId);
      if (filter?.group && !report.entries.some((entry) => entry.organizations.some((organization) => organization.organizationGroups.includes(filter.group as string)))) {
        throw new AppError('validation', `No organization in this report belongs to the group "${filter.group}".`);
      }
      const scoped = filter && !isEmptyFilter(filter) ? filter : undefined;
      return writeReportWorkbookFile(report, path, { appVersion: ports.appVersion, exportedAt: new Date(ports.clock.now()), ...(scoped ? { filter: scoped } : {}) });
    },
  };
  return { handlers, api, jobs };
}

/**
 * Takes a report file from a colleague. It is validated whole; counts and totals are recomputed from its lines
 * rather than trusted, and it gets a new id so it never replaces a report already saved.
 */
export async function importReport(store: ReportStore, fileName: string, content: string) {
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    throw new AppError('validation', `${fileName} is not a Closebook report file (it is not JSON).`);
  }
  const parsed = SavedReport.safeParse(json);
  if (!parsed.success) throw validationError(parsed.error, `${fileName} as a Closebook report file`);
  const { meta, entries } = parsed.data;
  const model = buildReportModel(entries, { searchable: false }); // totals only
  const imported = { ...meta, id: randomUUID(), counts: countReport(entries), totals: currencyTotals(model.lines, model.scale) };
  await store.save({ meta: imported, entries });
  return imported;
}
