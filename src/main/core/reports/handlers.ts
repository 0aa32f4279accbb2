import { randomUUID } from 'node:crypto';
import type { ServiceHandlers } from '../../../shared/contract';
import { AppError, validationError } from '../../../shared/errors';
import { buildReportModel, countReport, currencyTotals, isEmptyFilter } from '../../../shared/report-model';
import { ReportJob, SavedReport } from '../../../shared/schemas/saved-report';
import type { Profile } from '../../../shared/schemas/profile';
import type { ServiceClient } from '../platform/service-client';
import type { EventHub } from '../platform/event-hub';
import { reportWorkbookBytes } from './report-workbook';
import { deliverFile } from '../platform/files';
import type { Ports } from '../platform/ports';
import { JobStore } from '../platform/job-store';
import { ReportStore } from './report-store';
import { ReportJobs } from './report-job';

type ReportHandlers = Pick<
  ServiceHandlers,
  'reports:request' | 'reports:jobs' | 'reports:cancel' | 'reports:retry' | 'reports:list' | 'reports:open' | 'reports:rename' | 'reports:delete' | 'reports:export' | 'reports:share' | 'reports:import'
>;

export interface ReportsModule {
  handlers: ReportHandlers;
  jobs: ReportJobs;
  store: ReportStore;
}

/** Billing reports: the durable request jobs, the saved reports (usable offline), and their export. */
export function createReports(
  ports: Ports,
  events: EventHub,
  getProfile: (profileId: string) => Promise<Profile>,
  clientFor: (profile: Profile) => Promise<ServiceClient>,
): ReportsModule {
  const store = new ReportStore(ports.dataDir);
  const jobs = new ReportJobs({
    clock: ports.clock,
    jobs: new JobStore(ports.dataDir, 'report-jobs', ReportJob),
    reports: store,
    events,
    getProfile,
    clientFor,
    notify: ports.notify,
    ...(ports.reportPollIntervalMs === undefined ? {} : { pollIntervalMs: ports.reportPollIntervalMs }),
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
  return { handlers, jobs, store };
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
