import { AppError } from '@shared/errors';
import { Submission, SubmissionSummary } from '@shared/schemas/consumption';
import { z } from 'zod';
import type { ConsumptionHistory } from '../close';
import type { TeamCache } from './team-cache';
import type { TeamConnection } from './team-connection';

/**
 * Successful consumption batches on the team ledger: shared as they succeed on any workstation, so the metered check
 * finds the same exceptions for the preparer and the approver. Keyed by the batch's id; a batch does not change once
 * Successful.
 */
export class TeamConsumption {
  constructor(
    private readonly connection: TeamConnection,
    private readonly cache: Pick<TeamCache, 'get' | 'put'>,
    private readonly now: () => string,
    private readonly workstation: string,
  ) {}

  /** Shares a Successful batch given a period; false when it is there already (or has no period: the check ignores it). */
  async share(submission: Submission, host: string, resellerId: string): Promise<boolean> {
    if (submission.state !== 'Successful' || !submission.period) return false;
    const { rows: _rows, records: _records, failures, extraColumns: _extra, ...rest } = submission;
    const summary: SubmissionSummary = { ...rest, recordCount: submission.records.length, failureCount: failures.length };
    const [row] = await this.connection.query<{ shared: boolean }>(
      'SELECT closebook.share_consumption($1, $2, $3::uuid, $4::date, $5::date, $6::jsonb, $7::jsonb, $8) AS shared',
      [
        host,
        resellerId,
        submission.id,
        submission.period.startDate,
        submission.period.endDate,
        JSON.stringify(summary),
        JSON.stringify(submission),
        this.workstation,
      ],
    );
    return row?.shared ?? false;
  }

  /** The team's batches, as listed (a copy kept for when the server cannot be reached). */
  async summaries(): Promise<SubmissionSummary[]> {
    try {
      const rows = await this.connection.query<{ summary: unknown; host: string; reseller_id: string }>(
        'SELECT summary, host, reseller_id FROM closebook.consumption ORDER BY shared_at',
      );
      // Matched to months by the service they went to (a colleague's profile id means nothing here).
      const summaries = z
        .array(SubmissionSummary)
        .parse(rows.map((row) => ({ ...(row.summary as object), service: { host: row.host, resellerId: row.reseller_id } })));
      await this.cache.put('consumption', summaries, this.now());
      return summaries;
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'network')) throw error;
      return (await this.cache.get<SubmissionSummary[]>('consumption'))?.value ?? [];
    }
  }

  async get(id: string): Promise<Submission> {
    const [row] = await this.connection.query<{ submission: unknown }>('SELECT submission FROM closebook.consumption WHERE batch_id = $1::uuid', [id]);
    if (!row) throw new AppError('not-found', `The consumption batch ${id} is not on the team ledger.`);
    return Submission.parse(row.submission);
  }
}

/** This workstation's history and the team's together (each batch once), for the metered check. */
export function withTeamConsumption(local: ConsumptionHistory, team: () => Promise<TeamConsumption | null>): ConsumptionHistory {
  return {
    history: async () => {
      const own = await local.history();
      const shared = await (await team())?.summaries();
      const ids = new Set(own.map((batch) => batch.id));
      return [...own, ...(shared ?? []).filter((batch) => !ids.has(batch.id))];
    },
    get: async (id) => {
      try {
        return await local.get(id);
      } catch (error) {
        const shared = await team();
        if (!shared) throw error;
        return shared.get(id);
      }
    },
  };
}
