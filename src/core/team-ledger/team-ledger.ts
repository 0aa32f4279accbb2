import { readFile, rm } from 'node:fs/promises';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '@shared/errors';
import type { CloseRecord } from '../close';
import type { Ledger } from '../ledger/ledger';
import type { CloseRole, Identity } from '../ports/identity';
import type { Ports } from '../ports/ports';
import type { ReportsApi } from '../reports';
import { writeJsonAtomic } from '../storage/atomic-file';
import { outputsFor } from '../storage/output-file';
import { type TeamLedgerAddress, teamLedgerAddress } from './connection-policy';
import { TeamConnection } from './team-connection';
import { TeamMonths } from './team-months';
import type { TeamFetch, TeamLedgerView } from '@shared/schemas/team-ledger';
import type { ServiceHandlers } from '@shared/contract';
import type { EventHub } from '../runtime/event-hub';
import { TeamWatch } from './team-watch';
import { TeamCache } from './team-cache';
import { moveIn } from './team-move-in';
import { TeamConsumption, withTeamConsumption } from './team-consumption';
import type { ConsumptionHistory } from '../close';
import type { TeamMoveIn } from '@shared/schemas/team-ledger';
import type { Submission } from '@shared/schemas/consumption';
import { TeamRecord } from './team-record';
import { TeamInvoiceRecord } from './team-invoices';
import type { InvoiceRecord } from '../invoices';
import { readStatus, type TeamQuery, type TeamStatus, teamStatus } from './team-session';
import { BackgroundWork } from '../runtime/background-work';
import { errorMessage } from '@shared/error-message';

/** Where the team ledger's address is kept in the data folder (never its password: that is the keychain's). */
export const TEAM_LEDGER_FILE = 'team-ledger.json';
/** The CLI and scripts may give the password in the environment for one run (never as a flag). */
export const TEAM_PASSWORD_VARIABLE = 'CLOSEBOOK_TEAM_PASSWORD';

const Saved = z.object({ url: z.string().min(1).max(2000) });

/** The keychain account of a role at a server: one password per person and server. */
const keychainAccount = (address: TeamLedgerAddress) => `team-ledger:${address.user}@${address.host}:${address.port}/${address.database}`;

/** What a workstation writes beside every step on the server: the OS account and the machine's name. */
function workstationName(): string {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // no account name on this system: the machine's name still says where
  }
  return `${user}@${hostname()}`;
}

const CLOSE_ROLES: Record<string, CloseRole> = { closebook_preparer: 'preparer', closebook_approver: 'approver' };

/** A connected ledger's pool as the query readStatus takes. */
const statusQuery =
  (connection: TeamConnection): TeamQuery =>
  (sql, params) =>
    connection.query(sql, params);

export interface TeamApi {
  /** Signs in with `url` and `password`; when it works, keeps the address here and the password in the keychain. */
  connect(url: string, password: string): Promise<TeamStatus & { address: TeamLedgerAddress; passwordKept: boolean }>;
  disconnect(): Promise<boolean>;
  /** The address kept, or null when no team ledger is connected (the workstation's ledger alone). */
  address(): Promise<TeamLedgerAddress | null>;
  status(): Promise<(TeamStatus & { address: TeamLedgerAddress }) | null>;
  months(): Promise<TeamFetch[]>;
  share(reportId: string): Promise<{ shared: boolean; lines: number; bytes: number }>;
  pull(period?: string): Promise<Awaited<ReturnType<TeamMonths['pull']>>>;
  /** Moves this workstation's months and reviews in (see team-move-in.ts). */
  moveIn(): Promise<TeamMoveIn>;
}

export interface TeamLedgerModule {
  handlers: Pick<ServiceHandlers, 'team:status' | 'team:connect' | 'team:disconnect' | 'team:pull' | 'team:move-in'>;
  api: TeamApi;
  /** Listens for colleagues' changes (the app, not the CLI): each arrives as a `team:changed` event. */
  watch(): Promise<void>;
  /**
   * Shares a month just fetched with the team ledger, in the background, when one is connected; a failure is logged
   * (prepare shares it again, and refuses without it).
   */
  shareAhead(reportId: string): void;
  /**
   * Shares a consumption batch that just succeeded (the submission, and the service's host and reseller it went to),
   * in the background, when a team ledger is connected.
   */
  shareConsumptionAhead(batch: () => Promise<{ submission: Submission; host: string; resellerId: string }>): void;
  /** This workstation's consumption history with the team's, for the month close's metered check. */
  consumptionWith(local: ConsumptionHistory): ConsumptionHistory;
  /** The record of the close while a team ledger is connected; null without one. */
  record(): Promise<CloseRecord | null>;
  /** The team's mapping, invoice numbers and runs while a team ledger is connected; null without one. */
  invoiceRecord(): Promise<InvoiceRecord | null>;
  /** Who is signed in on the team ledger (the database role and its Closebook groups); null without one. */
  identity(): Promise<Identity | null>;
  close(): Promise<void>;
}

/**
 * The team ledger, opt-in: with none connected (no team-ledger.json) nothing here runs, and the workstation's own
 * ledger keeps the close. Connected, every step of the close goes to the server, and the months travel with it.
 */
export function createTeamLedger(
  ports: Ports,
  events: Pick<EventHub, 'emit'>,
  ledger: () => Promise<Ledger>,
  reports: Pick<ReportsApi, 'shareFile' | 'importFile' | 'remove'>,
): TeamLedgerModule {
  const file = join(ports.dataDir, TEAM_LEDGER_FILE);
  const workstation = workstationName();
  let watching: TeamWatch | null = null;
  const cache = new TeamCache(ports.dataDir, ports.log);
  const now = () => new Date(ports.clock.now()).toISOString();
  const sharing = new BackgroundWork();
  let session: Promise<{
    connection: TeamConnection;
    record: TeamRecord;
    invoices: TeamInvoiceRecord;
    months: TeamMonths;
    consumption: TeamConsumption;
    copy: Pick<TeamCache, 'get' | 'put'>;
  } | null> | null = null;
  let who: Promise<Identity> | null = null;

  const address = async (): Promise<TeamLedgerAddress | null> => {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new AppError(
        'validation',
        `${TEAM_LEDGER_FILE} in the data folder cannot be read (${(error as NodeJS.ErrnoException).code}): connect the team ledger again.`,
      );
    }
    let saved: z.infer<typeof Saved>;
    try {
      saved = Saved.parse(JSON.parse(text));
    } catch {
      throw new AppError('validation', `${TEAM_LEDGER_FILE} in the data folder is damaged: connect the team ledger again (closebook team connect URL).`);
    }
    return teamLedgerAddress(saved.url);
  };

  const password = async (at: TeamLedgerAddress): Promise<string> => {
    const given = ports.environment?.[TEAM_PASSWORD_VARIABLE];
    if (given) return given;
    const kept = await ports.secrets.get(keychainAccount(at)).catch(() => null);
    if (kept) return kept;
    throw new AppError(
      'auth',
      `No password is kept for ${at.user} on the team ledger at ${at.host}: connect again (Settings → Team ledger, or closebook team connect) or set ${TEAM_PASSWORD_VARIABLE}.`,
    );
  };

  const opened = () => {
    session ??= (async () => {
      const at = await address();
      if (!at) return null;
      const connection = new TeamConnection(at, await password(at));
      const copy = cache.scoped(keychainAccount(at));
      const months = new TeamMonths(connection, ledger, reports, outputsFor(ports.dataDir), workstation);
      const record = new TeamRecord(
        connection,
        (reportId) => months.share(reportId),
        (month, hash) => months.localFetchOf(month, hash),
        workstation,
        copy,
        now,
      );
      const invoices = new TeamInvoiceRecord(connection, ledger, workstation);
      return { connection, record, invoices, months, consumption: new TeamConsumption(connection, copy, now, workstation), copy };
    })().catch((error: unknown) => {
      session = null;
      throw error;
    });
    return session;
  };

  const connected = async () => {
    const open = await opened();
    if (!open)
      throw new AppError('not-found', 'No team ledger is connected: closebook team connect postgresql://YOUR-ROLE@HOST/DATABASE (or Settings → Team ledger).');
    return open;
  };

  /** Runs `work` in the background when a team ledger is connected; waited for at close, a failure logged. */
  const inBackground = (what: string, details: Record<string, unknown>, work: (open: NonNullable<Awaited<ReturnType<typeof opened>>>) => Promise<void>) => {
    const done = (async () => {
      if (!(await address().catch(() => null))) return;
      await work(await connected());
    })().catch((error: unknown) => ports.log.warn(`${what} could not be shared with the team ledger yet`, { ...details, error: errorMessage(error) }));
    sharing.add(done);
  };
  const shareAhead = (reportId: string) =>
    inBackground('the month', { reportId }, async (open) => {
      const result = await open.months.share(reportId);
      ports.log.info('month shared with the team ledger', { reportId, lines: result.lines, bytes: result.bytes, already: !result.shared });
    });
  const shareConsumptionAhead = (batch: () => Promise<{ submission: Submission; host: string; resellerId: string }>) =>
    inBackground('a consumption batch', {}, async (open) => {
      const { submission, host, resellerId } = await batch();
      if (await open.consumption.share(submission, host, resellerId))
        ports.log.info('consumption batch shared with the team ledger', { batchId: submission.id });
    });

  const close = async () => {
    await sharing.settled();
    const open = await session?.catch(() => null);
    session = null;
    who = null;
    await watching?.stop();
    watching = null;
    await open?.connection.close();
  };

  const watch = async () => {
    const at = await address().catch(() => null);
    if (!at || watching) return;
    const secret = await password(at).catch(() => null);
    if (!secret) return;
    watching = new TeamWatch(at, secret, (action) => events.emit('team:changed', { action }), ports.log);
    watching.start();
  };

  /** What Settings shows: the address kept, and who the server says you are — or why it does not answer now. */
  const view = async (): Promise<TeamLedgerView> => {
    const at = await address();
    if (!at) return { connected: false };
    const { host, port, database, user, tls } = at;
    const base = { connected: true as const, address: { host, port, database, user, tls } };
    try {
      const open = await connected();
      return { ...base, signedIn: await readStatus(statusQuery(open.connection)), problem: null, months: await open.months.list() };
    } catch (error) {
      return { ...base, signedIn: null, problem: errorMessage(error), months: [] };
    }
  };

  const api: TeamApi = {
    connect: async (url, secret) => {
      const at = teamLedgerAddress(url);
      const status = await teamStatus(at, secret);
      if (status.roles.length === 0)
        throw new AppError(
          'control',
          `${status.user} signed in, but has none of Closebook's roles on ${at.database}: ask IT to grant closebook_preparer, closebook_approver or closebook_auditor.`,
        );
      if (status.schemaVersion === null)
        throw new AppError(
          'not-found',
          `${at.database} on ${at.host} has no Closebook schema yet: IT runs closebook-team-ledger.sql once, as the database's owner.`,
        );
      // The keychain may be missing (a server without a Secret Service): the address is kept, the password then comes
      // from the environment at each run, and is never written to a file.
      const before = await address().catch(() => null);
      const passwordKept = await ports.secrets.set(keychainAccount(at), secret).then(
        () => true,
        () => false,
      );
      await writeJsonAtomic(file, { url: url.trim() });
      // The address connected before is no longer kept: nor is its password (nothing would remove it later).
      if (before && keychainAccount(before) !== keychainAccount(at))
        await ports.secrets
          .delete(keychainAccount(before))
          .catch((error: unknown) => ports.log.warn('The keychain kept the password of the team ledger connected before', { reason: errorMessage(error) }));
      await close();
      await cache.clear();
      return { ...status, address: at, passwordKept };
    },
    disconnect: async () => {
      const at = await address().catch(() => null);
      await close();
      if (at) await ports.secrets.delete(keychainAccount(at)).catch(() => undefined);
      const had = at !== null;
      await rm(file, { force: true });
      await cache.clear();
      return had;
    },
    address,
    status: async () => {
      const at = await address();
      return at ? { ...(await readStatus(statusQuery((await connected()).connection))), address: at } : null;
    },
    months: async () => (await connected()).months.list(),
    share: async (reportId) => (await connected()).months.share(reportId),
    pull: async (period) => (await connected()).months.pull(period),
    moveIn: async () => {
      const open = await connected();
      return moveIn(await ledger(), open.connection, open.months, workstation);
    },
  };

  const handlers: TeamLedgerModule['handlers'] = {
    'team:status': () => view(),
    'team:connect': async ({ url, password: secret }) => {
      const connected = await api.connect(url, secret);
      if (!connected.passwordKept) {
        await api.disconnect(); // the app has no other place for the password: it does not stay connected without one
        throw new AppError(
          'keychain-unavailable',
          'Signed in, but no OS keychain answers on this computer, so the password cannot be kept (Closebook never writes it to a file). Install and unlock a keyring, then connect again.',
        );
      }
      if (ports.host !== 'cli') await watch();
      return view();
    },
    'team:disconnect': async () => {
      await api.disconnect();
      return view();
    },
    'team:move-in': () => api.moveIn(),
    'team:pull': async ({ period }) => {
      const { pulled, present } = await api.pull(period);
      return { pulled: pulled.length, present: present.length };
    },
  };

  return {
    handlers,
    api,
    watch,
    shareAhead,
    shareConsumptionAhead,
    consumptionWith: (local) => withTeamConsumption(local, async () => (await opened().catch(() => null))?.consumption ?? null),
    record: async () => (await opened())?.record ?? null,
    invoiceRecord: async () => (await opened())?.invoices ?? null,
    identity: async () => {
      const open = await opened();
      if (!open) return null;
      who ??= (async () => {
        const status = await readStatus(statusQuery(open.connection)).then(
          async (read) => {
            await open.copy.put('identity', read, now());
            return read;
          },
          // Offline, who signed in here last is who acts (and can change nothing until the server answers).
          async (error: unknown) => (await open.copy.get<TeamStatus>('identity'))?.value ?? Promise.reject(error),
        );
        return { user: status.user, roles: status.roles.flatMap((role) => (CLOSE_ROLES[role] ? [CLOSE_ROLES[role]] : [])), teamLedger: true };
      })().catch((error: unknown) => {
        who = null;
        throw error;
      });
      return who;
    },
    close,
  };
}
