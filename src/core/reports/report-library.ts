import { AppError } from '@shared/errors';
import { REPORT_SCHEMA_VERSION, type ReportMeta } from '@shared/schemas/saved-report';
import type { Ledger, LedgerRow } from '../ledger/ledger';
import { currencyPairKey, isSingleCurrency } from '@shared/model/currency-pair';

/** Tables that hold a report's rows; a delete clears them all in one transaction. */
const REPORT_TABLES = ['report_totals', 'billing_lines', 'products', 'subscriptions', 'services', 'organization_groups', 'organizations', 'billing_entries', 'reports'];

/** The saved months in the ledger: listing, summaries, renames and deletes. */
export class ReportLibrary {
  constructor(private readonly ledger: () => Promise<Ledger>) {}

  /** Every saved report, newest first. */
  async list(): Promise<ReportMeta[]> {
    const ledger = await this.ledger();
    const reports = await ledger.all('SELECT * FROM reports ORDER BY fetched_at DESC, report_id');
    const totals = await ledger.all(
      `SELECT report_id, currency, customer_currency, line_count, cost::VARCHAR AS cost, sales::VARCHAR AS sales, (sales - cost)::VARCHAR AS margin
       FROM report_totals ORDER BY report_id, currency, customer_currency`,
    );
    return reports.map((row) => toMeta(row, totals.filter((total) => total.report_id === row.report_id)));
  }

  async meta(reportId: string): Promise<ReportMeta> {
    const ledger = await this.ledger();
    const [row] = await ledger.all('SELECT * FROM reports WHERE report_id = $1', [reportId]);
    if (!row) throw new AppError('not-found', 'That saved report no longer exists.');
    const totals = await ledger.all(
      `SELECT currency, customer_currency, line_count, cost::VARCHAR AS cost, sales::VARCHAR AS sales, (sales - cost)::VARCHAR AS margin
       FROM report_totals WHERE report_id = $1 ORDER BY currency, customer_currency`,
      [reportId],
    );
    return toMeta(row, totals);
  }

  async rename(reportId: string, name: string): Promise<ReportMeta> {
    await this.meta(reportId);
    await (await this.ledger()).write((transaction) => transaction.run('UPDATE reports SET name = $2 WHERE report_id = $1', [reportId, name]));
    return this.meta(reportId);
  }

  /** Deletes a report's rows in one transaction; returns the kept received file (relative), for the caller to remove. */
  async delete(reportId: string): Promise<string | null> {
    const ledger = await this.ledger();
    const [row] = await ledger.all('SELECT source_file FROM reports WHERE report_id = $1', [reportId]);
    await ledger.write(async (transaction) => {
      for (const table of REPORT_TABLES) await transaction.run(`DELETE FROM ${table} WHERE report_id = $1`, [reportId]);
    });
    return row?.source_file ? String(row.source_file) : null;
  }
}

function toMeta(row: LedgerRow, totals: LedgerRow[]): ReportMeta {
  return {
    id: String(row.report_id),
    schemaVersion: REPORT_SCHEMA_VERSION,
    name: String(row.name),
    profileId: String(row.profile_id),
    profileName: String(row.profile_name),
    host: String(row.host),
    period: { startDate: String(row.period_start), endDate: String(row.period_end) },
    fetchedAt: String(row.fetched_at),
    ...(row.imported_from ? { importedFrom: String(row.imported_from) } : {}),
    counts: {
      billingEntries: Number(row.entry_count),
      organizations: Number(row.organization_count),
      services: Number(row.service_count),
      subscriptions: Number(row.subscription_count),
      lines: Number(row.line_count),
    },
    totals: totals.map((total) => {
      const currency = currencyPairKey(String(total.currency), String(total.customer_currency));
      return { currency, cost: String(total.cost), sales: String(total.sales), margin: isSingleCurrency(currency) ? String(total.margin) : '' };
    }),
  };
}
