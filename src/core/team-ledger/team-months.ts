import { open, stat } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { ReportMeta } from '@shared/schemas/saved-report';
import type { TeamFetch } from '@shared/schemas/team-ledger';
import { AppError } from '@shared/errors';
import { monthFetchRows, monthOf, type MonthRef } from '../close';
import type { Ledger } from '../ledger/ledger';
import { keptContentHash, type ReportsApi } from '../reports';
import type { OutputFolder } from '../storage/output-file';
import type { TeamConnection } from './team-connection';
import { iso } from './team-record';

/** A shared fetch is sent and stored in parts of this many bytes (one statement each, within one transaction). */
export const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * Months on the team ledger: a fetch is shared as the shared-report file (gzip), in chunks, in one transaction; a
 * colleague pulls it into their own DuckDB ledger and uses it only when the lines hash to what was shared.
 */
export class TeamMonths {
  constructor(
    private readonly connection: TeamConnection,
    private readonly ledger: () => Promise<Ledger>,
    private readonly reports: Pick<ReportsApi, 'shareFile' | 'importFile' | 'remove'>,
    private readonly staging: OutputFolder,
    private readonly workstation: string,
  ) {}

  /** The local fetch of a month with these lines (the newest, if fetched twice alike), or null. */
  async localFetchOf(month: Pick<MonthRef, 'host' | 'resellerId' | 'startDate' | 'endDate'>, contentHash: string): Promise<string | null> {
    const ledger = await this.ledger();
    for (const row of await monthFetchRows(ledger, month)) {
      if ((row.content_hash ?? (await keptContentHash(ledger, row.report_id))) === contentHash) return row.report_id;
    }
    return null;
  }

  /** Puts a local fetch on the team ledger; false when its lines are there already. */
  async share(reportId: string): Promise<{ shared: boolean; lines: number; bytes: number }> {
    const ledger = await this.ledger();
    const month = await monthOf(ledger, reportId);
    const contentHash = await keptContentHash(ledger, reportId);
    const key = [month.host, month.resellerId, month.startDate, month.endDate];
    const [there] = await this.connection.query<{ lines: string; version: number }>(
      `SELECT f.lines::text AS lines, (SELECT max(version) FROM closebook.schema_version) AS version FROM closebook.fetches f JOIN closebook.months m USING (month_id)
       WHERE m.host = $1 AND m.reseller_id = $2 AND m.period_start = $3::date AND m.period_end = $4::date AND f.content_hash = $5 AND f.complete`,
      [...key, contentHash],
    );
    if (there) {
      // The same lines fetched again (nothing more was billed): the team ledger keeps the later time (schema 4), so
      // lines first fetched before their period was over can be signed off once it is.
      if (there.version >= 4)
        await this.connection.query('SELECT closebook.fetched_again($1, $2, $3::date, $4::date, $5, $6::timestamptz)', [...key, contentHash, month.fetchedAt]);
      return { shared: false, lines: Number(there.lines), bytes: 0 };
    }
    return this.staging.scratch(async (path) => {
      const meta: ReportMeta = await this.reports.shareFile(reportId, path);
      const bytes = (await stat(path)).size;
      const chunks = Math.max(1, Math.ceil(bytes / CHUNK_BYTES));
      const file = await open(path, 'r');
      try {
        const sent = await this.connection.transaction(async (client) => {
          const begun = await client.query<{ begun: boolean }>(
            'SELECT closebook.begin_fetch($1, $2, $3::date, $4::date, $5, $6, $7, $8, $9::timestamptz, $10) AS begun',
            [...key, contentHash, meta.counts.lines, chunks, bytes, meta.fetchedAt, this.workstation],
          );
          // Shared meanwhile (by this workstation's background share, or a colleague's): nothing to send.
          if (!begun.rows[0]?.begun) return false;
          for (let chunk = 0; chunk < chunks; chunk++) {
            const buffer = Buffer.alloc(Math.min(CHUNK_BYTES, bytes - chunk * CHUNK_BYTES));
            await file.read(buffer, 0, buffer.length, chunk * CHUNK_BYTES);
            await client.query('SELECT closebook.put_chunk($1, $2, $3::date, $4::date, $5, $6, $7)', [...key, contentHash, chunk, buffer]);
          }
          await client.query('SELECT closebook.end_fetch($1, $2, $3::date, $4::date, $5, $6)', [...key, contentHash, this.workstation]);
          return true;
        });
        return { shared: sent, lines: meta.counts.lines, bytes: sent ? bytes : 0 };
      } finally {
        await file.close();
      }
    });
  }

  /** Every fetch on the team ledger, oldest month first, newest fetch first within a month. */
  async list(): Promise<TeamFetch[]> {
    const rows = await this.connection.query<{
      host: string;
      reseller_id: string;
      period_start: string;
      period_end: string;
      content_hash: string;
      lines: string;
      fetched_at: string;
      stored_by: string;
      workstation: string;
      stored_at: string;
      state: string | null;
      signed: boolean;
    }>(
      `SELECT m.host, m.reseller_id, to_char(m.period_start, 'YYYY-MM-DD') AS period_start, to_char(m.period_end, 'YYYY-MM-DD') AS period_end,
         f.content_hash, f.lines::text AS lines, ${iso('f.fetched_at')} AS fetched_at, f.stored_by, f.workstation, ${iso('f.stored_at')} AS stored_at,
         s.state, coalesce(f.content_hash = s.content_hash, false)
           OR EXISTS (SELECT FROM closebook.sign_offs later JOIN closebook.months lm USING (month_id)
                      WHERE lm.host = m.host AND lm.reseller_id = m.reseller_id AND later.previous_content_hash = f.content_hash) AS signed
       FROM closebook.fetches f JOIN closebook.months m USING (month_id) LEFT JOIN closebook.sign_offs s USING (month_id)
       WHERE f.complete ORDER BY m.period_start, m.period_end, f.stored_at DESC`,
    );
    const fetches: TeamFetch[] = [];
    for (const row of rows) {
      const month = { host: row.host, resellerId: row.reseller_id, startDate: row.period_start, endDate: row.period_end };
      fetches.push({
        ...month,
        contentHash: row.content_hash,
        lines: Number(row.lines),
        fetchedAt: row.fetched_at,
        storedBy: row.stored_by,
        workstation: row.workstation,
        storedAt: row.stored_at,
        state: (row.state ?? 'draft') as TeamFetch['state'],
        signed: row.signed,
        localReportId: await this.localFetchOf(month, row.content_hash),
      });
    }
    return fetches;
  }

  /**
   * Brings the team ledger's months onto this workstation: of each month, its newest fetch and any fetch a sign-off
   * stands on (`period` 'YYYY-MM': that month's only), unless this workstation has those lines already. Each arrives
   * through the same checks as any report file, and is kept only when its lines hash to what was shared.
   */
  async pull(period?: string): Promise<{ pulled: { fetch: TeamFetch; reportId: string }[]; present: TeamFetch[] }> {
    const all = (await this.list()).filter((fetch) => !period || fetch.startDate.startsWith(period));
    const newest = new Set<TeamFetch>();
    const seen = new Set<string>();
    for (const fetch of all) {
      const month = `${fetch.host}|${fetch.resellerId}|${fetch.startDate}|${fetch.endDate}`;
      if (!seen.has(month)) newest.add(fetch);
      seen.add(month);
    }
    const wanted = all.filter((fetch) => newest.has(fetch) || fetch.signed);
    const pulled: { fetch: TeamFetch; reportId: string }[] = [];
    for (const fetch of wanted.filter((fetch) => !fetch.localReportId)) pulled.push({ fetch, reportId: await this.pullOne(fetch) });
    return { pulled, present: wanted.filter((fetch) => fetch.localReportId) };
  }

  private async pullOne(fetch: TeamFetch): Promise<string> {
    const key = [fetch.host, fetch.resellerId, fetch.startDate, fetch.endDate, fetch.contentHash];
    return this.staging.scratch(async (path) => {
      const file = createWriteStream(path, { mode: 0o600 });
      const failed = once(file, 'error').then(([error]) => Promise.reject(error as Error));
      failed.catch(() => undefined);
      try {
        const [{ chunks }] = (await this.connection.query<{ chunks: number }>(
          `SELECT f.chunk_count AS chunks FROM closebook.fetches f JOIN closebook.months m USING (month_id)
           WHERE m.host = $1 AND m.reseller_id = $2 AND m.period_start = $3::date AND m.period_end = $4::date AND f.content_hash = $5`,
          key,
        )) as [{ chunks: number }];
        for (let chunk = 0; chunk < chunks; chunk++) {
          const [row] = await this.connection.query<{ bytes: Buffer }>(
            `SELECT c.bytes FROM closebook.fetch_chunks c JOIN closebook.months m USING (month_id)
             WHERE m.host = $1 AND m.reseller_id = $2 AND m.period_start = $3::date AND m.period_end = $4::date AND c.content_hash = $5 AND c.chunk_no = $6`,
            [...key, chunk],
          );
          if (!row)
            throw new AppError(
              'bad-response',
              `The team ledger's copy of ${fetch.startDate} is missing part ${chunk + 1}: ask the person who shared it to share it again.`,
            );
          if (!file.write(row.bytes)) await Promise.race([once(file, 'drain'), failed]);
        }
        file.end();
        await Promise.race([once(file, 'finish'), failed]);
      } finally {
        file.destroy();
      }
      const meta = await this.reports.importFile(path, {
        host: fetch.host,
        resellerId: fetch.resellerId,
        period: { startDate: fetch.startDate, endDate: fetch.endDate },
        importedFrom: `the team ledger (shared by ${fetch.storedBy} from ${fetch.workstation})`,
      });
      // Used only when the lines are the lines that were shared: a copy damaged on the way is removed again.
      const arrived = await keptContentHash(await this.ledger(), meta.id);
      if (arrived !== fetch.contentHash) {
        await this.reports.remove(meta.id);
        throw new AppError(
          'bad-response',
          `The team ledger's copy of ${fetch.startDate}…${fetch.endDate} does not hash to the lines that were shared (${arrived.slice(0, 12)}… against ${fetch.contentHash.slice(0, 12)}…): it was not kept. Ask the person who shared it to share it again.`,
        );
      }
      return meta.id;
    });
  }
}
