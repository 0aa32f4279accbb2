import type { Ledger } from '../ledger/ledger';
import {
  type BillingException,
  type CheckThresholds,
  type ConsumptionHistory,
  consumptionVersion,
  DEFAULT_THRESHOLDS,
  runBillingChecks,
  type Severity,
} from './billing-checks';
import { type ComparisonOf, compareMonths, type CurrencyBridge, type MonthChange } from './month-compare';
import { type Actor, contentHashOf, MonthReview, type Review, type ReviewState, type SignOff } from './month-review';
import { monthOf, monthsOf, previousMonth } from './months';

export interface ReviewedException extends BillingException {
  review: Review | null;
}

export interface MonthCloseState {
  reportId: string;
  previousReportId: string | null;
  exceptions: ReviewedException[];
  open: Record<Severity, number>;
  signOff: SignOff | null;
  /** Set when the month was signed off on another fetch of it: what the service changed since the sign-off. */
  restatement: { signedReportId: string; hashChanged: boolean; changes: MonthChange[]; bridges: CurrencyBridge[] } | null;
  /** True when this report is not the newest fetch of its month. */
  superseded: boolean;
}

/**
 * Closing a month: its exceptions with their reviews, the review itself, and the sign-off. The checks are run
 * once per report and thresholds and kept (a million lines take a few seconds); reviews are read fresh each time.
 */
export class MonthClose {
  private readonly review: MonthReview;
  private readonly checked = new Map<string, Promise<BillingException[]>>();

  constructor(
    private readonly ledger: () => Promise<Ledger>,
    private readonly consumption: ConsumptionHistory | null = null,
  ) {
    this.review = new MonthReview(ledger);
  }

  /** `comparisonOf`: the month compared with the one before it, when the caller needs it too (an export). */
  async state(reportId: string, thresholds: CheckThresholds = DEFAULT_THRESHOLDS, comparisonOf?: ComparisonOf): Promise<MonthCloseState> {
    const ledger = await this.ledger();
    const month = await monthOf(ledger, reportId);
    const previous = await previousMonth(ledger, month);
    const exceptions = await this.exceptions(reportId, previous?.reportId ?? null, thresholds, comparisonOf);
    const reviews = await this.review.reviews(month);
    const reviewed = exceptions.map((exception) => ({ ...exception, review: reviews.get(exception.id) ?? null }));
    const open: Record<Severity, number> = { high: 0, medium: 0, low: 0 };
    for (const exception of reviewed) if (!exception.review) open[exception.severity]++;
    const signOff = await this.review.signOff(month);
    let restatement: MonthCloseState['restatement'] = null;
    if (signOff && signOff.reportId !== reportId) {
      const comparison = await compareMonths(ledger, signOff.reportId, reportId);
      restatement = {
        signedReportId: signOff.reportId,
        hashChanged: (await contentHashOf(ledger, reportId)) !== signOff.contentHash,
        changes: comparison.changes,
        bridges: comparison.bridges,
      };
    }
    const newest = (await monthsOf(ledger, month)).find((candidate) => candidate.startDate === month.startDate && candidate.endDate === month.endDate);
    return {
      reportId,
      previousReportId: previous?.reportId ?? null,
      exceptions: reviewed,
      open,
      signOff,
      restatement,
      superseded: newest?.reportId !== reportId,
    };
  }

  async setReview(reportId: string, exceptionIds: readonly string[], state: ReviewState, note: string, actor: Actor): Promise<Review[]> {
    return this.review.review(await monthOf(await this.ledger(), reportId), exceptionIds, state, note, actor);
  }

  async signOff(reportId: string, actor: Actor, thresholds: CheckThresholds = DEFAULT_THRESHOLDS): Promise<SignOff> {
    const current = await this.state(reportId, thresholds);
    const open = current.open.high + current.open.medium + current.open.low;
    return this.review.sign(await monthOf(await this.ledger(), reportId), reportId, open, actor);
  }

  async reopen(reportId: string, reason: string, actor: Actor): Promise<void> {
    await this.review.reopen(await monthOf(await this.ledger(), reportId), reason, actor);
  }

  async log(reportId: string) {
    return this.review.log(await monthOf(await this.ledger(), reportId));
  }

  /** Forgets kept checks of a report (deleted, or its month got a newer fetch that changes "last month"). */
  forget(reportId?: string): void {
    for (const key of this.checked.keys()) if (!reportId || key.startsWith(`${reportId}|`) || key.includes(`|${reportId}|`)) this.checked.delete(key);
  }

  private async exceptions(reportId: string, previousId: string | null, thresholds: CheckThresholds, comparisonOf?: ComparisonOf): Promise<BillingException[]> {
    // A consumption batch that succeeds (or is given a period) changes what the consumption rule finds.
    const key = `${reportId}|${previousId ?? ''}|${thresholds.marginDeviationPoints}|${thresholds.quantityJumpPercent}|${await consumptionVersion(this.consumption)}`;
    let found = this.checked.get(key);
    if (!found) {
      found = this.ledger().then((ledger) => runBillingChecks(ledger, reportId, previousId, thresholds, this.consumption, comparisonOf));
      found.catch(() => this.checked.delete(key));
      this.checked.set(key, found);
    }
    return found;
  }
}
