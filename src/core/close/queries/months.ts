import type { Ledger, LedgerTransaction } from '@core/ledger/ledger';
import { type Row, rowShape } from '@core/ledger/rows';
import type { MonthRef } from '../months';

/** A saved report as a month of one service and reseller (see months.ts). */
const MONTH = rowShape({ report_id: 'text', host: 'text', reseller_id: 'text', period_start: 'text', period_end: 'text', fetched_at: 'text' });
export type MonthRow = Row<typeof MONTH.columns>;
const MONTH_COLUMNS = Object.keys(MONTH.columns).join(', ');

/** What the month close keeps per month (reviews, sign-offs, rates) is keyed by these, bound as $1 … $4. */
export const SAME_MONTH = 'host = $1 AND reseller_id = $2 AND period_start = $3 AND period_end = $4';
export const monthParams = (month: MonthRef) => [month.host, month.resellerId, month.startDate, month.endDate];

export async function monthRow(reader: Ledger | LedgerTransaction, reportId: string): Promise<MonthRow | undefined> {
  return MONTH.all(await reader.all(`SELECT ${MONTH_COLUMNS} FROM reports WHERE report_id = $1`, [reportId]))[0];
}

/** The newest version of the period that ends before `startDate`, at the same service and reseller. */
export async function previousMonthRow(ledger: Ledger, month: Pick<MonthRef, 'host' | 'resellerId' | 'startDate'>): Promise<MonthRow | undefined> {
  const rows = await ledger.all(
    `SELECT ${MONTH_COLUMNS} FROM reports WHERE host = $1 AND reseller_id = $2 AND period_end < $3
     ORDER BY period_start DESC, fetched_at DESC, report_id LIMIT 1`,
    [month.host, month.resellerId, month.startDate],
  );
  return MONTH.all(rows)[0];
}

/** The newest version of each period of a service and reseller, oldest period first. */
export async function newestMonthRows(ledger: Ledger, month: Pick<MonthRef, 'host' | 'resellerId'>): Promise<MonthRow[]> {
  const rows = await ledger.all(
    `SELECT ${MONTH_COLUMNS} FROM (
       SELECT *, row_number() OVER (PARTITION BY period_start, period_end ORDER BY fetched_at DESC, report_id) AS version
       FROM reports WHERE host = $1 AND reseller_id = $2)
     WHERE version = 1 ORDER BY period_start, period_end`,
    [month.host, month.resellerId],
  );
  return MONTH.all(rows);
}

/** Every saved report as a month, oldest period first, newest fetch first within a period. */
export async function everyMonthRow(ledger: Ledger): Promise<MonthRow[]> {
  return MONTH.all(await ledger.all(`SELECT ${MONTH_COLUMNS} FROM reports ORDER BY period_start, period_end, fetched_at DESC, report_id`));
}

/** The newest fetch of a month (what may be prepared), read on the ledger or inside a step's transaction. */
export async function newestFetchRow(reader: Ledger | LedgerTransaction, month: MonthRef): Promise<MonthRow | undefined> {
  const rows = await reader.all(`SELECT ${MONTH_COLUMNS} FROM reports WHERE ${SAME_MONTH} ORDER BY fetched_at DESC, report_id LIMIT 1`, monthParams(month));
  return MONTH.all(rows)[0];
}

const LABEL = rowShape({ name: 'text', period_start: 'text', period_end: 'text', fetched_at: 'text', line_count: 'int' });
export type LabelRow = Row<typeof LABEL.columns>;

/** A saved report's name, period, fetch time and number of lines. */
export async function labelRow(ledger: Ledger, reportId: string): Promise<LabelRow | undefined> {
  return LABEL.all(await ledger.all('SELECT name, period_start, period_end, fetched_at, line_count FROM reports WHERE report_id = $1', [reportId]))[0];
}

const NAME = rowShape({ report_id: 'text', name: 'text' });

/** Every saved report's name, by its id. */
export async function reportNames(ledger: Ledger): Promise<Map<string, string>> {
  return new Map(NAME.all(await ledger.all('SELECT report_id, name FROM reports')).map((row) => [row.report_id, row.name]));
}

const PROFILE = rowShape({ profile_id: 'text' });

/** The profile a saved report was fetched with ('' when there is no such report). */
export async function profileOfReport(ledger: Ledger, reportId: string): Promise<string> {
  return PROFILE.all(await ledger.all('SELECT profile_id FROM reports WHERE report_id = $1', [reportId]))[0]?.profile_id ?? '';
}

const FETCH = rowShape({ report_id: 'text', content_hash: 'text?', fetched_at: 'text' });
export type FetchRow = Row<typeof FETCH.columns>;

/** Every fetch of a month on this workstation with its kept content hash (null until taken), newest first. */
export async function monthFetchRows(ledger: Ledger, month: Pick<MonthRef, 'host' | 'resellerId' | 'startDate' | 'endDate'>): Promise<FetchRow[]> {
  return FETCH.all(
    await ledger.all(`SELECT report_id, content_hash, fetched_at FROM reports WHERE ${SAME_MONTH} ORDER BY fetched_at DESC, report_id`, [
      month.host,
      month.resellerId,
      month.startDate,
      month.endDate,
    ]),
  );
}
