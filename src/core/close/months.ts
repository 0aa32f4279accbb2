import { AppError } from '@shared/errors';
import type { Ledger } from '../ledger/ledger';

/**
 * A month of one Broker at one service: saved reports are grouped by (host, reseller id) and period, so an imported
 * copy or a CLI run compares with the right month. When a period was fetched more than once, the newest version
 * counts; the older ones stay (a restatement is told by comparing them).
 */
export interface MonthRef {
  reportId: string;
  host: string;
  resellerId: string;
  startDate: string;
  endDate: string;
  fetchedAt: string;
}

const COLUMNS = 'report_id, host, reseller_id, period_start, period_end, fetched_at';

function toRef(row: Record<string, unknown>): MonthRef {
  return {
    reportId: String(row.report_id),
    host: String(row.host),
    resellerId: String(row.reseller_id),
    startDate: String(row.period_start),
    endDate: String(row.period_end),
    fetchedAt: String(row.fetched_at),
  };
}

export async function monthOf(ledger: Ledger, reportId: string): Promise<MonthRef> {
  const [row] = await ledger.all(`SELECT ${COLUMNS} FROM reports WHERE report_id = $1`, [reportId]);
  if (!row) throw new AppError('not-found', 'That saved report no longer exists.');
  return toRef(row);
}

/** The newest version of the period that ends before this one starts, at the same service and reseller; null if none. */
export async function previousMonth(ledger: Ledger, month: MonthRef): Promise<MonthRef | null> {
  const [row] = await ledger.all(
    `SELECT ${COLUMNS} FROM reports WHERE host = $1 AND reseller_id = $2 AND period_end < $3
     ORDER BY period_start DESC, fetched_at DESC, report_id LIMIT 1`,
    [month.host, month.resellerId, month.startDate],
  );
  return row ? toRef(row) : null;
}

/** Every saved month of a service and reseller, one (the newest version) per period, oldest first. */
export async function monthsOf(ledger: Ledger, month: Pick<MonthRef, 'host' | 'resellerId'>): Promise<MonthRef[]> {
  const rows = await ledger.all(
    `SELECT ${COLUMNS} FROM (
       SELECT *, row_number() OVER (PARTITION BY period_start, period_end ORDER BY fetched_at DESC, report_id) AS version
       FROM reports WHERE host = $1 AND reseller_id = $2)
     WHERE version = 1 ORDER BY period_start, period_end`,
    [month.host, month.resellerId],
  );
  return rows.map(toRef);
}
