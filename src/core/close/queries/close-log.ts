import type { Ledger, LedgerTransaction } from '@core/ledger/ledger';
import { type Row, rowShape } from '@core/ledger/rows';
import type { MonthRef } from '../months';
import { monthParams, SAME_MONTH } from './months';

/* A month's close log (ledger migration 5): append-only, each entry chained to the one before (close-log.ts). */

const LOG_ENTRY = rowShape({
  host: 'text',
  reseller_id: 'text',
  period_start: 'text',
  period_end: 'text',
  seq: 'int',
  report_id: 'text',
  action: 'text',
  exception_id: 'text',
  note: 'text',
  actor: 'text',
  logged_at: 'text',
  evidence: 'text',
  previous_hash: 'text',
  hash: 'text',
});
export type LogEntryRow = Row<typeof LOG_ENTRY.columns>;
const COLUMNS = Object.keys(LOG_ENTRY.columns);

/** Every entry of a month's log in the order written. */
export async function logEntryRows(ledger: Ledger | LedgerTransaction, month: MonthRef): Promise<LogEntryRow[]> {
  return LOG_ENTRY.all(await ledger.all(`SELECT ${COLUMNS.join(', ')} FROM close_log WHERE ${SAME_MONTH} ORDER BY seq`, monthParams(month)));
}

const LAST = rowShape({ seq: 'int', hash: 'text' });

/** The month's last entry, read inside the transaction that appends after it. */
export async function lastLogEntry(transaction: LedgerTransaction, month: MonthRef): Promise<{ seq: number; hash: string } | undefined> {
  return LAST.all(await transaction.all(`SELECT seq, hash FROM close_log WHERE ${SAME_MONTH} ORDER BY seq DESC LIMIT 1`, monthParams(month)))[0];
}

export async function insertLogEntry(transaction: LedgerTransaction, row: LogEntryRow): Promise<void> {
  await transaction.run(
    `INSERT INTO close_log (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, at) => `$${at + 1}`).join(', ')})`,
    COLUMNS.map((column) => row[column as keyof LogEntryRow]),
  );
}

const APPROVAL_STEP = rowShape({ seq: 'int', action: 'text', actor: 'text', note: 'text' });

/** The month's adjustments and approvals in order: which adjustments an approval covers (adjustmentsSinceApproval). */
export async function approvalSteps(
  reader: Ledger | LedgerTransaction,
  month: MonthRef,
): Promise<{ seq: number; action: string; actor: string; note: string }[]> {
  return APPROVAL_STEP.all(
    await reader.all(
      `SELECT seq, action, actor, note FROM close_log WHERE ${SAME_MONTH} AND action IN ('adjusted', 'approved', 'adjustments-approved') ORDER BY seq`,
      monthParams(month),
    ),
  );
}
