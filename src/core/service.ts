import type { EventPayload, ServiceHandlers } from '@shared/contract';
import type { ProfileFields } from '@shared/schemas/profile';
import { type CloseApi, createClose, monthCloseSheets } from './close';
import { type ConsumptionApi, createConsumption } from './consumption';
import { createCopyPrint } from './copy-print';
import { createOrganizations } from './organizations';
import { LedgerHandle } from './ledger/ledger';
import { tidyDataFolder } from './storage/data-folder';
import { EventHub } from './runtime/event-hub';
import { outputsFor } from './storage/output-file';
import type { Ports } from './ports/ports';
import { createProfiles, type EphemeralProfileInput, type SecretSource } from './profiles';
import { createReports, type ReportsApi } from './reports';
import { createSettings } from './settings';
import { createTeamLedger, type TeamApi } from './team-ledger';
import { createInvoices, type InvoicesApi } from './invoices';
import { workstationIdentity } from './ports/identity';
import { errorMessage } from '@shared/error-message';

/** What hosts may do with profiles beyond the contract: find one by name, or use a connection given in full. */
export interface ProfilesApi {
  findByName(name: string): Promise<(ProfileFields & { id: string }) | undefined>;
  /** Registers a connection for this run (never saved); returns its profile id for the handlers. */
  useEphemeral(fields: EphemeralProfileInput, secrets: SecretSource): string;
  /** The service address a profile talks to (the demo's twin once started). */
  serviceUrl(profileId: string): Promise<string>;
}

export interface Service {
  /** One handler per contract channel: what the renderer (through IPC or the bridge) may ask. */
  handlers: ServiceHandlers;
  /** Progress and connection events, for every host to relay or print. */
  events: Pick<EventHub, 'subscribe'>;
  profiles: ProfilesApi;
  reports: ReportsApi;
  consumption: ConsumptionApi;
  /** Closing a month: compare, checks, review (the CLI's `reports compare` and `reports check`). */
  close: CloseApi;
  /** The team ledger (opt-in): connect, and the months shared there. */
  team: TeamApi;
  /** Invoices out: the mapping, the month's invoice run and its import files (the CLI's `invoices`). */
  invoices: InvoicesApi;
  /**
   * The database of every saved month. `foldIn`: what was written since it was last folded goes into its file now,
   * not when it closes — a process about to end (the CLI) does it while it writes its output.
   */
  ledger: { backup(path: string): Promise<void>; foldIn(): Promise<void> };
  /** Resumes unfinished workflows (report jobs, consumption tasks) saved by an earlier run. */
  start(): Promise<void>;
  /** Stops polling (the workflows stay saved and resume at the next start) and forgets held tokens. */
  dispose(): Promise<void>;
}

/**
 * The whole app without Electron, composed from its features. Electron's IPC, the browser test bridge and the CLI
 * are thin hosts of this.
 */
export function createService(ports: Ports): Service {
  const events = new EventHub();
  const ledger = new LedgerHandle(ports.dataDir, ports.log);
  // A profile's name order sorts its months: after a change to profiles, the reports ask for it again.
  const profiles = createProfiles(ports, events, () => reports.api.profilesChanged());
  const consumption = createConsumption(ports, events, profiles.profiles, profiles.connections, ledger.get);
  // The team ledger shares months through the reports' own file format (made below: reached when first used).
  const team = createTeamLedger(ports, events, ledger.get, {
    shareFile: (reportId, path) => reports.api.shareFile(reportId, path),
    importFile: (path, origin) => reports.api.importFile(path, origin),
    remove: (reportId) => reports.api.remove(reportId),
  });
  // Who acts: a test's second person, else the team ledger's signed-in role while one is connected, else the OS account.
  const identity = ports.identity ?? (async () => (await team.identity()) ?? workstationIdentity());
  const close = createClose(ports, ledger.get, team.consumptionWith(consumption.tasks), { record: team.record, identity });
  // A consumption batch the service accepted goes to the team ledger, so every workstation's metered check sees it.
  events.subscribe((event, payload) => {
    if (event !== 'consumption:progress') return;
    const batch = payload as EventPayload<'consumption:progress'>;
    if (batch.state !== 'Successful' || !batch.period) return;
    team.shareConsumptionAhead(async () => {
      const connection = await profiles.profiles.connection(await profiles.profiles.get(batch.profileId));
      return { submission: await consumption.tasks.get(batch.id), host: new URL(connection.baseUrl).host, resellerId: connection.resellerId };
    });
  });
  // The report workbook gets the month close's sheets (Changes, Checks, its state in About); a deletion, its say.
  const reports = createReports(ports, events, profiles.profiles, profiles.connections, ledger.get, {
    addSheets: monthCloseSheets(ledger.get, close.api.check),
    guardDeletion: close.guardDeletion,
    stampOf: close.stampOf,
    exported: close.recordExport,
  });
  // A month just fetched is closed next: the app (not the CLI, whose process ends with its command) makes its
  // comparison and checks at once, in the background, and shares it with the team ledger when one is connected.
  if (ports.host !== 'cli') {
    events.subscribe((event, payload) => {
      if (event !== 'report:progress') return;
      const job = payload as EventPayload<'report:progress'>;
      if (job.state === 'done' && job.reportId) {
        close.checkAhead(job.reportId);
        team.shareAhead(job.reportId);
      }
    });
  }
  // A month is invoiced once its close says so: the stamp every file carries, and each export logged with the month.
  const invoices = createInvoices(ports, ledger.get, {
    readiness: close.stampOf,
    exported: close.recordExport,
    log: (reportId) => close.api.log(reportId),
    invoiceStep: close.invoiceStep,
    identity,
    teamRecord: team.invoiceRecord,
    inNameOrder: reports.api.nameOrder,
  });
  const organizations = createOrganizations(profiles.connections, ledger.get);
  const settings = createSettings(ports);
  const copyPrint = createCopyPrint(ports);

  return {
    handlers: {
      ...profiles.handlers,
      ...organizations.handlers,
      ...reports.handlers,
      ...consumption.handlers,
      ...settings.handlers,
      ...copyPrint.handlers,
      ...close.handlers,
      ...team.handlers,
      ...invoices.handlers,
    },
    events,
    profiles: {
      findByName: (name) => profiles.profiles.findByName(name),
      useEphemeral: (fields, secrets) => profiles.profiles.useEphemeral(fields, secrets).id,
      serviceUrl: async (profileId) => (await profiles.profiles.connection(await profiles.profiles.get(profileId))).baseUrl,
    },
    reports: reports.api,
    consumption: consumption.api,
    close: close.api,
    team: team.api,
    invoices: invoices.api,
    ledger: { backup: async (path) => (await ledger.get()).backup(path), foldIn: async () => (await ledger.get()).foldIn() },
    start: async () => {
      await tidyDataFolder(ports.dataDir, ports.clock.now(), ports.log);
      // What a killed export left in the staging folder (and beside a user's file, by its note) goes now.
      await outputsFor(ports.dataDir)
        .folder()
        .catch((error: unknown) => ports.log.warn('the staging folder could not be tidied', { error: errorMessage(error) }));
      await reports
        .migrated()
        .catch((error: unknown) => ports.log.warn('saved reports could not be moved into the ledger yet', { error: errorMessage(error) }));
      // A damaged jobs or history folder must not keep the app from opening: what could not be resumed is logged and
      // listed (as damaged) where the user sees it, and everything else still works.
      const notResumed = (what: string) => (error: unknown) => ports.log.warn(`${what} could not be resumed`, { error: errorMessage(error) });
      // Colleagues' steps on the team ledger show at once (the app; a CLI command reads the server when it runs).
      if (ports.host !== 'cli') await team.watch().catch(notResumed('listening to the team ledger'));
      await reports.jobs.resumeAll().catch(notResumed('report requests'));
      await consumption.tasks.resumeAll().catch(notResumed('consumption tasks'));
    },
    dispose: async () => {
      await reports.jobs.stopAll();
      await consumption.tasks.stopAll();
      profiles.connections.clear();
      await close.settled();
      await reports.settled();
      await team.close();
      await ledger.close();
    },
  };
}
