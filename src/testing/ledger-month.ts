import { money } from '@shared/money';
import { Ledger } from '@core/ledger/ledger';
import { silentLogger } from '@core/ports/ports';
import { ingestReport, type ReportIdentity } from '@core/reports/report-ingest';
import { buildBillingReport } from '@twin/billing-report';
import { generateOrganizations } from '@twin/dataset';
import { temporaryDir } from './test-support';

export type ServedEntries = ReturnType<typeof buildBillingReport>;

/** Restates every subscription's and service's totals from their lines, as a service that follows the spec does (after a test changed lines). */
export function restateTotals(entries: ServedEntries): void {
  for (const service of entries.flatMap((entry) => entry.organizations.flatMap((organization) => organization.services))) {
    for (const item of service.items) {
      item.totalCustomerPrice = item.products.reduce((sum, product) => sum.plus(product.totalCustomerPrice), money(0)).toFixed();
      item.totalResellerPrice = item.products.reduce((sum, product) => sum.plus(product.totalResellerPrice), money(0)).toFixed();
    }
    service.totalCustomerPrice = service.items.reduce((sum, item) => sum.plus(item.totalCustomerPrice), money(0)).toFixed();
    service.totalResellerPrice = service.items.reduce((sum, item) => sum.plus(item.totalResellerPrice), money(0)).toFixed();
  }
}

/** The identity a test month is saved under; override what a test cares about. */
export function testIdentity(reportId: string, change: Partial<ReportIdentity> = {}): ReportIdentity {
  return {
    reportId,
    jobId: null,
    name: 'Billing 2026-10',
    profileId: 'p',
    profileName: 'Prod',
    host: 'billing.example.com',
    resellerId: 'r',
    period: { startDate: '2026-10-01', endDate: '2026-10-31' },
    fetchedAt: '2026-11-07T08:00:00.000Z',
    source: 'service',
    sourceFile: null,
    ...change,
  };
}

/**
 * A ledger in a temporary folder holding one twin month (optionally changed before it is "served"), for the
 * tests of what reads the ledger: the viewer, exports, sharing. `close` closes it and removes the folder.
 */
export async function ledgerWithMonth(options: {
  reportId: string;
  seed: number;
  organizations: number;
  linesPerOrganization: number;
  change?: (entries: ServedEntries) => void;
}) {
  const dir = await temporaryDir();
  const ledger = await Ledger.open(dir.path, silentLogger);
  const entries = buildBillingReport(
    generateOrganizations({ seed: options.seed, organizations: options.organizations, linesPerOrganization: options.linesPerOrganization }),
    '2026-10-01',
    '2026-10-31',
    { seed: options.seed },
  );
  options.change?.(entries);
  async function* body() {
    yield JSON.stringify({ status: 5, data: entries });
  }
  await ingestReport(ledger, testIdentity(options.reportId), body());
  const lines = entries.flatMap((entry) =>
    entry.organizations.flatMap((organization) =>
      organization.services.flatMap((service) => service.items.flatMap((item) => item.products.map((line) => ({ organization, service, item, line })))),
    ),
  );
  return {
    dir: dir.path,
    ledger,
    entries,
    lines,
    close: async () => {
      ledger.close();
      await dir.remove();
    },
  };
}
