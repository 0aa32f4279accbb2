import { FALLBACK_NAME_ORDER, type NameOrder } from '@shared/model/name-order';
import type { Ledger } from '@core/ledger/ledger';
import { keptNames, rankNamesSql } from '@core/ledger/name-ranks';
import type { Logger } from '../ports/ports';
import { PerReport } from './per-report';
import { errorMessage } from '@shared/error-message';

/**
 * The order each report's names are sorted in: its profile's (`wanted`), its organizations and services ranked in it
 * (ledger/name-ranks.ts). A month saved in another order (an earlier Closebook, the profile changed since, a month
 * shared by a colleague) is ranked again at its first read, in one write; the answer is then kept for the process
 * until a profile is saved (`forget`). A read-only ledger keeps the order it has, and says which.
 */
export class NameOrders {
  private readonly known = new PerReport((reportId) => this.ranked(reportId));

  constructor(
    private readonly ledger: () => Promise<Ledger>,
    private readonly wanted: (profileId: string) => Promise<NameOrder>,
    private readonly log: Logger,
  ) {}

  of(reportId: string): Promise<NameOrder> {
    return this.known.of(reportId);
  }

  /** A report (deleted), or every report (a profile, and so perhaps its order, changed), asks again at its next read. */
  forget(reportId?: string): void {
    this.known.forget(reportId);
  }

  private async ranked(reportId: string): Promise<NameOrder> {
    const ledger = await this.ledger();
    const kept = await keptNames(ledger, reportId);
    if (!kept) return FALLBACK_NAME_ORDER; // no such report: the caller's own read says so
    const wanted = await this.wanted(kept.profileId);
    if (kept.order === wanted) return wanted;
    try {
      await ledger.write(async (transaction) => {
        for (const statement of rankNamesSql(wanted)) await transaction.run(statement, [reportId]);
      });
      return wanted;
    } catch (error) {
      if (!kept.order) throw error;
      this.log.warn('the names of a saved month could not be put in its profile’s order; they keep the order they were saved in', {
        reportId,
        kept: kept.order,
        wanted,
        error: errorMessage(error),
      });
      return kept.order;
    }
  }
}
