import { createHash } from 'node:crypto';
import {
  type CheckThresholds,
  CheckThresholds as CheckThresholdsSchema,
  CloseCalendar,
  DEFAULT_CALENDAR,
  type Review,
  type ReviewState,
  type SignOff,
} from '@shared/schemas/month-close';
import type { z } from 'zod';
import { AppError } from '@shared/errors';
import {
  type BillingException,
  type CloseRecord,
  type InvoiceStep,
  evidenceText,
  type MonthLog,
  type MonthRef,
  type Prepared,
  type RateRow,
  reviewsOf,
  type ReviewRow,
  reviewRequest,
  RULES_VERSION,
  type SignOffRow,
  signOffOf,
  tidyCalendar,
} from '../close';
import type { TeamCache } from './team-cache';
import type { TeamConnection } from './team-connection';

/** A month's four key values, bound as $1 … $4 in every call (what every workstation agrees on). */
const monthKey = (month: MonthRef) => [month.host, month.resellerId, month.startDate, month.endDate];
const OF_MONTH = 'JOIN closebook.months m USING (month_id) WHERE m.host = $1 AND m.reseller_id = $2 AND m.period_start = $3::date AND m.period_end = $4::date';
/** A server time as the ISO text the rest of Closebook shows (milliseconds, UTC). */
export const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The exceptions the checks found, as the team ledger compares them: id, severity and the hash of their figures, by id. */
export function exceptionSet(exceptions: readonly BillingException[]): string {
  const set = exceptions
    .map((exception) => ({ id: exception.id, severity: exception.severity, evidence_hash: sha256(evidenceText(exception.evidence)) }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return JSON.stringify(set);
}

/** What the server's append_log hashes: each field as its UTF-8 byte length, a colon and its text (closebook.field). */
const field = (value: string) => `${Buffer.byteLength(value, 'utf8')}:${value}`;

interface LogRow {
  month_id: string;
  seq: number;
  action: string;
  exception_id: string;
  note: string;
  actor: string;
  workstation: string;
  at: string;
  at_hashed: string;
  evidence: string;
  previous_hash: string;
  hash: string;
}

/**
 * The month's close kept on the team ledger: every step is one call of a function of the schema, which checks the
 * rules under a lock on the month's row and names the session's role and the server's time in the log. The checks
 * here are only for a clear message before the call; the database decides.
 */
export class TeamRecord implements CloseRecord {
  constructor(
    private readonly connection: TeamConnection,
    /** Puts a local fetch (and so the lines prepared) on the team ledger, unless it is there already. */
    private readonly share: (reportId: string) => Promise<unknown>,
    private readonly localFetchOf: (month: MonthRef, contentHash: string) => Promise<string | null>,
    private readonly workstation: string,
    private readonly cache: Pick<TeamCache, 'get' | 'put'>,
    private readonly now: () => string,
  ) {}

  /** Months whose last read came from the copy (the server did not answer), with the copy's time. */
  private readonly offline = new Map<string, string>();

  offlineSince(month: MonthRef): string | null {
    return this.offline.get(monthKey(month).join('|')) ?? null;
  }

  /**
   * Reads from the server and keeps a copy; when the server cannot be reached, the copy (read-only: every step
   * still goes to the server, and fails there with a message that says so).
   */
  private async live<T>(month: MonthRef, part: string, read: () => Promise<T>): Promise<T> {
    const key = monthKey(month).join('|');
    try {
      const value = await read();
      this.offline.delete(key);
      await this.cache.put(`${part}|${key}`, value, this.now());
      return value;
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'network')) throw error;
      const kept = await this.cache.get<T>(`${part}|${key}`);
      if (!kept)
        throw new AppError(
          'network',
          `${error.message} This month was never read from the team ledger on this workstation, so there is nothing to show until it answers.`,
        );
      this.offline.set(key, kept.syncedAt);
      return kept.value;
    }
  }

  async signOff(month: MonthRef): Promise<SignOffRow | undefined> {
    const [row] = await this.live(month, 'sign-off', () =>
      this.connection.query<Omit<SignOffRow, 'report_id'>>(
        `SELECT s.state, s.content_hash, s.prepared_by, ${iso('s.prepared_at')} AS prepared_at, s.approved_by, ${iso('s.approved_at')} AS approved_at,
           s.thresholds::text AS thresholds, s.rates::text AS rates, s.log_seq, s.log_hash
         FROM closebook.sign_offs s ${OF_MONTH}`,
        monthKey(month),
      ),
    );
    if (!row) return undefined;
    // The sign-off stands on lines, not on a workstation's copy: the local fetch with those lines, if there is one.
    return { ...row, report_id: (await this.localFetchOf(month, row.content_hash)) ?? '' };
  }

  async reviews(month: MonthRef, exceptions: readonly BillingException[]): Promise<{ rows: ReviewRow[]; reviews: Map<string, Review> }> {
    const rows = (
      await this.live(month, 'reviews', () =>
        this.connection.query<Omit<ReviewRow, 'evidence_source'>>(
          `SELECT r.exception_id, r.state, r.note, r.reviewed_by, ${iso('r.reviewed_at')} AS reviewed_at, r.evidence FROM closebook.reviews r ${OF_MONTH}`,
          monthKey(month),
        ),
      )
    ).map((row): ReviewRow => ({ ...row, evidence_source: 'review' }));
    return { rows, reviews: reviewsOf(rows, exceptions) };
  }

  async review(
    month: MonthRef,
    _reportId: string,
    exceptions: readonly BillingException[],
    exceptionIds: readonly string[],
    state: ReviewState,
    note: string,
  ): Promise<Review[]> {
    const { byId, ids, text } = reviewRequest(exceptions, exceptionIds, state, note);
    const evidences = ids.map((id) => evidenceText(byId.get(id)!.evidence));
    await this.connection.query('SELECT closebook.review($1, $2, $3::date, $4::date, $5::text[], $6::text[], $7, $8, $9)', [
      ...monthKey(month),
      ids,
      evidences,
      state,
      text,
      this.workstation,
    ]);
    const { reviews } = await this.reviews(month, exceptions);
    return ids.flatMap((id) => reviews.get(id) ?? []);
  }

  async prepare(month: MonthRef, reportId: string, exceptions: readonly BillingException[], prepared: Prepared): Promise<SignOff> {
    // The approver opens the lines that were prepared, and the month before them, from the team ledger.
    await this.share(reportId);
    if (prepared.previousReportId) await this.share(prepared.previousReportId);
    // The rates recorded are the server's own, read by prepare under the month's lock.
    await this.connection.query('SELECT closebook.prepare($1, $2, $3::date, $4::date, $5, $6, $7, $8::jsonb, $9::jsonb, $10)', [
      ...monthKey(month),
      prepared.contentHash,
      prepared.previousContentHash,
      RULES_VERSION,
      exceptionSet(exceptions),
      JSON.stringify(prepared.thresholds),
      this.workstation,
    ]);
    return this.signedNow(month);
  }

  async approve(month: MonthRef, _reportId: string, exceptions: readonly BillingException[], contentHash: string): Promise<SignOff> {
    await this.connection.query('SELECT closebook.approve($1, $2, $3::date, $4::date, $5, $6::jsonb, $7)', [
      ...monthKey(month),
      contentHash,
      exceptionSet(exceptions),
      this.workstation,
    ]);
    return this.signedNow(month);
  }

  async reopen(month: MonthRef, _reportId: string, reason: string): Promise<void> {
    const text = reason.trim();
    if (!text) throw new AppError('validation', 'Say why the month is reopened: a reason is required.', { reason: 'is required' });
    await this.connection.query('SELECT closebook.reopen($1, $2, $3::date, $4::date, $5, $6)', [...monthKey(month), text, this.workstation]);
  }

  /** The month's log as the server keeps it, its chain checked here as closebook.append_log made it. */
  async log(month: MonthRef): Promise<MonthLog> {
    return this.live(month, 'log', () => this.readLog(month));
  }

  private async readLog(month: MonthRef): Promise<MonthLog> {
    const rows = await this.connection.query<LogRow>(
      `SELECT l.month_id::text AS month_id, l.seq, l.action, l.exception_id, l.note, l.actor, l.workstation, ${iso('l.logged_at')} AS at,
         to_char(l.logged_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at_hashed, l.evidence, l.previous_hash, l.hash
       FROM closebook.close_log l ${OF_MONTH} ORDER BY l.seq`,
      monthKey(month),
    );
    let previousHash = '';
    let brokenAt: number | null = null;
    rows.forEach((row, index) => {
      if (brokenAt !== null) return;
      const payload = [row.month_id, String(row.seq), row.action, row.exception_id, row.note, row.actor, row.workstation, row.at_hashed, row.evidence]
        .map(field)
        .join('');
      if (row.seq !== index + 1 || row.previous_hash !== previousHash || sha256(previousHash + payload) !== row.hash) brokenAt = index + 1;
      previousHash = row.hash;
    });
    return {
      entries: rows.map((row) => ({
        seq: row.seq,
        reportId: '',
        action: row.action,
        exceptionId: row.exception_id,
        note: row.note,
        actor: `${row.actor} (${row.workstation})`,
        at: row.at,
        evidence: row.evidence,
        hash: row.hash,
      })),
      intact: brokenAt === null,
      brokenAt,
    };
  }

  async rates(month: MonthRef): Promise<RateRow[]> {
    return this.live(month, 'rates', () =>
      this.connection.query<RateRow>(
        `SELECT r.reference_currency, r.currency, r.rate::text AS rate FROM closebook.rates r ${OF_MONTH} ORDER BY r.currency`,
        monthKey(month),
      ),
    );
  }

  async saveRates(month: MonthRef, referenceCurrency: string | null, rates: readonly { currency: string; rate: string }[]): Promise<void> {
    await this.connection.query('SELECT closebook.set_rates($1, $2, $3::date, $4::date, $5, $6::jsonb, $7)', [
      ...monthKey(month),
      referenceCurrency,
      JSON.stringify(rates),
      this.workstation,
    ]);
  }

  async logInvoiceStep(month: MonthRef, _reportId: string, step: InvoiceStep): Promise<void> {
    if (step.action === 'adjusted')
      await this.connection.query('SELECT closebook.log_invoice_adjustment($1, $2, $3::date, $4::date, $5, $6::jsonb, $7)', [
        ...monthKey(month),
        step.note,
        step.evidence,
        this.workstation,
      ]);
    else await this.connection.query('SELECT closebook.approve_invoice_adjustments($1, $2, $3::date, $4::date, $5)', [...monthKey(month), this.workstation]);
  }

  async recordExport(month: MonthRef, _reportId: string, what: string): Promise<void> {
    await this.connection.query('SELECT closebook.record_export($1, $2, $3::date, $4::date, $5, $6)', [...monthKey(month), what, this.workstation]);
  }

  /** One of the team's settings (a single row), or null until someone sets it; a copy is kept for when the server is away. */
  private async teamSetting<T>(name: 'calendar' | 'thresholds', schema: z.ZodType<T>): Promise<T | null> {
    try {
      const [row] = await this.connection.query<{ value: unknown }>('SELECT value FROM closebook.team_settings WHERE name = $1', [name]);
      const parsed = schema.safeParse(row?.value);
      const value = parsed.success ? parsed.data : null;
      await this.cache.put(name, value, this.now());
      return value;
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'network')) throw error;
      return (await this.cache.get<T | null>(name))?.value ?? null;
    }
  }

  /** The team's calendar (the defaults until someone sets it). */
  async calendar(): Promise<CloseCalendar> {
    return (await this.teamSetting('calendar', CloseCalendar)) ?? DEFAULT_CALENDAR;
  }

  /** The team's thresholds, or null until someone sets them (each workstation's profile's then). */
  teamThresholds(): Promise<CheckThresholds | null> {
    return this.teamSetting('thresholds', CheckThresholdsSchema);
  }

  async setTeamThresholds(thresholds: CheckThresholds): Promise<CheckThresholds> {
    await this.connection.query("SELECT closebook.set_team_setting('thresholds', $1::jsonb, $2)", [JSON.stringify(thresholds), this.workstation]);
    return (await this.teamThresholds()) ?? thresholds;
  }

  async setCalendar(calendar: CloseCalendar): Promise<CloseCalendar> {
    await this.connection.query("SELECT closebook.set_team_setting('calendar', $1::jsonb, $2)", [JSON.stringify(tidyCalendar(calendar)), this.workstation]);
    return this.calendar();
  }

  /** A deletion of a local copy changes nothing on the team ledger: the workstation's own guard applies (MonthClose). */
  async guardDeletion(): Promise<void> {}

  private async signedNow(month: MonthRef): Promise<SignOff> {
    const row = await this.signOff(month);
    if (!row) throw new AppError('internal', 'The team ledger did not keep the sign-off it accepted.');
    return signOffOf(row);
  }
}
