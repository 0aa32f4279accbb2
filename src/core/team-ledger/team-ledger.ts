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
import { type TeamFetch, TeamMonths } from './team-months';
import { TeamRecord } from './team-record';
import { type TeamStatus, teamStatus } from './team-session';

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
}

export interface TeamLedgerModule {
  api: TeamApi;
  /** The record of the close while a team ledger is connected; null without one. */
  record(): Promise<CloseRecord | null>;
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
  ledger: () => Promise<Ledger>,
  reports: Pick<ReportsApi, 'shareFile' | 'importFile' | 'remove'>,
): TeamLedgerModule {
  const file = join(ports.dataDir, TEAM_LEDGER_FILE);
  const workstation = workstationName();
  let session: Promise<{ connection: TeamConnection; record: TeamRecord; months: TeamMonths } | null> | null = null;
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
      const months = new TeamMonths(connection, ledger, reports, outputsFor(ports.dataDir), workstation);
      const record = new TeamRecord(
        connection,
        ledger,
        (reportId) => months.share(reportId),
        (month, hash) => months.localFetchOf(month, hash),
        workstation,
      );
      return { connection, record, months };
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

  const close = async () => {
    const open = await session?.catch(() => null);
    session = null;
    who = null;
    await open?.connection.close();
  };

  const api: TeamApi = {
    connect: async (url, secret) => {
      const at = teamLedgerAddress(url);
      const status = await teamStatus(at, secret);
      if (status.schemaVersion === null)
        throw new AppError(
          'not-found',
          `${at.database} on ${at.host} has no Closebook schema yet: IT runs closebook-team-ledger.sql once, as the database's owner.`,
        );
      // The keychain may be missing (a server without a Secret Service): the address is kept, the password then comes
      // from the environment at each run, and is never written to a file.
      const passwordKept = await ports.secrets.set(keychainAccount(at), secret).then(
        () => true,
        () => false,
      );
      await writeJsonAtomic(file, { url: url.trim() });
      await close();
      return { ...status, address: at, passwordKept };
    },
    disconnect: async () => {
      const at = await address().catch(() => null);
      await close();
      if (at) await ports.secrets.delete(keychainAccount(at)).catch(() => undefined);
      const had = at !== null;
      await rm(file, { force: true });
      return had;
    },
    address,
    status: async () => {
      const at = await address();
      return at ? { ...(await teamStatus(at, await password(at))), address: at } : null;
    },
    months: async () => (await connected()).months.list(),
    share: async (reportId) => (await connected()).months.share(reportId),
    pull: async (period) => (await connected()).months.pull(period),
  };

  return {
    api,
    record: async () => (await opened())?.record ?? null,
    identity: async () => {
      const open = await opened();
      if (!open) return null;
      who ??= (async () => {
        const [row] = await open.connection.query<{ user: string; roles: string[] }>(
          `SELECT session_user::text AS user, coalesce(array_agg(rolname::text ORDER BY rolname) FILTER (WHERE pg_has_role(session_user, oid, 'MEMBER')), '{}'::text[]) AS roles
           FROM pg_roles WHERE rolname = ANY($1)`,
          [Object.keys(CLOSE_ROLES)],
        );
        const roles = (row?.roles ?? []).flatMap((role) => (CLOSE_ROLES[role] ? [CLOSE_ROLES[role]] : []));
        return { user: row?.user ?? 'unknown', roles, teamLedger: true };
      })().catch((error: unknown) => {
        who = null;
        throw error;
      });
      return who;
    },
    close,
  };
}
