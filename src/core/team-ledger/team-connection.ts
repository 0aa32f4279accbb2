import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { AppError } from '@shared/errors';
import type { TeamLedgerAddress } from './connection-policy';
import { clientConfig, signInError } from './team-session';

/** A refusal by one of the team ledger's rules (SQLSTATE CB001, raised by its functions): the close's own error code. */
const CONTROL_REFUSAL = 'CB001';

/**
 * A failure of the team ledger in words that say what happened to the step: a rule's refusal as `control` (the
 * CLI exits 5), a missing grant as `control` too, a dropped connection as `network` — the step's transaction did
 * not commit, so nothing of it is kept.
 */
export function teamError(error: unknown, address: TeamLedgerAddress): unknown {
  const { code, message } = error as { code?: string; message?: string };
  if (code === CONTROL_REFUSAL) return new AppError('control', message ?? 'The team ledger refused this step.');
  if (code === '55P03')
    return new AppError(
      'network',
      'A colleague is working on this month on the team ledger right now (sharing its lines or taking a step), so this step waited 30 s and gave up. Nothing of it was saved: try again in a moment.',
    );
  if (code === '42501')
    return new AppError('control', `The team ledger refused this step for ${address.user} (${message}): ask IT for the Closebook role it needs.`);
  if (code === '3F000' || code === '42P01' || code === '42883')
    return new AppError(
      'not-found',
      `The team ledger at ${address.host} has no Closebook schema, or an older one: IT runs closebook-team-ledger.sql once (a team ledger of version 1 is brought up to date by closebook-team-ledger-invoices.sql).`,
    );
  const signIn = signInError(error, address);
  if (signIn !== error) return signIn;
  if (code === 'ECONNRESET' || code === 'EPIPE' || /Connection terminated|connection closed/i.test(message ?? ''))
    return new AppError(
      'network',
      `The connection to the team ledger at ${address.host}:${address.port} dropped. A step under way may or may not have been saved there: read the month again to see what the team ledger has, then try again if it is not there.`,
    );
  return error;
}

/**
 * The sessions of one signed-in role on the team ledger: a small pool (a workstation asks one thing at a time),
 * opened on first use, each query parameterised. `transaction` runs a step's statements in one transaction.
 */
export class TeamConnection {
  private pool: Promise<Pool> | null = null;

  constructor(
    readonly address: TeamLedgerAddress,
    private readonly password: string,
  ) {}

  private open(): Promise<Pool> {
    this.pool ??= (async () => {
      // Loaded when a team ledger is used: the embedded default never pays for the PostgreSQL client.
      const { default: pg } = await import('pg');
      const pool = new pg.Pool({ ...(await clientConfig(this.address, this.password)), max: 2, idleTimeoutMillis: 30_000 });
      pool.on('error', () => undefined); // an idle session that drops is replaced at the next query
      return pool;
    })();
    return this.pool;
  }

  async query<R extends QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    try {
      return (await (await this.open()).query<R>(sql, params)).rows;
    } catch (error) {
      throw teamError(error, this.address);
    }
  }

  async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient;
    try {
      client = await (await this.open()).connect();
    } catch (error) {
      throw teamError(error, this.address);
    }
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      // A session whose rollback failed is not handed out again.
      await client.query('ROLLBACK').catch((rollback: unknown) => (broken = rollback instanceof Error ? rollback : new Error(String(rollback))));
      throw teamError(error, this.address);
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    if (pool) await (await pool.catch(() => null))?.end();
  }
}
