import type { Ledger, LedgerTransaction } from '@core/ledger/ledger';
import { type Row, rowShape } from '@core/ledger/rows';
import type { MonthRef } from '../months';
import { monthParams, SAME_MONTH } from './months';

/* A month's sign-off in force (ledger migration 5): none while Draft, one row while Prepared or Approved. */

const SIGN_OFF = rowShape({
  report_id: 'text',
  content_hash: 'text',
  state: 'text',
  prepared_by: 'text',
  prepared_at: 'text',
  approved_by: 'text?',
  approved_at: 'text?',
  thresholds: 'text?',
  rates: 'text?',
  log_seq: 'int?',
  log_hash: 'text?',
});
export type SignOffRow = Row<typeof SIGN_OFF.columns>;
const COLUMNS = Object.keys(SIGN_OFF.columns);

/** The month's sign-off in force, read on the ledger or inside a write's transaction (a step checks it there). */
export async function signOffRow(reader: Ledger | LedgerTransaction, month: MonthRef): Promise<SignOffRow | undefined> {
  return SIGN_OFF.all(await reader.all(`SELECT ${COLUMNS.join(', ')} FROM month_sign_offs WHERE ${SAME_MONTH}`, monthParams(month)))[0];
}

export async function insertSignOff(transaction: LedgerTransaction, month: MonthRef, row: SignOffRow): Promise<void> {
  await transaction.run(`INSERT INTO month_sign_offs VALUES ($1, $2, $3, $4, ${COLUMNS.map((_, at) => `$${at + 5}`).join(', ')})`, [
    ...monthParams(month),
    ...COLUMNS.map((column) => row[column as keyof SignOffRow]),
  ]);
}

/** Approves the Prepared sign-off, with the log entry that says so. */
export async function approveSignOff(transaction: LedgerTransaction, month: MonthRef, by: string, at: string, log: { seq: number; hash: string }) {
  await transaction.run(
    `UPDATE month_sign_offs SET state = 'approved', approved_by = $5, approved_at = $6, log_seq = $7, log_hash = $8 WHERE ${SAME_MONTH} AND state = 'prepared'`,
    [...monthParams(month), by, at, log.seq, log.hash],
  );
}

/** Back to Draft: the sign-off's row goes (its whole story stays in the log). */
export async function removeSignOff(transaction: LedgerTransaction, month: MonthRef): Promise<void> {
  await transaction.run(`DELETE FROM month_sign_offs WHERE ${SAME_MONTH}`, monthParams(month));
}

const SIGNED = rowShape({ report_id: 'text', state: 'text' });

/** The saved reports a sign-off in force was made on, and its state. */
export async function signedReports(reader: Ledger | LedgerTransaction): Promise<Map<string, 'prepared' | 'approved'>> {
  const rows = SIGNED.all(await reader.all('SELECT report_id, state FROM month_sign_offs'));
  return new Map(rows.map((row) => [row.report_id, row.state as 'prepared' | 'approved']));
}
