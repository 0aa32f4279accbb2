import type { Ledger, LedgerTransaction } from '@core/ledger/ledger';
import { type Row, rowShape } from '@core/ledger/rows';
import type { Actor } from '../month-review';
import type { MonthRef } from '../months';
import { monthParams, SAME_MONTH } from './months';

/*
 * The review of a month's exceptions, its sign-off and the review log (ledger migration 2).
 */

const REVIEW = rowShape({ exception_id: 'text', state: 'text', note: 'text', reviewed_by: 'text', reviewed_at: 'text' });
export type ReviewRow = Row<typeof REVIEW.columns>;

export async function reviewRows(ledger: Ledger, month: MonthRef): Promise<ReviewRow[]> {
  return REVIEW.all(await ledger.all(`SELECT ${Object.keys(REVIEW.columns).join(', ')} FROM exception_reviews WHERE ${SAME_MONTH}`, monthParams(month)));
}

/** Sets an exception's review ('open' is no review: it is only removed). */
export async function replaceReview(
  transaction: LedgerTransaction,
  month: MonthRef,
  exceptionId: string,
  state: string,
  note: string,
  actor: Actor,
): Promise<void> {
  await transaction.run(`DELETE FROM exception_reviews WHERE ${SAME_MONTH} AND exception_id = $5`, [...monthParams(month), exceptionId]);
  if (state !== 'open')
    await transaction.run('INSERT INTO exception_reviews VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)', [
      ...monthParams(month),
      exceptionId,
      state,
      note,
      actor.name,
      actor.at,
    ]);
}

/** A line of the review log: a review's change (`exceptionId`) or a reopening (no exception, the action 'reopened'). */
export async function logReview(
  transaction: LedgerTransaction,
  month: MonthRef,
  exceptionId: string,
  action: string,
  note: string,
  actor: Actor,
): Promise<void> {
  await transaction.run('INSERT INTO review_log VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)', [
    ...monthParams(month),
    exceptionId,
    action,
    note,
    actor.name,
    actor.osUser,
    actor.at,
  ]);
}

const LOG = rowShape({ exception_id: 'text', action: 'text', note: 'text', by_name: 'text', os_user: 'text', logged_at: 'text' });
export type LogRow = Row<typeof LOG.columns>;

/** Every line of a month's review log, oldest first. */
export async function logRows(ledger: Ledger, month: MonthRef): Promise<LogRow[]> {
  return LOG.all(
    await ledger.all(`SELECT ${Object.keys(LOG.columns).join(', ')} FROM review_log WHERE ${SAME_MONTH} ORDER BY logged_at, rowid`, monthParams(month)),
  );
}

const SIGN_OFF = rowShape({ report_id: 'text', content_hash: 'text', signed_by: 'text', os_user: 'text', signed_at: 'text' });
export type SignOffRow = Row<typeof SIGN_OFF.columns>;

/** The sign-off of a month in force (not reopened), if any. */
export async function signOffRow(ledger: Ledger, month: MonthRef): Promise<SignOffRow | undefined> {
  const rows = await ledger.all(
    `SELECT ${Object.keys(SIGN_OFF.columns).join(', ')} FROM sign_offs WHERE ${SAME_MONTH} AND reopened_at IS NULL ORDER BY signed_at DESC LIMIT 1`,
    monthParams(month),
  );
  return SIGN_OFF.all(rows)[0];
}

export async function insertSignOff(transaction: LedgerTransaction, month: MonthRef, signed: SignOffRow): Promise<void> {
  await transaction.run('INSERT INTO sign_offs VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, NULL, NULL)', [
    ...monthParams(month),
    signed.report_id,
    signed.content_hash,
    signed.signed_by,
    signed.os_user,
    signed.signed_at,
  ]);
}

/** Ends the sign-off in force, saying when, by whom and why. */
export async function reopenSignOff(transaction: LedgerTransaction, month: MonthRef, reason: string, actor: Actor): Promise<void> {
  await transaction.run(`UPDATE sign_offs SET reopened_at = $5, reopened_by = $6, reopen_reason = $7 WHERE ${SAME_MONTH} AND reopened_at IS NULL`, [
    ...monthParams(month),
    actor.at,
    actor.name,
    reason,
  ]);
}

const SIGNED = rowShape({ report_id: 'text' });

/** The saved reports a sign-off in force was made on. */
export async function signedReportIds(ledger: Ledger): Promise<Set<string>> {
  return new Set(SIGNED.all(await ledger.all('SELECT DISTINCT report_id FROM sign_offs WHERE reopened_at IS NULL')).map((row) => row.report_id));
}
