import type { Ledger, LedgerTransaction } from '@core/ledger/ledger';
import { rowShape } from '@core/ledger/rows';
import type { MonthRef } from '../months';
import { monthParams, SAME_MONTH } from './months';

const INVOICED = rowShape({ first_number: 'text', last_number: 'text', exported_at: 'text' });

/**
 * The numbers of the month's exported invoices (ledger migration 6: the invoice runs), first to last, or undefined
 * when none were exported: a month invoiced is not reopened (its changes are credited instead).
 */
export async function invoicedNumbers(reader: Ledger | LedgerTransaction, month: MonthRef): Promise<{ first: string; last: string; at: string } | undefined> {
  const rows = INVOICED.all(
    await reader.all(`SELECT first_number, last_number, exported_at FROM invoice_runs WHERE ${SAME_MONTH} ORDER BY exported_at, run_id`, monthParams(month)),
  );
  const [first, last] = [rows[0], rows.at(-1)];
  return first && last ? { first: first.first_number, last: last.last_number, at: first.exported_at } : undefined;
}
