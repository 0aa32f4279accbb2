import { readFile } from 'node:fs/promises';
import type { Client, ClientConfig, QueryResultRow } from 'pg';
import { AppError } from '@shared/errors';
import type { TeamLedgerAddress } from './connection-policy';

/** Who you are on the team ledger, what you may do there, and what it is. */
export interface TeamStatus {
  user: string;
  /** The Closebook group roles the signed-in role is a member of (preparer, approver, auditor). */
  roles: string[];
  server: string;
  /** The schema's version, or null when IT has not run the schema script on this database yet. */
  schemaVersion: number | null;
}

const GROUP_ROLES = ['closebook_preparer', 'closebook_approver', 'closebook_auditor'];

/** The client's settings for an address: TLS with the server's certificate and name checked, or none on loopback. */
export async function clientConfig(address: TeamLedgerAddress, password: string): Promise<ClientConfig> {
  let ca: string | undefined;
  if (address.caFile) {
    try {
      ca = await readFile(address.caFile, 'utf8');
    } catch {
      throw new AppError('validation', `The team ledger's CA certificate ${address.caFile} cannot be read: check sslrootcert in the address.`);
    }
  }
  return {
    host: address.host,
    port: address.port,
    database: address.database,
    user: address.user,
    password,
    connectionTimeoutMillis: 10_000,
    // A laptop that sleeps or leaves the network must not hold a month's lock for hours: keep-alives find a dead peer,
    // and the server ends a transaction left idle. A step waits at most 30 s for a colleague's lock on the month.
    keepAlive: true,
    query_timeout: 120_000,
    options: '-c lock_timeout=30s -c idle_in_transaction_session_timeout=60s',
    // verify-full: the chain against the CA (or the system's) and the host name, as Node's TLS checks them by default.
    ssl: address.tls === 'verify-full' ? { rejectUnauthorized: true, ...(ca ? { ca } : {}) } : false,
  };
}

/** A sign-in failure in words that say what to do; anything else as it is. */
export function signInError(error: unknown, address: TeamLedgerAddress): unknown {
  if (error instanceof AppError) return error; // already in words (an unreadable CA file)
  const { code, message } = error as { code?: string; message?: string };
  const where = `${address.host}:${address.port}`;
  if (code === '28P01' || code === '28000')
    return new AppError('auth', `The team ledger at ${where} refused the sign-in of ${address.user}: check the role and its password with IT.`);
  if (code === '3D000') return new AppError('not-found', `The team ledger at ${where} has no database ${address.database}: check the address.`);
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || /timeout/i.test(message ?? ''))
    return new AppError('network', `The team ledger at ${where} cannot be reached: check the address and the network, or ask IT whether the server runs.`);
  if (
    /certificate|self[- ]signed|altname|hostname/i.test(message ?? '') ||
    code?.startsWith('ERR_TLS') ||
    code === 'DEPTH_ZERO_SELF_SIGNED_CERT' ||
    code === 'SELF_SIGNED_CERT_IN_CHAIN' ||
    code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'
  )
    return new AppError(
      'network',
      `The team ledger at ${where} did not prove who it is (its certificate could not be checked: ${message}). Ask IT for the server's CA certificate and add sslrootcert=FILE to the address.`,
    );
  return error;
}

/** Signs in as the address's role, runs `work` on the session, and signs out. */
export async function withTeamSession<T>(address: TeamLedgerAddress, password: string, work: (client: Client) => Promise<T>): Promise<T> {
  // Loaded when a team ledger is used: the embedded default never pays for the PostgreSQL client.
  const { default: pg } = await import('pg');
  const client = new pg.Client(await clientConfig(address, password));
  client.on('error', () => undefined); // a dropped connection fails the query in flight; nothing else listens
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw signInError(error, address);
  }
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** How a status is read: any session's parameterised query (a one-off sign-in, or the pool of a connected ledger). */
export type TeamQuery = <R extends QueryResultRow>(sql: string, params?: unknown[]) => Promise<R[]>;

/** The signed-in role, its Closebook group roles, the server's version and the schema's, read on a session. */
export async function readStatus(query: TeamQuery): Promise<TeamStatus> {
  const [who] = await query<{ user: string; server: string }>("SELECT session_user AS user, current_setting('server_version') AS server");
  const roles = await query<{ rolname: string }>(
    `SELECT rolname FROM pg_roles WHERE rolname = ANY($1) AND pg_has_role(session_user, oid, 'MEMBER') ORDER BY rolname`,
    [GROUP_ROLES],
  );
  // The schema is there when IT ran its script; a role outside Closebook's groups may not read it at all.
  const schema = await query<{ version: number | null }>('SELECT max(version) AS version FROM closebook.schema_version')
    .then((rows) => rows[0]?.version ?? null)
    .catch(() => null);
  const row = who as { user: string; server: string };
  return { user: row.user, roles: roles.map((role) => role.rolname), server: row.server, schemaVersion: schema };
}

/** `team status --url`: signs in once with an address not kept yet, and reads the status (see readStatus). */
export async function teamStatus(address: TeamLedgerAddress, password: string): Promise<TeamStatus> {
  return withTeamSession(address, password, (client) => readStatus(async (sql, params) => (await client.query(sql, params)).rows));
}
