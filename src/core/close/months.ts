import { AppError } from '@shared/errors';
import type { Ledger, LedgerTransaction } from '../ledger/ledger';
import { everyMonthRow, monthRow, type MonthRow, newestMonthRows, previousMonthRow } from './queries/months';

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

function toRef(row: MonthRow): MonthRef {
  return {
    reportId: row.report_id,
    host: row.host,
    resellerId: row.reseller_id,
    startDate: row.period_start,
    endDate: row.period_end,
    fetchedAt: row.fetched_at,
  };
}

export async function monthOf(ledger: Ledger, reportId: string): Promise<MonthRef> {
  const found = await monthRef(ledger, reportId);
  if (!found) throw new AppError('not-found', 'That saved report no longer exists.');
  return found;
}

/** The month of a report, read on the ledger or inside a transaction; undefined when there is no such report. */
export async function monthRef(reader: Ledger | LedgerTransaction, reportId: string): Promise<MonthRef | undefined> {
  const row = await monthRow(reader, reportId);
  return row ? toRef(row) : undefined;
}

/** The newest version of the period that ends before this one starts, at the same service and reseller; null if none. */
export async function previousMonth(ledger: Ledger, month: MonthRef): Promise<MonthRef | null> {
  const row = await previousMonthRow(ledger, month);
  return row ? toRef(row) : null;
}

/** Every saved month of a service and reseller, one (the newest version) per period, oldest first. */
export async function monthsOf(ledger: Ledger, month: Pick<MonthRef, 'host' | 'resellerId'>): Promise<MonthRef[]> {
  return (await newestMonthRows(ledger, month)).map(toRef);
}

/** Every saved fetch of every month, oldest period first, newest fetch first within a period. */
export async function everyFetch(ledger: Ledger): Promise<MonthRef[]> {
  return (await everyMonthRow(ledger)).map(toRef);
}
