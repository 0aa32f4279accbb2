import { AppError } from '@shared/errors';
import type { Ledger, LedgerTransaction } from '@core/ledger/ledger';
import { type Row, rowShape } from '@core/ledger/rows';
import type { MonthRef } from '../months';
import { monthParams, SAME_MONTH } from './months';
import { signOffRow } from './sign-offs';

/* A month's rates (ledger migration 2), and the totals per currency pair they convert (kept at ingest). */

const RATE = rowShape({ reference_currency: 'text', currency: 'text', rate: 'decimal' });
export type RateRow = Row<typeof RATE.columns>;

/** The rates kept with a month, the reference currency's own row of 1 among them. */
export async function rateRows(reader: Ledger | LedgerTransaction, month: MonthRef): Promise<RateRow[]> {
  return RATE.all(
    await reader.all(`SELECT reference_currency, currency, rate::VARCHAR AS rate FROM month_rates WHERE ${SAME_MONTH} ORDER BY currency`, monthParams(month)),
  );
}

/** Replaces a month's rates (the reference currency's own among them) in one transaction; none removes them. */
export async function replaceRates(
  ledger: Ledger,
  month: MonthRef,
  referenceCurrency: string | null,
  rates: readonly { currency: string; rate: string }[],
): Promise<void> {
  await ledger.write(async (transaction) => {
    // Checked in the write itself: a month prepared a moment ago keeps the rates it was checked with.
    const signed = await signOffRow(transaction, month);
    if (signed)
      throw new AppError(
        'control',
        `This month is ${signed.state === 'approved' ? 'Approved' : 'Prepared'}, so its rates are locked. Reopen it (with a reason) to change them.`,
      );
    await transaction.run(`DELETE FROM month_rates WHERE ${SAME_MONTH}`, monthParams(month));
    if (referenceCurrency === null) return;
    for (const { currency, rate } of rates) {
      await transaction.run('INSERT INTO month_rates VALUES ($1, $2, $3, $4, $5, $6, $7::DECIMAL(18, 8))', [
        ...monthParams(month),
        referenceCurrency,
        currency,
        rate,
      ]);
    }
  });
}

const PAIR_TOTAL = rowShape({ currency: 'text', customer_currency: 'text', line_count: 'int', cost: 'decimal', sales: 'decimal' });
export type PairTotalRow = Row<typeof PAIR_TOTAL.columns>;

/** A report's native totals per currency pair. */
export async function pairTotalRows(ledger: Ledger, reportId: string): Promise<PairTotalRow[]> {
  const rows = await ledger.all(
    'SELECT currency, customer_currency, line_count, cost::VARCHAR AS cost, sales::VARCHAR AS sales FROM report_totals WHERE report_id = $1 ORDER BY currency, customer_currency',
    [reportId],
  );
  return PAIR_TOTAL.all(rows);
}

const CURRENCY = rowShape({ currency: 'text' });

/** The currencies a report bills in (purchase and customer). */
export async function reportCurrencies(ledger: Ledger, reportId: string): Promise<Set<string>> {
  const rows = await ledger.all(
    'SELECT currency FROM report_totals WHERE report_id = $1 UNION SELECT customer_currency FROM report_totals WHERE report_id = $1',
    [reportId],
  );
  return new Set(CURRENCY.all(rows).map((row) => row.currency));
}
