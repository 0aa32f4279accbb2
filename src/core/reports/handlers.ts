import { rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { AppError } from '@shared/errors';
import { isEmptyFilter, type ReportFilter } from '@shared/report-filter';
import type { ReportJob, ReportMeta } from '@shared/schemas/saved-report';
import type { Profile } from '@shared/schemas/profile';
import type { ServiceHandlers } from '@shared/contract';
import type { NameOrder } from '@shared/model/name-order';
import type { Ledger, LedgerTransaction } from '../ledger/ledger';
import type { EventHub } from '../runtime/event-hub';
import { deliverFile } from '../storage/files';
import type { Ports } from '../ports/ports';
import type { Connections, Profiles } from '../profiles';
import { type ExportFormat, exportReport } from './report-export';
import { exportGroupPacks, exportGroupPacksToFolder, type WrittenPack } from './report-group-packs';
import { defaultReportName, pollInterval, ReportJobs, reportJobStore } from './report-job';
import { importReportFile, type ReportOrigin } from './report-import';
import { invoicing } from './report-invoicing';
import { ReportLibrary } from './report-library';
import { writeSharedReport } from './report-share';
import type { CloseStampText, WorkbookAddition } from './report-workbook';
import { migrateLegacyReports, type MigrationOutcome } from './report-migration';
import { RECEIVED_DIR, ReportReceiver } from './report-receiver';
import { LegacyReports } from './legacy-reports';
import { ReportViewerQueries } from './report-viewer';
import { hasGroup } from './queries/library';
import { NameOrders } from './name-orders';

type ReportHandlers = Pick<
  ServiceHandlers,
  | 'reports:request'
  | 'reports:jobs'
  | 'reports:cancel'
  | 'reports:retry'
  | 'reports:list'
  | 'reports:open'
  | 'reports:window'
  | 'reports:invoicing'
  | 'reports:rename'
  | 'reports:delete'
  | 'reports:export'
  | 'reports:export-groups'
  | 'reports:share'
  | 'reports:import'
>;

/** What hosts may do with reports beyond the contract (the CLI waits on jobs and writes workbooks to paths). */
export interface ReportsApi {
  /** Report requests of a profile not yet saved (running, waiting or stopped). */
  unfinished(profileId: string): Promise<ReportJob[]>;
  /** Waits until the jobs end and returns each one's last state (done, failed or cancelled), in order. */
  waitFor(jobIds: string[]): Promise<(ReportJob | undefined)[]>;
  /** The interval Closebook actually polls a profile's service at (never under 30 s for a remote service). */
  pollIntervalFor(profileId: string): Promise<number>;
  /** Imports a report file from disk (the CLI's `reports import FILE`; `origin`: the team ledger's month); returns its summary. */
  importFile(path: string, origin?: ReportOrigin): Promise<ReportMeta>;
  /** Writes a saved report to `path` as the shared-report file (what *Share file* writes, and the team ledger stores). */
  shareFile(reportId: string, path: string): Promise<ReportMeta>;
  /** Deletes a saved report, as the list's Delete does (refused when a sign-off stands on it). */
  remove(reportId: string): Promise<void>;
  /** Writes a saved report (or what `filter` keeps) to `path` as .xlsx, .parquet or .csv, by its extension. */
  exportReport(reportId: string, path: string, filter?: ReportFilter): Promise<{ lines: number }>;
  /** One workbook per organization group (and the ungrouped) into `outDir`, made when missing. */
  exportGroupPacks(reportId: string, outDir: string, filter?: ReportFilter): Promise<{ packs: WrittenPack[]; inSeveralGroups: number }>;
  /** The order a saved month's names are in: its profile's, ranked again first where it changed (the invoice run lists its customers so). */
  nameOrder(reportId: string): Promise<NameOrder>;
  /** A profile was saved or deleted: its months' name order may have changed, so each is asked again at its next read. */
  profilesChanged(): void;
}

export interface ReportsModule {
  handlers: ReportHandlers;
  api: ReportsApi;
  jobs: ReportJobs;
  /** Moves reports saved before the ledger into it (once per run); the service starts it at start-up. */
  migrated(): Promise<MigrationOutcome>;
  /** Waits for what the viewer started ahead of the user (a month's first rows): the ledger may close only after it. */
  settled(): Promise<void>;
}

/**
 * Billing reports: the durable request jobs, the saved reports (usable offline), and their export. `addSheets`
 * adds other features' sheets to an exported workbook (closing the month: Changes, Checks and the sign-off).
 */
/** What the month close adds to saved reports: its sheets in the workbook, and its say over a deletion. */
export interface MonthHooks {
  addSheets?: WorkbookAddition;
  /** Runs inside the deletion's transaction: throws to refuse it (a signed fetch), and logs it otherwise. */
  guardDeletion?: (transaction: LedgerTransaction, reportId: string, details: string) => Promise<void>;
  /** The month's close state in words, for the Invoicing sheet and the name of a draft's workbook. */
  stampOf?: (reportId: string) => Promise<CloseStampText>;
  /** The month's invoices went out (the whole workbook, or the group packs): a step of its checklist. */
  exported?: (reportId: string, what: string) => Promise<void>;
}

export function createReports(
  ports: Ports,
  events: EventHub,
  profiles: Profiles,
  connections: Connections,
  ledger: () => Promise<Ledger>,
  month: MonthHooks = {},
): ReportsModule {
  const { addSheets, guardDeletion, stampOf, exported } = month;
  /** Tells the month close that its invoices went out, when a whole workbook (not a view) or the packs were written. */
  const invoicesOut = async (reportId: string, what: string) => exported?.(reportId, what);
  /** What a workbook of a report carries of its month's close: its sheets and About rows, and its state in words. */
  const closeOptions = async (reportId: string) => ({ ...(addSheets ? { addSheets } : {}), ...(stampOf ? { stamp: await stampOf(reportId) } : {}) });
  const getProfile = (profileId: string) => profiles.get(profileId);
  const clientFor = (profile: Profile) => connections.clientFor(profile);
  const wantedInterval = ports.pollIntervals?.reportMs;
  const library = new ReportLibrary(ledger, guardDeletion);
  const nameOrders = new NameOrders(ledger, (profileId) => profiles.nameOrder(profileId), ports.log);
  const viewer = new ReportViewerQueries(ledger, library, nameOrders);
  const receiver = new ReportReceiver(
    ports.dataDir,
    ledger,
    (job) => defaultReportName(job.period, job.profileName),
    () => ports.clock.now(),
    (profileId) => profiles.nameOrder(profileId),
  );
  /** Every export sorts names as the report keeps them ranked (ledger/name-ranks.ts keptNameOrder): its profile's order, first. */
  const inNameOrder = (reportId: string) => nameOrders.of(reportId);
  let migration: Promise<MigrationOutcome> | null = null;
  /** Reports saved before the ledger are moved into it once per run, before anything lists them. */
  const migrated = () => {
    migration ??= ledger().then((opened) =>
      migrateLegacyReports(ports.dataDir, opened, ports.log, (done, total) => events.emit('reports:migration', { done, total })),
    );
    migration.catch(() => (migration = null));
    return migration;
  };
  const jobs = new ReportJobs({
    clock: ports.clock,
    jobs: reportJobStore(ports.dataDir),
    receiver,
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
    'reports:list': async () => {
      const { damaged } = await migrated();
      return [...(await library.list()).map((meta) => ({ state: 'ok' as const, meta })), ...damaged];
    },
    'reports:open': ({ reportId, hierarchy }) => viewer.view(reportId, hierarchy),
    'reports:window': (request) => viewer.window(request),
    'reports:invoicing': async ({ reportId, filter }) => {
      await library.meta(reportId); // an unknown report is a clear not-found, not an empty list
      await inNameOrder(reportId);
      return invoicing(await ledger(), reportId, filter);
    },
    'reports:rename': ({ reportId, name }) => library.rename(reportId, name),
    'reports:delete': async ({ reportId }) => {
      const { damaged } = await migrated();
      if (damaged.some((listing) => listing.state === 'damaged' && listing.id === reportId)) {
        await new LegacyReports(ports.dataDir).remove(reportId);
        migration = null; // list again without it
        return {};
      }
      const received = await library.delete(reportId);
      viewer.forget(reportId);
      nameOrders.forget(reportId);
      if (received?.startsWith(`${RECEIVED_DIR}/`)) await rm(join(ports.dataDir, received), { force: true });
      return {};
    },
    'reports:export': async ({ reportId, filter, format }) => {
      const meta = await library.meta(reportId);
      await inNameOrder(reportId);
      const scoped = filter && !isEmptyFilter(filter) ? filter : undefined;
      // The whole report's line count is known; a filtered view's is not, so its progress counts lines only.
      const onProgress = (lines: number) => events.emit('reports:export-progress', { reportId, lines, total: scoped ? null : meta.counts.lines });
      const close = format === 'xlsx' ? await closeOptions(reportId) : {};
      const draft = close.stamp?.word === 'DRAFT' ? ' (DRAFT)' : '';
      const fileName = `${meta.name}${scoped ? ' (view)' : ''}${draft}.${format}`;
      const result = await deliverFile(ports, fileName, format, async (path) =>
        exportReport(await ledger(), meta, format, path, {
          appVersion: ports.appVersion,
          exportedAt: new Date(ports.clock.now()),
          ...(scoped ? { filter: scoped } : {}),
          ...close,
          onProgress,
        }),
      );
      if (format === 'xlsx' && !scoped && result.kind !== 'cancelled') await invoicesOut(reportId, `workbook ${fileName}`);
      return result;
    },
    'reports:export-groups': async ({ reportId, filter }) => {
      await inNameOrder(reportId);
      const result = await exportGroupPacks(ports, await ledger(), await library.meta(reportId), await closeOptions(reportId), filter);
      if (result.packs.length && !(filter && !isEmptyFilter(filter))) await invoicesOut(reportId, `${result.packs.length} group workbooks`);
      return result;
    },
    'reports:share': async ({ reportId }) => {
      const meta = await library.meta(reportId);
      return deliverFile(ports, `${meta.name}.closebook-report.json.gz`, 'json', async (path) => writeSharedReport(await ledger(), meta, path));
    },
    'reports:import': async ({ upload }) => {
      const path = upload ? ports.uploadedFile?.(upload) : await ports.pickFile?.('report');
      if (upload && !path) throw new AppError('not-found', 'The uploaded file is no longer there. Choose it again.');
      if (!path) return null;
      return library.meta(await importReportFile(await ledger(), path, new Date(ports.clock.now()).toISOString()));
    },
  };
  const api: ReportsApi = {
    importFile: async (path, origin) => library.meta(await importReportFile(await ledger(), path, new Date(ports.clock.now()).toISOString(), origin)),
    shareFile: async (reportId, path) => {
      const meta = await library.meta(reportId);
      await writeSharedReport(await ledger(), meta, path);
      return meta;
    },
    remove: async (reportId) => void (await handlers['reports:delete']({ reportId })),
    unfinished: async (profileId) => (await jobs.list()).filter((job) => job.profileId === profileId),
    waitFor: async (jobIds) => {
      await jobs.settled(jobIds);
      return jobIds.map((id) => jobs.latest(id));
    },
    pollIntervalFor: async (profileId) => pollInterval(await clientFor(await getProfile(profileId)), wantedInterval, undefined),
    exportReport: async (reportId, path, filter) => {
      const meta = await library.meta(reportId);
      await inNameOrder(reportId);
      if (filter?.group) {
        if (!(await hasGroup(await ledger(), reportId, filter.group)))
          throw new AppError('validation', `No organization in this report belongs to the group "${filter.group}".`);
      }
      const scoped = filter && !isEmptyFilter(filter) ? filter : undefined;
      const format = formatOf(path);
      const written = await exportReport(await ledger(), meta, format, path, {
        appVersion: ports.appVersion,
        exportedAt: new Date(ports.clock.now()),
        ...(scoped ? { filter: scoped } : {}),
        ...(format === 'xlsx' ? await closeOptions(reportId) : {}),
      });
      if (format === 'xlsx' && !scoped) await invoicesOut(reportId, `workbook ${basename(path)}`);
      return written;
    },
    exportGroupPacks: async (reportId, outDir, filter) => {
      await inNameOrder(reportId);
      const result = await exportGroupPacksToFolder(ports, await ledger(), await library.meta(reportId), await closeOptions(reportId), outDir, filter);
      if (!(filter && !isEmptyFilter(filter))) await invoicesOut(reportId, `group workbooks in ${basename(outDir)}`);
      return result;
    },
    nameOrder: inNameOrder,
    profilesChanged: () => {
      nameOrders.forget();
      viewer.forget(); // its kept rows were sorted by the ranks of before
    },
  };
  return { handlers, api, jobs, migrated, settled: () => viewer.settled() };
}

/** The export format a path asks for, by its extension. */
export function formatOf(path: string): ExportFormat {
  const extension = path.toLowerCase().split('.').pop();
  if (extension === 'xlsx' || extension === 'parquet' || extension === 'csv') return extension;
  throw new AppError('validation', `${path} must end in .xlsx, .parquet or .csv (the export format is taken from it).`);
}
