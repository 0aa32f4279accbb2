import { randomUUID } from 'node:crypto';
import { copyFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InputRow, Submission } from '@shared/schemas/consumption';
import type { ProfileView } from '@shared/schemas/profile';
import { isLoopbackHost } from '@shared/schemas/profile';
import type { ReportMeta } from '@shared/schemas/saved-report';
import { createService, type Service } from '@core/service';
import type { DeliverFile, Logger, Ports } from '@core/ports/ports';
import type { MemorySecretStore } from './memory-secret-store';
import { afterAll, beforeAll } from 'vitest';
import { watchProcessFailures } from './fuzz';
import { startTwin, temporaryDir, testPorts, type Twin } from './test-support';
import { windowRequest } from './viewer';

/**
 * A service with saved state to protect, for the fault suite: a profile on a loopback twin, a saved report, a
 * finished consumption batch — and a decoy profile and report that destructive requests may hit instead. Every
 * port a host can give is given (downloads, an upload, a PDF, a clipboard), and the network port reaches only
 * this machine: a request for any other host is refused before it leaves.
 */
export interface ServiceFixture {
  twin: Twin;
  service: Service;
  ports: Ports;
  secrets: MemorySecretStore;
  /** The saved state a fault must never change. */
  profile: ProfileView;
  report: ReportMeta;
  submission: Submission;
  /** What destructive requests (delete, rename, edit) may change instead. */
  decoyProfile: ProfileView;
  decoyReport: ReportMeta;
  /** The report as a shared file (`.closebook-report.json.gz`), and upload ids the bridge would have given. */
  sharedReportFile: string;
  uploads: Map<string, string>;
  /** Requests for hosts other than this machine's, refused by the fixture's network port. */
  refusedRequests: () => number;
  /** Warnings the service logged (unexpected handler errors among them). */
  warnings: { message: string; details?: Record<string, unknown> }[];
  /** Rows of a valid consumption batch for the twin's metered subscriptions. */
  consumptionRows: InputRow[];
  /** Stops the service's loops and makes a new service over the same data folder (as after a restart). */
  restart(): Promise<Service>;
  close(): Promise<void>;
}

/**
 * One fixture for a whole test file, started before its tests and closed after them, with the watch for unhandled
 * rejections and exceptions that the fault suite counts as crashes.
 */
export function serviceFixtureForFile(): { fixture: () => ServiceFixture; rejections: unknown[] } {
  let fixture: ServiceFixture | undefined;
  const watch = watchProcessFailures();
  beforeAll(async () => {
    fixture = await serviceFixture();
  });
  afterAll(async () => {
    watch.stop();
    await fixture?.close();
  });
  const ready = () => {
    if (!fixture) throw new Error('the service fixture has not started');
    return fixture;
  };
  return { fixture: ready, rejections: watch.failures };
}

export async function serviceFixture(options: { ports?: Partial<Ports>; organizations?: number; linesPerOrganization?: number } = {}): Promise<ServiceFixture> {
  const twin = await startTwin({
    organizations: options.organizations ?? 6,
    linesPerOrganization: options.linesPerOrganization ?? 4,
    reportReadyAfterMs: 0,
    reportReadyAfterPolls: 0,
    taskQueuedMs: 0,
    taskProcessingMs: 0,
  });
  const files = await temporaryDir('closebook-fault-files-');
  const uploads = new Map<string, string>();
  const warnings: ServiceFixture['warnings'] = [];
  const log: Logger = { info: () => {}, warn: (message, details) => void warnings.push({ message, ...(details ? { details } : {}) }) };
  let refused = 0;
  let keepNextDownload = false;
  let kept = '';
  // Like the browser bridge: written into a folder of its own; removed at once unless the fixture keeps it. A
  // test's own `deliver` serves every file but the one the fixture makes for itself (the shared report).
  const deliver: DeliverFile = async (fileName, kind, write) => {
    if (!keepNextDownload && options.ports?.deliver) return options.ports.deliver(fileName, kind, write);
    const path = join(files.path, `download-${randomUUID()}`);
    await write(path);
    if (keepNextDownload) kept = path;
    else await rm(path, { force: true });
    keepNextDownload = false;
    return { kind: 'download', fileName, url: `/bridge/files/${randomUUID()}` };
  };
  const env = await testPorts({
    log,
    fetch: (url, init) => {
      if (!isLoopbackHost(new URL(url).hostname)) {
        refused += 1;
        return Promise.reject(new TypeError('fetch failed'));
      }
      return fetch(url, init);
    },
    pickFile: async () => null,
    pickFolder: async () => null,
    uploadedFile: (id) => uploads.get(id) ?? null,
    printToPdf: async () => new TextEncoder().encode('%PDF-1.4\n%%EOF\n'),
    writeClipboard: async () => {},
    ...options.ports,
    deliver,
  });
  let service = createService(env.ports);
  await service.start();
  const c = twin.credentials;
  const fields = { baseUrl: twin.baseUrl, clientId: c.clientId, username: c.username, resellerId: c.resellerId, sellerId: c.sellerId };
  const profile = await service.handlers['profiles:save']({ fields: { ...fields, name: 'Production' }, apiSecret: c.apiSecret, password: c.password });
  const decoyProfile = await service.handlers['profiles:save']({ fields: { ...fields, name: 'Decoy' }, apiSecret: c.apiSecret, password: c.password });
  const report = await savedReport(service, profile.id, { startDate: '2026-10-01', endDate: '2026-10-31' });
  const decoyReport = await savedReport(service, decoyProfile.id, { startDate: '2026-09-01', endDate: '2026-09-30' });

  const metered = twin.organizations
    .flatMap((organization) => organization.services.flatMap((use) => use.subscriptions))
    .filter((subscription) => subscription.metered);
  const consumptionRows: InputRow[] = metered.slice(0, 3).map((subscription, index) => ({
    row: index + 2,
    subscriptionId: subscription.subscriptionId,
    isAddon: 'no',
    addonId: '',
    quantity: `${index + 1}.5`,
    consumptionId: '',
  }));
  if (consumptionRows.length === 0) throw new Error('the twin has no metered subscription');
  const sent = await service.handlers['consumption:submit']({ profileId: profile.id, fileName: 'october.csv', rows: consumptionRows });
  await service.consumption.waitFor([sent.id]);
  const submission = await service.handlers['consumption:get']({ submissionId: sent.id });
  if (submission.state !== 'Successful') throw new Error(`the fixture's consumption batch ended ${submission.state}: ${submission.message}`);

  keepNextDownload = true;
  await service.handlers['reports:share']({ reportId: report.id });
  const sharedReportFile = join(files.path, 'october.closebook-report.json.gz');
  await copyFile(kept, sharedReportFile);
  await rm(kept, { force: true });
  const garbage = join(files.path, 'garbage.json');
  await writeFile(garbage, '{"meta": {"id": 1}, "entries": [');
  uploads.set('shared-report', sharedReportFile);
  uploads.set('garbage', garbage);
  uploads.set('gone', join(files.path, 'no-such-file.json'));

  return {
    twin,
    get service() {
      return service;
    },
    ports: env.ports,
    secrets: env.secrets,
    profile,
    report,
    submission,
    decoyProfile,
    decoyReport,
    sharedReportFile,
    uploads,
    refusedRequests: () => refused,
    warnings,
    consumptionRows,
    restart: async () => {
      await service.dispose();
      service = createService(env.ports);
      await service.start();
      return service;
    },
    close: async () => {
      await service.dispose();
      await twin.close();
      await env.cleanup();
      await files.remove();
    },
  };
}

async function savedReport(service: Service, profileId: string, period: { startDate: string; endDate: string }): Promise<ReportMeta> {
  const job = await service.handlers['reports:request']({ profileId, period });
  const [done] = await service.reports.waitFor([job.id]);
  if (!done?.reportId) throw new Error(`the fixture's report request ended ${done?.state}: ${done?.message}`);
  return (await service.handlers['reports:list']({})).flatMap((listing) =>
    listing.state === 'ok' && listing.meta.id === done.reportId ? [listing.meta] : [],
  )[0] as ReportMeta;
}

/**
 * The protected state as the service reads it, to compare before and after a run of faults. `totals` adds the
 * report's totals recomputed by the ledger (a query of ~50 ms on a cold ledger; its listed totals come anyway).
 */
export async function protectedState(
  fixture: Pick<ServiceFixture, 'profile' | 'report' | 'submission' | 'secrets'>,
  service: Service,
  options: { totals?: boolean } = {},
) {
  const profiles = await service.handlers['profiles:list']({});
  const listings = await service.handlers['reports:list']({});
  const report = listings.flatMap((listing) => (listing.state === 'ok' && listing.meta.id === fixture.report.id ? [listing.meta] : []))[0] ?? null;
  // The totals as the viewer reads them: with the first window.
  const window = () => service.handlers['reports:window']({ ...windowRequest(fixture.report.id, { count: 1 }), hierarchy: 'organization' });
  const totals = report && options.totals !== false ? await window().then(({ lineCount, totals }) => ({ lineCount, totals })) : null;
  const submission = await service.handlers['consumption:get']({ submissionId: fixture.submission.id }).catch(() => null);
  return {
    profile: profiles.profiles.find((profile) => profile.id === fixture.profile.id) ?? null,
    secret: await fixture.secrets.get(fixture.profile.id),
    report,
    totals,
    submission: submission && { ...submission, updatedAt: '', polls: 0, nextPollAt: null },
  };
}

/** Temporaries (`*.tmp`, `*.part`) left anywhere in the data folder: a write that did not finish or clean up. */
export async function leftoverTemporaries(dataDir: string): Promise<string[]> {
  const entries = await readdir(dataDir, { recursive: true });
  return entries.filter((name) => /\.(tmp|part)$/.test(name));
}
