import { AppError } from '@shared/errors';
import type { CheckThresholds, CloseCalendar, Evidence, Review, ReviewState, SignOff } from '@shared/schemas/month-close';
import type { CalendarStore } from './calendar';
import type { Ledger, LedgerTransaction } from '../ledger/ledger';
import type { Identity } from '../ports/identity';
import type { BillingException } from './billing-checks';
import { appendLog, monthLog, type MonthLog } from './close-log';
import { approvalSteps } from './queries/close-log';
import { adjustmentsAwaitingApproval, adjustmentsSinceApproval, type CloseRecord, type InvoiceStep } from './close-record';
import type { MonthRef } from './months';
import { newestFetchRow } from './queries/months';
import { invoicedNumbers } from './queries/invoice-runs';
import { type RateRow, rateRows, replaceRates } from './queries/rates';
import { captureEvidence, replaceReview, type ReviewRow, reviewRows } from './queries/reviews';
import { approveSignOff, insertSignOff, removeSignOff, type SignOffRow, signOffRow } from './queries/sign-offs';
import { counted } from '@shared/counted';
import { openSinceSignOff, openTotal } from '@shared/model/review-state';
import { endedBefore, fetchedBeforeEndAdvice } from '@shared/model/period-end';

export type { Review, ReviewState, SignOff } from '@shared/schemas/month-close';

/** Who takes a step, and when (the identity's own clock-free word for who; the time from the core's clock). */
export interface Actor {
  identity: Identity;
  at: string;
}

/** Why a month whose invoices were exported is not reopened, and what to do instead. */
export const invoicedRefusal = (invoiced: { first: string; last: string; at: string }) =>
  `This month's invoices ${invoiced.first}–${invoiced.last} were exported (${invoiced.at.slice(0, 10)}), so it is not reopened: a reopened month could be invoiced twice. Correct it in the mapping and export again — each changed invoice is credited and issued anew.`;

/** Why a fetch that is not its month's newest is not prepared (the newest is the basis of the month). */
export const supersededRefusal = (newestFetchedAt: string) =>
  `A newer fetch of this month was saved (${newestFetchedAt}): prepare that one, the basis of the month now.`;

/** Why an approver who adjusted the month's invoices since its last approval may not approve it (the database says the same). */
const ownAdjustmentRefusal = (user: string, note: string) =>
  `${user} adjusted this month's invoices ("${note}") since its last approval, so ${user} cannot also approve the month, which approves the adjustment: a second person must.`;

/** A refusal by a control of the close: its own error code (the CLI exits 5), with words that say which rule. */
const refused = (message: string) => new AppError('control', message);

/** One text per set of figures, whatever order they were named in. */
export function evidenceText(evidence: Evidence): string {
  return JSON.stringify(Object.fromEntries(Object.entries(evidence).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
}

function parseEvidence(text: string | null): Evidence | null {
  if (text === null) return null;
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Evidence) : null;
  } catch {
    return null;
  }
}

/**
 * A review as the exception now stands: suspended when the figures it was given on are not the exception's figures
 * now (a refetch changed them) — it then no longer counts, and the exception is open until reviewed again.
 */
export function reviewOf(row: ReviewRow, exception: BillingException): Review {
  const reviewed = parseEvidence(row.evidence) ?? exception.evidence;
  const changed = row.evidence !== null && row.evidence !== evidenceText(exception.evidence);
  return {
    exceptionId: row.exception_id,
    state: row.state as ReviewState,
    note: row.note,
    reviewedBy: row.reviewed_by,
    reviewedAt: row.reviewed_at,
    evidence: reviewed,
    capturedAtMigration: row.evidence_source === 'migration' || row.evidence === null,
    suspended: changed ? { reviewed, now: exception.evidence } : null,
  };
}

/** Each reviewed exception's review as the exception now stands (see reviewOf); reviews of exceptions gone are left out. */
export function reviewsOf(rows: readonly ReviewRow[], exceptions: readonly BillingException[]): Map<string, Review> {
  const byId = new Map(exceptions.map((exception) => [exception.id, exception]));
  const reviews = new Map<string, Review>();
  for (const row of rows) {
    const exception = byId.get(row.exception_id);
    if (exception) reviews.set(row.exception_id, reviewOf(row, exception));
  }
  return reviews;
}

/** How many exceptions are open (not reviewed, or their review suspended), by severity. */
export function openCounts(exceptions: readonly BillingException[], rows: readonly ReviewRow[]): Record<'high' | 'medium' | 'low', number> {
  const byId = new Map(rows.map((row) => [row.exception_id, row]));
  const open = { high: 0, medium: 0, low: 0 };
  for (const exception of exceptions) {
    const row = byId.get(exception.id);
    if (!row || reviewOf(row, exception).suspended) open[exception.severity]++;
  }
  return open;
}

export function signOffOf(row: SignOffRow): SignOff {
  let thresholds: CheckThresholds | null = null;
  try {
    thresholds = row.thresholds ? (JSON.parse(row.thresholds) as CheckThresholds) : null;
  } catch {
    thresholds = null;
  }
  return {
    state: row.state as SignOff['state'],
    reportId: row.report_id,
    contentHash: row.content_hash,
    preparedBy: row.prepared_by,
    preparedAt: row.prepared_at,
    approvedBy: row.approved_by,
    approvedAt: row.approved_at,
    thresholds,
  };
}

/**
 * A review as asked, checked before anything is written: every exception named exists in the month, and a note is
 * given where the rules need one (accepting anything; resolving a high or medium exception).
 */
export function reviewRequest(exceptions: readonly BillingException[], exceptionIds: readonly string[], state: ReviewState, note: string) {
  const byId = new Map(exceptions.map((exception) => [exception.id, exception]));
  const ids = [...new Set(exceptionIds)];
  const unknown = ids.filter((id) => !byId.has(id));
  if (unknown.length)
    throw new AppError(
      'validation',
      `${counted(unknown.length, 'exception does', 'exceptions do')} not exist in this month (${unknown.slice(0, 3).join(', ')}${unknown.length > 3 ? ', …' : ''}). Check the month's exceptions again.`,
      { exceptionIds: 'names an exception that does not exist' },
    );
  const text = note.trim();
  if (state === 'accepted' && !text)
    throw new AppError('validation', 'Say why the exception is accepted: a note is required.', { note: 'is required to accept' });
  const weighty = ids.map((id) => byId.get(id)!).find((exception) => exception.severity !== 'low');
  if (state === 'resolved' && !text && weighty)
    throw new AppError('validation', `Say how the ${weighty.severity} exception was resolved: a note is required.`, {
      note: `is required to resolve a ${weighty.severity} exception`,
    });
  return { byId, ids, text };
}

const stateWord = (state: string) => (state === 'approved' ? 'Approved' : 'Prepared');

/** What a prepare records beside the month: the check it passed, so an approver (or an auditor) can see what it was. */
export interface Prepared {
  contentHash: string;
  thresholds: CheckThresholds;
  previousReportId: string | null;
  /** The lines of the month before that the checks compared with (the team ledger stores which). */
  previousContentHash: string | null;
}

/**
 * The review of a month's exceptions and its four-eyes sign-off, kept in the ledger. Every step reads the month's
 * sign-off and reviews and decides inside one write transaction (writes run one at a time), so no two steps can
 * interleave: a month is never prepared with an exception open, nor twice. Each step appends to the month's log in the
 * same transaction — all or nothing.
 */
export class MonthReview implements CloseRecord {
  constructor(
    private readonly ledger: () => Promise<Ledger>,
    private readonly calendarStore: CalendarStore,
  ) {}

  calendar(): Promise<CloseCalendar> {
    return this.calendarStore.get();
  }

  /** A workstation alone keeps thresholds per profile (ThresholdStore), not here. */
  async teamThresholds(): Promise<null> {
    return null;
  }

  setTeamThresholds(): Promise<CheckThresholds> {
    return Promise.reject(new AppError('validation', 'Without a team ledger, thresholds are kept per profile.'));
  }

  async rates(month: MonthRef): Promise<RateRow[]> {
    return rateRows(await this.ledger(), month);
  }

  async saveRates(month: MonthRef, referenceCurrency: string | null, rates: readonly { currency: string; rate: string }[]): Promise<void> {
    await replaceRates(await this.ledger(), month, referenceCurrency, rates);
  }

  setCalendar(calendar: CloseCalendar): Promise<CloseCalendar> {
    return this.calendarStore.set(calendar);
  }

  async recordExport(month: MonthRef, reportId: string, what: string, actor: Actor): Promise<void> {
    const ledger = await this.ledger();
    if (ledger.readOnly) return; // a read-only data folder exports, but keeps no log
    await ledger.write((transaction) =>
      appendLog(transaction, month, [{ reportId, action: 'exported', note: what, actor: actor.identity.user, at: actor.at }]),
    );
  }

  async logInvoiceStep(month: MonthRef, reportId: string, step: InvoiceStep, actor: Actor): Promise<void> {
    const ledger = await this.ledger();
    await ledger.write(async (transaction) => {
      if (step.action === 'adjustments-approved') {
        const signed = await signOffRow(transaction, month);
        const awaiting = adjustmentsAwaitingApproval(await approvalSteps(transaction, month), signed?.state === 'approved');
        if (!awaiting.length) throw refused('No adjustment awaits approval: adjustments made before the month was approved were approved with it.');
        const own = awaiting.find((entry) => entry.actor === actor.identity.user);
        if (own)
          throw refused(`${actor.identity.user} made an adjustment awaiting approval ("${own.note}"), so cannot approve them: that needs a second person.`);
        if (!actor.identity.roles.includes('approver')) throw refused(`${actor.identity.user} may not approve adjustments: it needs the approver role.`);
      }
      await appendLog(transaction, month, [
        { reportId, action: step.action, note: step.note, actor: actor.identity.user, at: actor.at, evidence: step.evidence },
      ]);
    });
  }

  async log(month: MonthRef): Promise<MonthLog> {
    return monthLog(await this.ledger(), month);
  }

  /** The workstation's ledger is always at hand. */
  offlineSince(): null {
    return null;
  }

  async signOff(month: MonthRef): Promise<SignOffRow | undefined> {
    return signOffRow(await this.ledger(), month);
  }

  /**
   * The month's reviews of `exceptions`. Reviews carried over from before four eyes take their evidence from the
   * fetch that is the basis of the month (`capture`: the signed one, or the newest) the first time it is checked.
   */
  async reviews(month: MonthRef, exceptions: readonly BillingException[], capture: boolean): Promise<{ rows: ReviewRow[]; reviews: Map<string, Review> }> {
    const ledger = await this.ledger();
    let rows = await reviewRows(ledger, month);
    const byId = new Map(exceptions.map((exception) => [exception.id, exception]));
    const uncaptured = rows.filter((row) => row.evidence === null && byId.has(row.exception_id));
    if (capture && uncaptured.length && !ledger.readOnly) {
      await ledger.write(async (transaction) => {
        for (const row of uncaptured) await captureEvidence(transaction, month, row.exception_id, evidenceText(byId.get(row.exception_id)!.evidence));
      });
      rows = await reviewRows(ledger, month);
    }
    return { rows, reviews: reviewsOf(rows, exceptions) };
  }

  /** Gives each exception the same review on its figures now (and an entry each in the log), all or none. */
  async review(
    month: MonthRef,
    reportId: string,
    exceptions: readonly BillingException[],
    exceptionIds: readonly string[],
    state: ReviewState,
    note: string,
    actor: Actor,
  ): Promise<Review[]> {
    const { byId, ids, text } = reviewRequest(exceptions, exceptionIds, state, note);
    const ledger = await this.ledger();
    const user = actor.identity.user;
    return ledger.write(async (transaction) => {
      const signed = await signOffRow(transaction, month);
      if (signed) throw refused(`This month is ${stateWord(signed.state)}, so its reviews are locked. Reopen it (with a reason) to change them.`);
      const rows = ids.map((id): ReviewRow => {
        const evidence = evidenceText(byId.get(id)!.evidence);
        return { exception_id: id, state, note: text, reviewed_by: user, reviewed_at: actor.at, evidence, evidence_source: 'review' };
      });
      for (const row of rows) await replaceReview(transaction, month, row);
      await appendLog(
        transaction,
        month,
        rows.map((row) => ({ reportId, action: state, exceptionId: row.exception_id, note: text, actor: user, at: actor.at, evidence: row.evidence ?? '' })),
      );
      return rows.map((row) => reviewOf(row, byId.get(row.exception_id)!));
    });
  }

  /** Draft → Prepared, by a preparer, on the month's newest fetch, when nothing is open. */
  async prepare(month: MonthRef, reportId: string, exceptions: readonly BillingException[], prepared: Prepared, actor: Actor): Promise<SignOff> {
    const { identity, at } = actor;
    if (!identity.roles.includes('preparer')) throw refused(`${identity.user} may not prepare a month: that needs the preparer role.`);
    const ledger = await this.ledger();
    return ledger.write(async (transaction) => {
      const signed = await signOffRow(transaction, month);
      if (signed) throw refused(`This month is ${stateWord(signed.state)} already (by ${signed.prepared_by}). Reopen it (with a reason) to prepare it again.`);
      const newest = await newestFetchRow(transaction, month);
      if (newest && newest.report_id !== reportId) throw refused(supersededRefusal(newest.fetched_at));
      if (!endedBefore(month.endDate, month.fetchedAt)) throw refused(fetchedBeforeEndAdvice(month.endDate, month.fetchedAt));
      const open = openTotal(openCounts(exceptions, await reviewRows(transaction, month)));
      if (open > 0)
        throw refused(`${counted(open, 'exception is', 'exceptions are')} still open: accept (with a note) or resolve each before the month is prepared.`);
      const rates = await rateRows(transaction, month); // read here: rates change only while the month is a Draft
      const evidence = JSON.stringify({ ...prepared, rates, exceptions: exceptions.map((exception) => [exception.id, evidenceText(exception.evidence)]) });
      const log = await appendLog(transaction, month, [{ reportId, action: 'prepared', actor: identity.user, at, evidence }]);
      const row: SignOffRow = {
        report_id: reportId,
        content_hash: prepared.contentHash,
        state: 'prepared',
        prepared_by: identity.user,
        prepared_at: at,
        approved_by: null,
        approved_at: null,
        thresholds: JSON.stringify(prepared.thresholds),
        rates: JSON.stringify(rates),
        log_seq: log.seq,
        log_hash: log.hash,
      };
      await insertSignOff(transaction, month, row);
      return signOffOf(row);
    });
  }

  /**
   * Prepared → Approved, by an approver who is not the preparer and accepted none of the month's high exceptions,
   * while nothing is open and the prepared lines are as they were (`contentHash`, the lines hashed again by the caller).
   */
  async approve(month: MonthRef, reportId: string, exceptions: readonly BillingException[], contentHash: string, actor: Actor): Promise<SignOff> {
    const { identity, at } = actor;
    if (!identity.roles.includes('approver')) throw refused(`${identity.user} may not approve a month: that needs the approver role.`);
    const ledger = await this.ledger();
    return ledger.write(async (transaction) => {
      const signed = await signOffRow(transaction, month);
      if (!signed) throw refused('This month is not prepared yet: prepare it first (a preparer, when nothing is open).');
      if (signed.state === 'approved') throw refused(`This month is Approved already (by ${signed.approved_by}).`);
      if (signed.report_id !== reportId) throw refused('This month was prepared on another fetch of it: approve that one, or reopen the month.');
      if (signed.content_hash !== contentHash)
        throw refused("The prepared month's lines changed after it was prepared: it cannot be approved. Reopen it and prepare it again.");
      if (signed.prepared_by === identity.user)
        throw refused(
          identity.teamLedger
            ? `${identity.user} prepared this month, so ${identity.user} cannot approve it: approval needs a second person.`
            : `${identity.user} prepared this month, so ${identity.user} cannot approve it: approval needs a second person, who signs in through the team ledger. On this workstation the month's close ends at Prepared.`,
        );
      const rows = await reviewRows(transaction, month);
      const byId = new Map(exceptions.map((exception) => [exception.id, exception]));
      const ownHigh = rows.filter((row) => row.state === 'accepted' && row.reviewed_by === identity.user && byId.get(row.exception_id)?.severity === 'high');
      if (ownHigh.length)
        throw refused(
          `${identity.user} accepted ${counted(ownHigh.length, 'high exception', 'high exceptions')} of this month, so ${identity.user} cannot also approve it: a second person must.`,
        );
      const ownAdjustment = adjustmentsSinceApproval(await approvalSteps(transaction, month)).find((entry) => entry.actor === identity.user);
      if (ownAdjustment) throw refused(ownAdjustmentRefusal(identity.user, ownAdjustment.note));
      const open = openTotal(openCounts(exceptions, rows));
      if (open > 0) throw refused(`${openSinceSignOff(open)}: reopen the month and review them.`);
      const log = await appendLog(transaction, month, [
        { reportId, action: 'approved', actor: identity.user, at, evidence: JSON.stringify({ contentHash: signed.content_hash }) },
      ]);
      await approveSignOff(transaction, month, identity.user, at, log);
      return signOffOf({ ...signed, state: 'approved', approved_by: identity.user, approved_at: at, log_seq: log.seq, log_hash: log.hash });
    });
  }

  /** Prepared or Approved → Draft, with a reason; an Approved month by an approver only. */
  async reopen(month: MonthRef, reportId: string, reason: string, actor: Actor): Promise<void> {
    const text = reason.trim();
    if (!text) throw new AppError('validation', 'Say why the month is reopened: a reason is required.', { reason: 'is required' });
    const { identity, at } = actor;
    const ledger = await this.ledger();
    await ledger.write(async (transaction) => {
      const signed = await signOffRow(transaction, month);
      if (!signed) throw refused('This month is a Draft: there is nothing to reopen.');
      const invoiced = await invoicedNumbers(transaction, month);
      if (invoiced) throw refused(invoicedRefusal(invoiced));
      if (signed.state === 'approved' && !identity.roles.includes('approver'))
        throw refused(`This month is Approved: only an approver may reopen it, and ${identity.user} is not one.`);
      const evidence = JSON.stringify({ was: signed.state, reportId: signed.report_id, contentHash: signed.content_hash });
      await appendLog(transaction, month, [{ reportId: reportId || signed.report_id, action: 'reopened', note: text, actor: identity.user, at, evidence }]);
      await removeSignOff(transaction, month);
    });
  }

  /**
   * Inside a deletion's transaction: refuses to delete the fetch a sign-off in force stands on (it is superseded by a
   * newer fetch, never removed), and logs the deletion of a draft fetch in its month's log.
   */
  async guardDeletion(transaction: LedgerTransaction, month: MonthRef, reportId: string, details: string, actor: Actor): Promise<void> {
    const signed = await signOffRow(transaction, month);
    if (signed?.report_id === reportId)
      throw refused(
        `This fetch is the ${stateWord(signed.state)} basis of its month, so it cannot be deleted: it stays as the evidence of the sign-off. Reopen the month (with a reason) first, or fetch the month again.`,
      );
    await appendLog(transaction, month, [{ reportId, action: 'deleted', note: details, actor: actor.identity.user, at: actor.at }]);
  }
}
