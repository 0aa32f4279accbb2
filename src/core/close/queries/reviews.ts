import type { Ledger, LedgerTransaction } from '@core/ledger/ledger';
import { type Row, rowShape } from '@core/ledger/rows';
import type { MonthRef } from '../months';
import { monthParams, SAME_MONTH } from './months';

/*
 * The review of a month's exceptions (ledger migrations 2 and 5): one row per reviewed exception, with the figures it
 * was reviewed on. Its history is the month's close log.
 */

const REVIEW = rowShape({
  exception_id: 'text',
  state: 'text',
  note: 'text',
  reviewed_by: 'text',
  reviewed_at: 'text',
  evidence: 'text?',
  evidence_source: 'text?',
});
export type ReviewRow = Row<typeof REVIEW.columns>;
const COLUMNS = Object.keys(REVIEW.columns).join(', ');

/** The month's reviews, on the ledger or inside a write's transaction (a step checks them there). */
export async function reviewRows(reader: Ledger | LedgerTransaction, month: MonthRef): Promise<ReviewRow[]> {
  return REVIEW.all(await reader.all(`SELECT ${COLUMNS} FROM exception_reviews WHERE ${SAME_MONTH}`, monthParams(month)));
}

/** Sets an exception's review with the figures reviewed ('open' is no review: it is only removed). */
export async function replaceReview(transaction: LedgerTransaction, month: MonthRef, review: ReviewRow): Promise<void> {
  await transaction.run(`DELETE FROM exception_reviews WHERE ${SAME_MONTH} AND exception_id = $5`, [...monthParams(month), review.exception_id]);
  if (review.state !== 'open')
    await transaction.run(
      `INSERT INTO exception_reviews (host, reseller_id, period_start, period_end, ${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [...monthParams(month), review.exception_id, review.state, review.note, review.reviewed_by, review.reviewed_at, review.evidence, review.evidence_source],
    );
}

/** Gives a review carried over from before four eyes the figures it stands on now (only where it has none yet). */
export async function captureEvidence(transaction: LedgerTransaction, month: MonthRef, exceptionId: string, evidence: string): Promise<void> {
  await transaction.run(
    `UPDATE exception_reviews SET evidence = $6, evidence_source = 'migration' WHERE ${SAME_MONTH} AND exception_id = $5 AND evidence IS NULL`,
    [...monthParams(month), exceptionId, evidence],
  );
}
