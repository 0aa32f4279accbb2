import { AppError } from '@shared/errors';
import type { Ledger } from '../ledger/ledger';
import type { Review, ReviewState, SignOff } from '@shared/schemas/month-close';
import type { MonthRef } from './months';
import { contentHashOf } from '../reports';
import { insertSignOff, logReview, logRows, reopenSignOff, replaceReview, reviewRows, signOffRow } from './queries/reviews';

export type { Review, ReviewState, SignOff } from '@shared/schemas/month-close';

/** Who acts: the name the user typed and the account they are signed in to the computer with. */
export interface Actor {
  name: string;
  osUser: string;
  at: string;
}

/**
 * The review of a month's exceptions and its sign-off, kept in the ledger. A review belongs to the month and the
 * exception's stable id, so it survives a refetch; each change is also appended to the review log. A signed-off
 * month is locked: reviews change only after it is reopened, with a reason.
 */
export class MonthReview {
  constructor(private readonly ledger: () => Promise<Ledger>) {}

  async reviews(month: MonthRef): Promise<Map<string, Review>> {
    const rows = await reviewRows(await this.ledger(), month);
    return new Map(
      rows.map((row) => [
        row.exception_id,
        { exceptionId: row.exception_id, state: row.state as ReviewState, note: row.note, reviewedBy: row.reviewed_by, reviewedAt: row.reviewed_at },
      ]),
    );
  }

  /** The sign-off in force (not reopened), if any. */
  async signOff(month: MonthRef): Promise<SignOff | null> {
    const row = await signOffRow(await this.ledger(), month);
    return row ? { reportId: row.report_id, contentHash: row.content_hash, signedBy: row.signed_by, osUser: row.os_user, signedAt: row.signed_at } : null;
  }

  /** Gives each exception the same review (and a line each in the log), all or none. */
  async review(month: MonthRef, exceptionIds: readonly string[], state: ReviewState, note: string, actor: Actor): Promise<Review[]> {
    if (await this.signOff(month))
      throw new AppError('conflict', 'This month is signed off, so its reviews are locked. Reopen it (with a reason) to change them.');
    if (state === 'accepted' && !note.trim())
      throw new AppError('validation', 'Say why the exception is accepted: a note is required.', { note: 'is required to accept' });
    const ledger = await this.ledger();
    const ids = [...new Set(exceptionIds)];
    await ledger.write(async (transaction) => {
      for (const exceptionId of ids) {
        await replaceReview(transaction, month, exceptionId, state, note.trim(), actor);
        await logReview(transaction, month, exceptionId, state, note.trim(), actor);
      }
    });
    return ids.map((exceptionId) => ({ exceptionId, state, note: note.trim(), reviewedBy: actor.name, reviewedAt: actor.at }));
  }

  /** Signs the month off as `reportId`'s content; refused while an exception is open. */
  async sign(month: MonthRef, reportId: string, openExceptions: number, actor: Actor): Promise<SignOff> {
    if (!actor.name.trim()) throw new AppError('validation', 'Type your name to sign the month off.', { name: 'is required' });
    if (openExceptions > 0)
      throw new AppError(
        'conflict',
        `${openExceptions} exception${openExceptions === 1 ? ' is' : 's are'} still open: accept (with a note) or resolve each before signing off.`,
      );
    if (await this.signOff(month)) throw new AppError('conflict', 'This month is already signed off.');
    const ledger = await this.ledger();
    const contentHash = await contentHashOf(ledger, reportId);
    await ledger.write((transaction) =>
      insertSignOff(transaction, month, {
        report_id: reportId,
        content_hash: contentHash,
        signed_by: actor.name.trim(),
        os_user: actor.osUser,
        signed_at: actor.at,
      }),
    );
    return { reportId, contentHash, signedBy: actor.name.trim(), osUser: actor.osUser, signedAt: actor.at };
  }

  async reopen(month: MonthRef, reason: string, actor: Actor): Promise<void> {
    if (!reason.trim()) throw new AppError('validation', 'Say why the month is reopened: a reason is required.', { reason: 'is required' });
    if (!(await this.signOff(month))) throw new AppError('conflict', 'This month is not signed off.');
    const ledger = await this.ledger();
    await ledger.write(async (transaction) => {
      await reopenSignOff(transaction, month, reason.trim(), actor);
      await logReview(transaction, month, '', 'reopened', reason.trim(), actor);
    });
  }

  /** Every review change and reopening of a month, oldest first. */
  async log(month: MonthRef): Promise<{ exceptionId: string; action: string; note: string; by: string; osUser: string; at: string }[]> {
    const rows = await logRows(await this.ledger(), month);
    return rows.map((row) => ({ exceptionId: row.exception_id, action: row.action, note: row.note, by: row.by_name, osUser: row.os_user, at: row.logged_at }));
  }
}
