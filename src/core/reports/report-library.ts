import { counted } from '@shared/counted';
import { AppError } from '@shared/errors';
import { REPORT_SCHEMA_VERSION, type ReportMeta } from '@shared/schemas/saved-report';
import type { Ledger, LedgerTransaction } from '../ledger/ledger';
import { allReports, deleteReport, lineCountOf, oneReport, renameReport, type ReportRow, type TotalRow } from './queries/library';
import { currencyPairKey, isSingleCurrency } from '@shared/model/currency-pair';

/** The saved months in the ledger: listing, summaries, renames and deletes. */
export class ReportLibrary {
  constructor(
    private readonly ledger: () => Promise<Ledger>,
    private readonly guardDeletion?: (transaction: LedgerTransaction, reportId: string, details: string) => Promise<void>,
  ) {}

  /** Every saved report, newest first. */
  async list(): Promise<ReportMeta[]> {
    const { reports, totals } = await allReports(await this.ledger());
    return reports.map((report) =>
      toMeta(
        report,
        totals.filter((total) => total.report_id === report.report_id),
      ),
    );
  }

  async meta(reportId: string): Promise<ReportMeta> {
    const found = await oneReport(await this.ledger(), reportId);
    if (!found) throw notFound();
    return toMeta(found.report, found.totals);
  }

  /** A report's number of billing lines (what the viewer asks at every keystroke: one small read, not the whole summary). */
  async lineCount(reportId: string): Promise<number> {
    const lines = await lineCountOf(await this.ledger(), reportId);
    if (lines === null) throw notFound();
    return lines;
  }

  async rename(reportId: string, name: string): Promise<ReportMeta> {
    await this.meta(reportId);
    await renameReport(await this.ledger(), reportId, name);
    return this.meta(reportId);
  }

  /**
   * Deletes a report's rows in one transaction, which the month close may refuse (a signed fetch) and logs; returns
   * the kept received file (relative), for the caller to remove.
   */
  async delete(reportId: string): Promise<string | null> {
    const ledger = await this.ledger();
    const found = await oneReport(ledger, reportId);
    if (!found) throw notFound();
    const { report } = found;
    const details = `Deleted the fetch "${report.name}" of ${report.fetched_at} (${counted(report.line_count, 'line')}).`;
    await deleteReport(ledger, reportId, async (transaction) => this.guardDeletion?.(transaction, reportId, details));
    return report.source_file || null;
  }
}

const notFound = () => new AppError('not-found', 'That saved report no longer exists.');

function toMeta(row: ReportRow, totals: TotalRow[]): ReportMeta {
  return {
    id: row.report_id,
    schemaVersion: REPORT_SCHEMA_VERSION,
    name: row.name,
    profileId: row.profile_id,
    profileName: row.profile_name,
    host: row.host,
    period: { startDate: row.period_start, endDate: row.period_end },
    fetchedAt: row.fetched_at,
    ...(row.imported_from ? { importedFrom: row.imported_from } : {}),
    counts: {
      billingEntries: row.entry_count,
      organizations: row.organization_count,
      services: row.service_count,
      subscriptions: row.subscription_count,
      lines: row.line_count,
    },
    totals: totals.map((total) => {
      const currency = currencyPairKey(total.currency, total.customer_currency);
      return { currency, cost: total.cost, sales: total.sales, margin: isSingleCurrency(currency) ? total.margin : '' };
    }),
  };
}
