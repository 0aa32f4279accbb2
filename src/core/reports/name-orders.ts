import { FALLBACK_NAME_ORDER, NameOrder } from '@shared/model/name-order';
import type { Ledger } from '@core/ledger/ledger';
import { rankNamesSql } from '@core/ledger/name-ranks';
import { rowShape } from '@core/ledger/rows';
import type { Logger } from '../ports/ports';

const KEPT_ORDER = rowShape({ profile_id: 'text', name_order: 'text?' });

/**
 * The order each report's names are sorted in: its profile's (`wanted`), its organizations and services ranked in it
 * (ledger/name-ranks.ts). A month saved in another order (an earlier Closebook, the profile changed since, a month
 * shared by a colleague) is ranked again at its first read, in one write; the answer is then kept for the process
 * until a profile is saved (`forget`). A read-only ledger keeps the order it has, and says which.
 */
export class NameOrders {
  private readonly known = new Map<string, Promise<NameOrder>>();

  constructor(
    private readonly ledger: () => Promise<Ledger>,
    private readonly wanted: (profileId: string) => Promise<NameOrder>,
    private readonly log: Logger,
  ) {}

  of(reportId: string): Promise<NameOrder> {
    let order = this.known.get(reportId);
    if (!order) {
      order = this.ranked(reportId);
      this.known.set(reportId, order);
      order.catch(() => this.known.delete(reportId));
    }
    return order;
  }

  /** A report (deleted), or every report (a profile, and so perhaps its order, changed), asks again at its next read. */
  forget(reportId?: string): void {
    if (reportId === undefined) this.known.clear();
    else this.known.delete(reportId);
  }

  private async ranked(reportId: string): Promise<NameOrder> {
    const ledger = await this.ledger();
    const [row] = KEPT_ORDER.all(await ledger.all('SELECT profile_id, name_order FROM reports WHERE report_id = $1', [reportId]));
    if (!row) return FALLBACK_NAME_ORDER; // no such report: the caller's own read says so
    const kept = NameOrder.safeParse(row.name_order);
    const wanted = await this.wanted(row.profile_id);
    if (kept.success && kept.data === wanted) return wanted;
    try {
      await ledger.write(async (transaction) => {
        for (const statement of rankNamesSql(wanted)) await transaction.run(statement, [reportId]);
      });
      return wanted;
    } catch (error) {
      if (!kept.success) throw error;
      this.log.warn('the names of a saved month could not be put in its profile’s order; they keep the order they were saved in', {
        reportId,
        kept: kept.data,
        wanted,
        error: error instanceof Error ? error.message : String(error),
      });
      return kept.data;
    }
  }
}
