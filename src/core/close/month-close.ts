import { createHash } from 'node:crypto';
import { z } from 'zod';
import { BillingException as BillingExceptionSchema, MAX_CHANGES_SHOWN } from '@shared/schemas/month-close';
import type { Ledger } from '../ledger/ledger';
import { KEPT_TABLES } from '../ledger/migrations/004-kept-comparisons';
import { keepExceptions, keptExceptionsRow } from './queries/kept-checks';
import {
  type BillingException,
  type CheckThresholds,
  type ConsumptionHistory,
  consumptionVersion,
  DEFAULT_THRESHOLDS,
  runBillingChecks,
  type Severity,
} from './billing-checks';
import { compareMonths, type CurrencyBridge, type MonthChange } from './month-compare';
import { contentHashOf, keptContentHash } from '../reports';
import { type Actor, MonthReview, type Review, type ReviewState, type SignOff } from './month-review';
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
  /** Its changes are the first MAX_CHANGES_SHOWN of `changeCount`. */
  restatement: { signedReportId: string; hashChanged: boolean; changes: MonthChange[]; changeCount: number; bridges: CurrencyBridge[] } | null;
  /** True when this report is not the newest fetch of its month. */
  superseded: boolean;
}

/** What a kept check was found by: a change to the rules gives every month a new key. */
const RULES_VERSION = 1;

/** How many months' checks stay kept (each a report, the month before it, thresholds and consumption). */
const KEPT_CHECKS = 16;

const KeptExceptions = z.array(BillingExceptionSchema.omit({ review: true }).extend({ rule: z.string() }));

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Closing a month: its exceptions with their reviews, the review itself, and the sign-off. The checks are run
 * once and kept in the ledger (a million lines take seconds); reviews are read fresh each time.
 */
export class MonthClose {
  private readonly review: MonthReview;
  private readonly checking = new Map<string, Promise<BillingException[]>>();

  constructor(
    private readonly ledger: () => Promise<Ledger>,
    private readonly consumption: ConsumptionHistory | null = null,
  ) {
    this.review = new MonthReview(ledger);
  }

  async state(reportId: string, thresholds: CheckThresholds = DEFAULT_THRESHOLDS): Promise<MonthCloseState> {
    const ledger = await this.ledger();
    const month = await monthOf(ledger, reportId);
    const previous = await previousMonth(ledger, month);
    const exceptions = await this.exceptions(reportId, previous?.reportId ?? null, thresholds);
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
        changes: await comparison.changes(0, MAX_CHANGES_SHOWN),
        changeCount: comparison.changeCount,
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

  /**
   * The month's exceptions: kept in the ledger under a key of everything the checks read — both months' reports
   * and content hashes, the thresholds, the consumption batches counted and the rules' version — so they are
   * found once; a change to any of them is another key. Two callers asking at once wait for the same checks.
   */
  private async exceptions(reportId: string, previousId: string | null, thresholds: CheckThresholds): Promise<BillingException[]> {
    const ledger = await this.ledger();
    const months = [reportId, await keptContentHash(ledger, reportId), previousId, previousId && (await keptContentHash(ledger, previousId))];
    const inputs = [RULES_VERSION, ...months, thresholds.marginDeviationPoints, thresholds.quantityJumpPercent, await consumptionVersion(this.consumption)];
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
      const parsed = KeptExceptions.safeParse(parseJson(kept));
      if (parsed.success) return parsed.data as BillingException[];
      // Kept results are derived: a damaged one is found again (and replaced) rather than shown.
    }
    const found = await check();
    await ledger.derive(KEPT_TABLES, (transaction) => keepExceptions(transaction, key, JSON.stringify(found), new Date().toISOString(), KEPT_CHECKS));
    return found;
  }
}
