import { createHash } from 'node:crypto';
import { AppError } from '@shared/errors';
import type { Ledger } from '../ledger/ledger';
import { ORG_KEY } from '../ledger/keys';
import type { Review, ReviewState, SignOff } from '@shared/schemas/month-close';
import type { MonthRef } from './months';

export type { Review, ReviewState, SignOff } from '@shared/schemas/month-close';

/** Who acts: the name the user typed and the account they are signed in to the computer with. */
export interface Actor {
  name: string;
  osUser: string;
  at: string;
}

const MONTH = 'host = $1 AND reseller_id = $2 AND period_start = $3 AND period_end = $4';
const monthParams = (month: MonthRef) => [month.host, month.resellerId, month.startDate, month.endDate];

/**
 * The review of a month's exceptions and its sign-off, kept in the ledger. A review belongs to the month and the
 * exception's stable id, so it survives a refetch; each change is also appended to the review log. A signed-off
 * month is locked: reviews change only after it is reopened, with a reason.
 */
export class MonthReview {
  constructor(private readonly ledger: () => Promise<Ledger>) {}

  async reviews(month: MonthRef): Promise<Map<string, Review>> {
    const rows = await (await this.ledger()).all(`SELECT * FROM exception_reviews WHERE ${MONTH}`, monthParams(month));
    return new Map(
      rows.map((row) => [
        String(row.exception_id),
        { exceptionId: String(row.exception_id), state: String(row.state) as ReviewState, note: String(row.note), reviewedBy: String(row.reviewed_by), reviewedAt: String(row.reviewed_at) },
      ]),
    );
  }

  /** The sign-off in force (not reopened), if any. */
  async signOff(month: MonthRef): Promise<SignOff | null> {
    const [row] = await (await this.ledger()).all(`SELECT * FROM sign_offs WHERE ${MONTH} AND reopened_at IS NULL ORDER BY signed_at DESC LIMIT 1`, monthParams(month));
    return row ? { reportId: String(row.report_id), contentHash: String(row.content_hash), signedBy: String(row.signed_by), osUser: String(row.os_user), signedAt: String(row.signed_at) } : null;
  }

  /** Gives each exception the same review (and a line each in the log), all or none. */
  async review(month: MonthRef, exceptionIds: readonly string[], state: ReviewState, note: string, actor: Actor): Promise<Review[]> {
    if (await this.signOff(month)) throw new AppError('conflict', 'This month is signed off, so its reviews are locked. Reopen it (with a reason) to change them.');
    if (state === 'accepted' && !note.trim()) throw new AppError('validation', 'Say why the exception is accepted: a note is required.', { note: 'is required to accept' });
    const ledger = await this.ledger();
    const ids = [...new Set(exceptionIds)];
    await ledger.write(async (transaction) => {
      for (const exceptionId of ids) {
        await transaction.run(`DELETE FROM exception_reviews WHERE ${MONTH} AND exception_id = $5`, [...monthParams(month), exceptionId]);
        if (state !== 'open') {
          await transaction.run('INSERT INTO exception_reviews VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)', [...monthParams(month), exceptionId, state, note.trim(), actor.name, actor.at]);
        }
        await transaction.run('INSERT INTO review_log VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)', [...monthParams(month), exceptionId, state, note.trim(), actor.name, actor.osUser, actor.at]);
      }
    });
    return ids.map((exceptionId) => ({ exceptionId, state, note: note.trim(), reviewedBy: actor.name, reviewedAt: actor.at }));
  }

  /** Signs the month off as `reportId`'s content; refused while an exception is open. */
  async sign(month: MonthRef, reportId: string, openExceptions: number, actor: Actor): Promise<SignOff> {
    if (!actor.name.trim()) throw new AppError('validation', 'Type your name to sign the month off.', { name: 'is required' });
    if (openExceptions > 0) throw new AppError('conflict', `${openExceptions} exception${openExceptions === 1 ? ' is' : 's are'} still open: accept (with a note) or resolve each before signing off.`);
    if (await this.signOff(month)) throw new AppError('conflict', 'This month is already signed off.');
    const ledger = await this.ledger();
    const contentHash = await contentHashOf(ledger, reportId);
    await ledger.write((transaction) =>
      transaction.run('INSERT INTO sign_offs VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, NULL, NULL)', [...monthParams(month), reportId, contentHash, actor.name.trim(), actor.osUser, actor.at]),
    );
    return { reportId, contentHash, signedBy: actor.name.trim(), osUser: actor.osUser, signedAt: actor.at };
  }

  async reopen(month: MonthRef, reason: string, actor: Actor): Promise<void> {
    if (!reason.trim()) throw new AppError('validation', 'Say why the month is reopened: a reason is required.', { reason: 'is required' });
    if (!(await this.signOff(month))) throw new AppError('conflict', 'This month is not signed off.');
    const ledger = await this.ledger();
    await ledger.write(async (transaction) => {
      await transaction.run(`UPDATE sign_offs SET reopened_at = $5, reopened_by = $6, reopen_reason = $7 WHERE ${MONTH} AND reopened_at IS NULL`, [...monthParams(month), actor.at, actor.name, reason.trim()]);
      await transaction.run('INSERT INTO review_log VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)', [...monthParams(month), '', 'reopened', reason.trim(), actor.name, actor.osUser, actor.at]);
    });
  }

  /** Every review change and reopening of a month, oldest first. */
  async log(month: MonthRef): Promise<{ exceptionId: string; action: string; note: string; by: string; osUser: string; at: string }[]> {
    const rows = await (await this.ledger()).all(`SELECT * FROM review_log WHERE ${MONTH} ORDER BY logged_at, rowid`, monthParams(month));
    return rows.map((row) => ({ exceptionId: String(row.exception_id), action: String(row.action), note: String(row.note), by: String(row.by_name), osUser: String(row.os_user), at: String(row.logged_at) }));
  }
}

/**
 * SHA-256 over a canonical form of a report's lines: each line's identity and values as text, in the compare key's
 * order — the same lines give the same hash whatever order the service sent them in or how the file was saved.
 */
export async function contentHashOf(ledger: Ledger, reportId: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const rows of ledger.stream(
    `SELECT concat_ws(chr(31), ${ORG_KEY}, o.customer_number, s.service_id, u.subscription_id, l.product_id, l.item_code, l.quantity::VARCHAR,
       l.cost_per_unit::VARCHAR, l.sales_per_unit::VARCHAR, l.cost::VARCHAR, l.sales::VARCHAR, l.currency, l.customer_currency, l.item_details) AS line
     FROM billing_lines l
     JOIN organizations o ON o.report_id = l.report_id AND o.org_no = l.org_no
     JOIN services s ON s.report_id = l.report_id AND s.service_no = l.service_no
     JOIN subscriptions u ON u.report_id = l.report_id AND u.subscription_no = l.subscription_no
     WHERE l.report_id = $1 ORDER BY line`,
    [reportId],
  )) {
    for (const row of rows) hash.update(`${String(row.line)}\n`);
  }
  return hash.digest('hex');
}
