import { openTotal } from '@shared/model/review-state';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { BillingException as BillingExceptionSchema, type CloseLogEntry, type CloseState, CHANGES_PER_WINDOW } from '@shared/schemas/month-close';
import type { Ledger } from '../ledger/ledger';
import { keptNameOrder } from '../ledger/name-ranks';
import { KEPT_TABLES } from '../ledger/migrations/004-kept-comparisons';
import { type Identity, type IdentityPort, workstationIdentity } from '../ports/identity';
import { keepExceptions, keptExceptionsRow } from './queries/kept-checks';
import {
  type BillingException,
  type CheckThresholds,
  type ConsumptionHistory,
  consumptionVersion,
  DEFAULT_THRESHOLDS,
  lastCountedBatch,
  runBillingChecks,
  type Severity,
} from './billing-checks';
import type { CloseRecord, CloseRecordPort, InvoiceStep } from './close-record';
import type { Checklist, CloseCalendar, FetchState, KindCounts } from '@shared/schemas/month-close';
import { type CalendarStore, memoryCalendar } from './calendar';
import { checklistSteps } from './checklist';
import { compareMonths, type CurrencyBridge, type MonthChange } from './month-compare';
import { contentHashOf, keptContentHash } from '../reports';
import {
  type Actor,
  invoicedRefusal,
  MonthReview,
  openCounts,
  type Review,
  type ReviewState,
  type SignOff,
  signOffOf,
  supersededRefusal,
} from './month-review';
import { everyFetch, monthOf, type MonthRef, previousMonth } from './months';
import { newestFetchRow } from './queries/months';
import { invoicedNumbers } from './queries/invoice-runs';
import { AppError } from '@shared/errors';
import { endedBefore, fetchedBeforeEndAdvice, partialFetch } from '@shared/model/period-end';
import { keepRecent } from '../runtime/recent-map';
import { keptJson } from '@core/ledger/kept-json';

export interface ReviewedException extends BillingException {
  review: Review | null;
}

export interface MonthCloseState {
  reportId: string;
  previousReportId: string | null;
  /** The period of that month: the newest earlier one in the ledger, not always the month just before. */
  previousPeriod: { startDate: string; endDate: string } | null;
  /** When that month was fetched: before its end, the checks compare with what was billed by then. */
  previousFetchedAt: string | null;
  /** The thresholds the exceptions were found with: the sign-off's while the month is Prepared or Approved. */
  thresholds: CheckThresholds;
  exceptions: ReviewedException[];
  open: Record<Severity, number>;
  state: CloseState;
  signOff: SignOff | null;
  you: string;
  teamLedger: boolean;
  teamOfflineSince: string | null;
  readyToInvoice: boolean;
  integrity: { contentChanged: boolean | null; logIntact: boolean; logBrokenAt: number | null };
  /**
   * Set when the month was signed off on another fetch of it: what the service changed since the sign-off. Its
   * changes are the first window of `changeCount` (the screen reads the others: close:changes).
   */
  restatement: {
    signedReportId: string;
    hashChanged: boolean;
    changes: MonthChange[];
    changeCount: number;
    kinds: KindCounts;
    bridges: CurrencyBridge[];
  } | null;
  /** True when this report is not the newest fetch of its month. */
  superseded: boolean;
  /** Set when this fetch was made before its period was over (`endedBefore`): it cannot be prepared. */
  fetchedBeforeEnd: { fetchedAt: string; endDate: string } | null;
}

/** What a kept check was found by: a change to the rules gives every month a new key (2: exceptions carry their evidence). */
export const RULES_VERSION = 2;

/** How many months' checks stay kept (each a report, the month before it, thresholds and consumption). */
const KEPT_CHECKS = 16;

const KeptExceptions = z.array(BillingExceptionSchema.omit({ review: true }).extend({ rule: z.string() }));

/**
 * Closing a month: its exceptions with their reviews, the review itself, and the four-eyes sign-off. The checks are
 * run once and kept in the ledger (a million lines take seconds); reviews are read fresh each time. Who acts comes
 * from the identity port, never from what a person types.
 */
export class MonthClose {
  private readonly local: MonthReview;
  private readonly checking = new Map<string, Promise<BillingException[]>>();
  /** Signed lines re-hashed, by report and the ledger files' fingerprint: a million lines are not re-hashed on every open. */
  private readonly verified = new Map<string, Promise<string>>();

  constructor(
    private readonly ledger: () => Promise<Ledger>,
    private readonly consumption: ConsumptionHistory | null = null,
    private readonly identity: IdentityPort = workstationIdentity,
    private readonly now: () => string = () => new Date().toISOString(),
    private readonly team: CloseRecordPort = async () => null,
    calendar: CalendarStore = memoryCalendar(),
  ) {
    this.local = new MonthReview(ledger, calendar);
  }

  /** The month's checklist: each step with its due business day, who did it and when, and how late if not done. */
  async checklist(reportId: string, profileThresholds: CheckThresholds = DEFAULT_THRESHOLDS): Promise<Checklist> {
    const ledger = await this.ledger();
    const record = await this.record();
    const state = await this.state(reportId, profileThresholds);
    const month = await monthOf(ledger, reportId);
    const calendar = await record.calendar();
    const now = new Date(this.now());
    const today = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
    const steps = checklistSteps({
      periodEnd: month.endDate,
      state: state.state,
      signOff: state.signOff,
      openCount: openTotal(state.open),
      log: (await record.log(month)).entries,
      fetchedAt: month.fetchedAt,
      consumption: await lastCountedBatch(ledger, reportId, this.consumption),
      ratesEntered: (await record.rates(month)).length > 0,
      calendar,
      today,
    });
    return { reportId, today, calendar, steps };
  }

  /** Where the month's rates are kept now (the record: the workstation's, or the team ledger's). */
  async ratesStore(): Promise<CloseRecord> {
    return this.record();
  }

  /** Whether the close goes through a team ledger now. */
  async teamConnected(): Promise<boolean> {
    return (await this.team()) !== null;
  }

  /** The team's thresholds while a team ledger is connected (null without one: each profile's). */
  async teamThresholds(): Promise<CheckThresholds | null> {
    return (await this.record()).teamThresholds();
  }

  async setTeamThresholds(thresholds: CheckThresholds): Promise<CheckThresholds> {
    return (await this.record()).setTeamThresholds(thresholds);
  }

  async calendar(): Promise<CloseCalendar> {
    return (await this.record()).calendar();
  }

  async setCalendar(calendar: CloseCalendar): Promise<CloseCalendar> {
    return (await this.record()).setCalendar(calendar);
  }

  /** Logs that a month's invoices were exported (`what`: which file), for its checklist. */
  async recordExport(reportId: string, what: string): Promise<void> {
    await (await this.record()).recordExport(await monthOf(await this.ledger(), reportId), reportId, what, await this.actor());
  }

  /** Where the close is decided now: the team ledger while one is connected, else this workstation's ledger. */
  private async record(): Promise<CloseRecord> {
    return (await this.team()) ?? this.local;
  }

  /** Every saved fetch's state in its month's close (one sign-off read per month), for telling fetches of a month apart. */
  async fetchStates(): Promise<FetchState[]> {
    const record = await this.record();
    const signOffs = new Map<string, ReturnType<CloseRecord['signOff']>>();
    // Newest fetch first within each month: the first one seen of a month is its basis, the others are superseded.
    return Promise.all(
      (await everyFetch(await this.ledger())).map(async (month) => {
        const key = JSON.stringify([month.host, month.resellerId, month.startDate, month.endDate]);
        const superseded = signOffs.has(key);
        if (!superseded) signOffs.set(key, record.signOff(month));
        const signed = await signOffs.get(key);
        return { reportId: month.reportId, state: signed?.report_id === month.reportId ? (signed.state as FetchState['state']) : 'draft', superseded };
      }),
    );
  }

  async state(reportId: string, profileThresholds: CheckThresholds = DEFAULT_THRESHOLDS): Promise<MonthCloseState> {
    const ledger = await this.ledger();
    const identity = await this.identity();
    const record = await this.record();
    const { month, previous, previousId, signed: signedRow, thresholds, exceptions } = await this.checked(reportId, profileThresholds, record);
    const signOff = signedRow ? signOffOf(signedRow) : null;
    const newest = await newestFetchRow(ledger, month);
    const basis = signOff ? signOff.reportId === reportId : newest?.report_id === reportId;
    const { rows, reviews } = await record.reviews(month, exceptions, basis);
    const reviewed = exceptions.map((exception) => ({ ...exception, review: reviews.get(exception.id) ?? null }));
    const open = openCounts(exceptions, rows);

    const log = await record.log(month);
    // Entries cut from the end leave a whole chain: the sign-off keeps the last entry it saw.
    const anchored = !signedRow?.log_seq || log.entries[signedRow.log_seq - 1]?.hash === signedRow.log_hash;
    const logIntact = log.intact && anchored;
    // A sign-off on lines this workstation does not have (the team ledger's) is not checked here: they are pulled first.
    const contentChanged = signOff?.reportId ? (await this.signedContentHash(ledger, signOff.reportId)) !== signOff.contentHash : null;
    const state: CloseState = signOff && signOff.reportId === reportId ? signOff.state : 'draft';
    const sound = !contentChanged && logIntact;

    let restatement: MonthCloseState['restatement'] = null;
    if (signOff?.reportId && signOff.reportId !== reportId) {
      const comparison = await compareMonths(ledger, signOff.reportId, reportId);
      restatement = {
        signedReportId: signOff.reportId,
        hashChanged: (await keptContentHash(ledger, reportId)) !== signOff.contentHash,
        changes: await comparison.changes(0, CHANGES_PER_WINDOW),
        changeCount: comparison.changeCount,
        kinds: comparison.kinds,
        bridges: comparison.bridges,
      };
    }
    return {
      reportId,
      previousReportId: previousId,
      previousPeriod: previous && { startDate: previous.startDate, endDate: previous.endDate },
      previousFetchedAt: previous?.fetchedAt ?? null,
      thresholds,
      exceptions: reviewed,
      open,
      state,
      signOff,
      you: identity.user,
      teamLedger: identity.teamLedger,
      teamOfflineSince: record.offlineSince(month),
      // A sign-off covers the exceptions reviewed when it was made: one open since (closeStamp says which) holds the invoices back.
      readyToInvoice: sound && openTotal(open) === 0 && (state === 'approved' || (state === 'prepared' && !identity.teamLedger)),
      integrity: { contentChanged, logIntact, logBrokenAt: log.brokenAt ?? (anchored ? null : (signedRow?.log_seq ?? null)) },
      restatement,
      superseded: newest?.report_id !== reportId,
      fetchedBeforeEnd: partialFetch(month.endDate, month.fetchedAt),
    };
  }

  async setReview(
    reportId: string,
    exceptionIds: readonly string[],
    state: ReviewState,
    note: string,
    thresholds: CheckThresholds = DEFAULT_THRESHOLDS,
  ): Promise<Review[]> {
    const record = await this.record();
    const { month, exceptions } = await this.checked(reportId, thresholds, record);
    return record.review(month, reportId, exceptions, exceptionIds, state, note, await this.actor());
  }

  async prepare(reportId: string, profileThresholds: CheckThresholds = DEFAULT_THRESHOLDS): Promise<SignOff> {
    const ledger = await this.ledger();
    const record = await this.record();
    const { month, exceptions, thresholds, previousId } = await this.checked(reportId, profileThresholds, record);
    // The workstation's record checks this inside its own transaction too; the team ledger's record is told here.
    const newest = await newestFetchRow(ledger, month);
    if (newest && newest.report_id !== reportId) throw new AppError('control', supersededRefusal(newest.fetched_at));
    if (!endedBefore(month.endDate, month.fetchedAt)) throw new AppError('control', fetchedBeforeEndAdvice(month.endDate, month.fetchedAt));
    const prepared = {
      contentHash: await keptContentHash(ledger, reportId),
      thresholds,
      previousReportId: previousId,
      previousContentHash: previousId ? await keptContentHash(ledger, previousId) : null,
    };
    return record.prepare(month, reportId, exceptions, prepared, await this.actor());
  }

  async approve(reportId: string, profileThresholds: CheckThresholds = DEFAULT_THRESHOLDS): Promise<SignOff> {
    const ledger = await this.ledger();
    const record = await this.record();
    const { month, exceptions } = await this.checked(reportId, profileThresholds, record);
    // The lines are re-hashed before approval: what is approved is what was prepared.
    return record.approve(month, reportId, exceptions, await this.signedContentHash(ledger, reportId), await this.actor());
  }

  async reopen(reportId: string, reason: string): Promise<void> {
    const ledger = await this.ledger();
    const month = await monthOf(ledger, reportId);
    // The workstation's record checks this inside its own transaction too; the team ledger's record is told here.
    const invoiced = await invoicedNumbers(ledger, month);
    if (invoiced) throw new AppError('control', invoicedRefusal(invoiced));
    await (await this.record()).reopen(month, reportId, reason, await this.actor());
  }

  /** A step of the month's invoicing (an adjustment, the approval of adjustments), in the record in force. */
  async invoiceStep(reportId: string, step: InvoiceStep): Promise<void> {
    await (await this.record()).logInvoiceStep(await monthOf(await this.ledger(), reportId), reportId, step, await this.actor());
  }

  async log(reportId: string): Promise<{ entries: CloseLogEntry[]; intact: boolean; brokenAt: number | null }> {
    return (await this.record()).log(await monthOf(await this.ledger(), reportId));
  }

  /** Inside a deletion's transaction (see MonthReview.guardDeletion): always the workstation's own fetches and log. */
  async guardDeletion(transaction: Parameters<MonthReview['guardDeletion']>[0], month: MonthRef, reportId: string, details: string): Promise<void> {
    await this.local.guardDeletion(transaction, month, reportId, details, await this.actor());
  }

  private async actor(): Promise<Actor> {
    const identity: Identity = await this.identity();
    return { identity, at: this.now() };
  }

  /** The month of a report, its sign-off in force and its exceptions, found with the sign-off's thresholds when there is one. */
  private async checked(reportId: string, profileThresholds: CheckThresholds, record: CloseRecord) {
    const ledger = await this.ledger();
    const month = await monthOf(ledger, reportId);
    const previous = await previousMonth(ledger, month);
    const previousId = previous?.reportId ?? null;
    const signed = await record.signOff(month);
    const thresholds = (signed && signOffOf(signed).thresholds) || profileThresholds;
    return { month, previous, previousId, signed, thresholds, exceptions: await this.exceptions(reportId, previousId, thresholds) };
  }

  /** A signed report's lines hashed again (not the hash kept at save): kept while the ledger's files are unchanged. */
  private async signedContentHash(ledger: Ledger, reportId: string): Promise<string> {
    const key = `${reportId}|${await ledger.fingerprint()}`;
    let hash = this.verified.get(key);
    if (!hash) {
      hash = contentHashOf(ledger, reportId);
      keepRecent(this.verified, key, hash, 8);
      hash.catch(() => this.verified.delete(key));
    }
    return hash;
  }

  /**
   * The month's exceptions: kept in the ledger under a key of everything the checks read — both months' reports
   * and content hashes, the thresholds, the consumption batches counted, the rules' version and the month's name
   * order (they are listed in it) — so they are found once; a change to any of them is another key. Two callers
   * asking at once wait for the same checks.
   */
  private async exceptions(reportId: string, previousId: string | null, thresholds: CheckThresholds): Promise<BillingException[]> {
    const ledger = await this.ledger();
    const months = [reportId, await keptContentHash(ledger, reportId), previousId, previousId && (await keptContentHash(ledger, previousId))];
    const inputs = [
      RULES_VERSION,
      ...months,
      thresholds.marginDeviationPoints,
      thresholds.quantityJumpPercent,
      await consumptionVersion(this.consumption),
      await keptNameOrder(ledger, reportId),
    ];
    const key = createHash('sha256').update(JSON.stringify(inputs)).digest('hex');
    let found = this.checking.get(key);
    if (!found) {
      found = this.keptOrChecked(ledger, key, () => runBillingChecks(ledger, reportId, previousId, thresholds, this.consumption));
      this.checking.set(key, found);
      void found.finally(() => this.checking.delete(key)).catch(() => undefined);
    }
    return found;
  }

  private async keptOrChecked(ledger: Ledger, key: string, check: () => Promise<BillingException[]>): Promise<BillingException[]> {
    const kept = await keptExceptionsRow(ledger, key);
    if (kept !== undefined) {
      const parsed = KeptExceptions.safeParse(keptJson(kept));
      if (parsed.success) return parsed.data as BillingException[];
      // Kept results are derived: a damaged one is found again (and replaced) rather than shown.
    }
    const found = await check();
    await ledger.derive(KEPT_TABLES, (transaction) => keepExceptions(transaction, key, JSON.stringify(found), new Date().toISOString(), KEPT_CHECKS));
    return found;
  }
}
