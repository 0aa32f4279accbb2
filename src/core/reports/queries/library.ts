import type { Ledger, LedgerTransaction } from '@core/ledger/ledger';
import { type Row, rowShape } from '@core/ledger/rows';
import { ORG_KEY } from '@core/ledger/keys';

/** Tables that hold a report's rows; a delete clears them all in one transaction. */
const REPORT_TABLES = [
  'report_totals',
  'product_lines',
  'billing_lines',
  'products',
  'subscriptions',
  'services',
  'organization_groups',
  'organizations',
  'billing_entries',
  'reports',
];

const REPORT = rowShape({
  report_id: 'text',
  name: 'text',
  profile_id: 'text',
  profile_name: 'text',
  host: 'text',
  period_start: 'text',
  period_end: 'text',
  fetched_at: 'text',
  imported_from: 'text?',
  source_file: 'text?',
  entry_count: 'int',
  organization_count: 'int',
  service_count: 'int',
  subscription_count: 'int',
  line_count: 'int',
});
export type ReportRow = Row<typeof REPORT.columns>;

const TOTAL = rowShape({
  report_id: 'text',
  currency: 'text',
  customer_currency: 'text',
  line_count: 'int',
  cost: 'decimal',
  sales: 'decimal',
  margin: 'decimal',
});
export type TotalRow = Row<typeof TOTAL.columns>;

/**
 * The report's columns; its organizations counted once each (ORG_KEY), where the stored count is of their appearances
 * (an organization billed in two runs of the month is two rows).
 */
const REPORT_COLUMNS = Object.keys(REPORT.columns)
  .map((column) =>
    column === 'organization_count'
      ? `(SELECT count(DISTINCT ${ORG_KEY}) FROM organizations o WHERE o.report_id = reports.report_id)::INTEGER AS organization_count`
      : column,
  )
  .join(', ');
const TOTAL_COLUMNS = `report_id, currency, customer_currency, line_count, cost::VARCHAR AS cost, sales::VARCHAR AS sales, (sales - cost)::VARCHAR AS margin`;

/** Every saved report, newest first, with its totals per currency pair. */
export async function allReports(ledger: Ledger): Promise<{ reports: ReportRow[]; totals: TotalRow[] }> {
  return {
    reports: REPORT.all(await ledger.all(`SELECT ${REPORT_COLUMNS} FROM reports ORDER BY fetched_at DESC, report_id`)),
    totals: TOTAL.all(await ledger.all(`SELECT ${TOTAL_COLUMNS} FROM report_totals ORDER BY report_id, currency, customer_currency`)),
  };
}

/** One saved report and its totals, or null when there is none. */
export async function oneReport(ledger: Ledger, reportId: string): Promise<{ report: ReportRow; totals: TotalRow[] } | null> {
  const [report] = REPORT.all(await ledger.all(`SELECT ${REPORT_COLUMNS} FROM reports WHERE report_id = $1`, [reportId]));
  if (!report) return null;
  return {
    report,
    totals: TOTAL.all(await ledger.all(`SELECT ${TOTAL_COLUMNS} FROM report_totals WHERE report_id = $1 ORDER BY currency, customer_currency`, [reportId])),
  };
}

export async function renameReport(ledger: Ledger, reportId: string, name: string): Promise<void> {
  await ledger.write((transaction) => transaction.run('UPDATE reports SET name = $2 WHERE report_id = $1', [reportId, name]));
}

/** Deletes a report's rows in one transaction. */
export async function deleteReport(ledger: Ledger, reportId: string, guard: (transaction: LedgerTransaction) => Promise<void>): Promise<void> {
  await ledger.write(async (transaction) => {
    await guard(transaction);
    for (const table of REPORT_TABLES) await transaction.run(`DELETE FROM ${table} WHERE report_id = $1`, [reportId]);
  });
}

/** Does any organization of the report belong to the group? */
export async function hasGroup(ledger: Ledger, reportId: string, group: string): Promise<boolean> {
  return (await ledger.all('SELECT 1 AS found FROM organization_groups WHERE report_id = $1 AND group_name = $2 LIMIT 1', [reportId, group])).length > 0;
}

const SAVED_JOB = rowShape({ report_id: 'text', line_count: 'int' });

/** The report a report job saved, if it got that far: a job resumed after its report was saved does not save it twice. */
export async function reportOfJob(ledger: Ledger, jobId: string): Promise<{ reportId: string; lines: number } | null> {
  const [saved] = SAVED_JOB.all(await ledger.all('SELECT report_id, line_count FROM reports WHERE job_id = $1', [jobId]));
  return saved ? { reportId: saved.report_id, lines: saved.line_count } : null;
}

const LINE_COUNT = rowShape({ line_count: 'int' });

/** A report's number of billing lines; null when there is no report of that id. One small read, for every keystroke. */
export async function lineCountOf(ledger: Ledger, reportId: string): Promise<number | null> {
  const [report] = LINE_COUNT.all(await ledger.all('SELECT line_count FROM reports WHERE report_id = $1', [reportId]));
  return report ? report.line_count : null;
}

/** Is a report of this id in the ledger? */
export async function isSaved(ledger: Ledger, reportId: string): Promise<boolean> {
  return (await ledger.all('SELECT 1 AS present FROM reports WHERE report_id = $1', [reportId])).length > 0;
}
