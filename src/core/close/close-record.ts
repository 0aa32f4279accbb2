import type { CheckThresholds, CloseCalendar, Review, ReviewState, SignOff } from '@shared/schemas/month-close';
import type { LedgerTransaction } from '../ledger/ledger';
import type { BillingException } from './billing-checks';
import type { MonthLog } from './close-log';
import type { Actor, Prepared } from './month-review';
import type { MonthRef } from './months';
import type { ReviewRow } from './queries/reviews';
import type { SignOffRow } from './queries/sign-offs';
import type { RateRow } from './queries/rates';

/**
 * Where a month's close is decided and kept: the workstation's ledger (MonthReview), or the team ledger on
 * PostgreSQL, whose functions enforce the same rules in the database. The exceptions are always found on the
 * workstation (the DuckDB ledger is the engine of every check); what is reviewed, prepared and approved, and the
 * log of it, lives here. Each step decides inside one transaction of the record's own.
 */
export interface CloseRecord {
  /** The sign-off in force; its `report_id` is the local fetch it stands on ('' when this workstation has none). */
  signOff(month: MonthRef): Promise<SignOffRow | undefined>;
  /** The month's reviews of `exceptions` (`capture`: this fetch is the basis the reviews were made on). */
  reviews(month: MonthRef, exceptions: readonly BillingException[], capture: boolean): Promise<{ rows: ReviewRow[]; reviews: Map<string, Review> }>;
  review(
    month: MonthRef,
    reportId: string,
    exceptions: readonly BillingException[],
    exceptionIds: readonly string[],
    state: ReviewState,
    note: string,
    actor: Actor,
  ): Promise<Review[]>;
  prepare(month: MonthRef, reportId: string, exceptions: readonly BillingException[], prepared: Prepared, actor: Actor): Promise<SignOff>;
  /** `contentHash`: the report's lines hashed again just now — what is approved is what was prepared. */
  approve(month: MonthRef, reportId: string, exceptions: readonly BillingException[], contentHash: string, actor: Actor): Promise<SignOff>;
  reopen(month: MonthRef, reportId: string, reason: string, actor: Actor): Promise<void>;
  /** The month's log with its hash chain checked. */
  log(month: MonthRef): Promise<MonthLog>;
  /**
   * When what was read last came from a copy because the record could not be reached: the time of that copy (the
   * team ledger's last synced state, read-only); null when it was read live.
   */
  offlineSince(month: MonthRef): string | null;
  /** The month's reference-currency rates (the reference currency's own row of 1 among them). */
  rates(month: MonthRef): Promise<RateRow[]>;
  /** Replaces them (none: removed), refused while the month is Prepared or Approved — checked in the write itself. */
  saveRates(month: MonthRef, referenceCurrency: string | null, rates: readonly { currency: string; rate: string }[]): Promise<void>;
  /** Logs that the month's invoices were exported (the full workbook or the group packs), for its checklist. */
  recordExport(month: MonthRef, reportId: string, what: string, actor: Actor): Promise<void>;
  /**
   * Logs a step of the month's invoicing: an adjustment (`evidence`: the adjustment as JSON, `note`: its reason), or
   * the approval of the adjustments made after the month's approval — refused unless the month is Approved, to
   * whoever made one of them, and when none awaits.
   */
  logInvoiceStep(month: MonthRef, reportId: string, step: InvoiceStep, actor: Actor): Promise<void>;
  /** The team's thresholds of the checks (null: a workstation alone keeps them per profile). */
  teamThresholds(): Promise<CheckThresholds | null>;
  setTeamThresholds(thresholds: CheckThresholds): Promise<CheckThresholds>;
  /** The close calendar: each step's due business day and the holidays (the team's, on the team ledger). */
  calendar(): Promise<CloseCalendar>;
  setCalendar(calendar: CloseCalendar): Promise<CloseCalendar>;
  /** Inside the workstation's transaction that deletes a fetch (see MonthReview.guardDeletion). */
  guardDeletion(transaction: LedgerTransaction, month: MonthRef, reportId: string, details: string, actor: Actor): Promise<void>;
}

/** A step of a month's invoicing, kept in its close log. */
export interface InvoiceStep {
  action: 'adjusted' | 'adjustments-approved';
  note: string;
  evidence: string;
}

/**
 * The adjustments no approval covers yet, each with its log entry: those logged after the month's last approval (or
 * approval of adjustments). Approving the month approves them, so none may be the approver's own.
 */
export function adjustmentsSinceApproval<E extends { seq: number; action: string }>(entries: readonly E[]): E[] {
  const since = Math.max(0, ...entries.filter((entry) => entry.action === 'approved' || entry.action === 'adjustments-approved').map((entry) => entry.seq));
  return entries.filter((entry) => entry.action === 'adjusted' && entry.seq > since);
}

/**
 * The adjustments made since the month's approval (or since the last approval of adjustments): what awaits a second
 * person before the month is invoiced again. None while the month is not Approved.
 */
export function adjustmentsAwaitingApproval<E extends { seq: number; action: string }>(entries: readonly E[], approved: boolean): E[] {
  return approved ? adjustmentsSinceApproval(entries) : [];
}

/** Which record a step uses now: the team ledger's while one is connected, else the workstation's. */
export type CloseRecordPort = () => Promise<CloseRecord | null>;
