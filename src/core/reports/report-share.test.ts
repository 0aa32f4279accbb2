import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import type { Ledger } from '../ledger/ledger';
import { ledgerWithMonth } from '@testing/ledger-month';
import { buildBillingReport, generateOrganizations } from '@testing/test-support';
import { importReportFile } from './report-import';
import { ReportLibrary } from './report-library';
import { writeSharedReport } from './report-share';

const cleanups = cleanupsAfterEach();

const REPORT = '00000000-0000-4000-8000-000000000007';

async function setup() {
  const month = await ledgerWithMonth({ reportId: REPORT, seed: 5, organizations: 25, linesPerOrganization: 7 });
  cleanups.push(month.close);
  const { ledger } = month;
  return { dir: month.dir, ledger, library: new ReportLibrary(async () => ledger) };
}

const lineRows = (ledger: Ledger, reportId: string) =>
  ledger.all(
    `SELECT o.name, s.service_name, u.item_name, l.product_name, l.quantity::VARCHAR AS q, l.cost::VARCHAR AS c, l.sales::VARCHAR AS s, l.cost_per_unit::VARCHAR AS cu
     FROM billing_lines l JOIN organizations o USING (report_id, org_no) JOIN services s USING (report_id, service_no) JOIN subscriptions u USING (report_id, subscription_no)
     WHERE l.report_id = $1 ORDER BY l.line_no`,
    [reportId],
  );

describe('sharing and importing a saved report', () => {
  it('round-trips every line exactly through the shared file, under a new id with the same name and period', async () => {
    const { dir, ledger, library } = await setup();
    const meta = await library.meta(REPORT);
    const file = join(dir, 'Billing 2026-10.closebook-report.json.gz');
    await writeSharedReport(ledger, meta, file);
    const imported = await importReportFile(ledger, file, '2026-11-20T00:00:00.000Z');
    expect(imported).not.toBe(REPORT);
    expect(await lineRows(ledger, imported)).toEqual(await lineRows(ledger, REPORT));
    const copy = await library.meta(imported);
    // The copy is the same report, and says which file it came from.
    expect({ ...copy, id: REPORT }).toEqual({ ...meta, importedFrom: 'Billing 2026-10.closebook-report.json.gz' });
    expect(meta.importedFrom).toBeUndefined();
  });

  it('imports the plain JSON file earlier versions shared, and refuses a file that is not a report, saying why', async () => {
    const { dir, ledger } = await setup();
    const legacy = join(dir, 'old.json');
    const entries = buildBillingReport(generateOrganizations({ seed: 9, organizations: 3, linesPerOrganization: 2 }), '2026-09-01', '2026-09-30', { seed: 9 });
    const meta = {
      id: REPORT,
      schemaVersion: 1,
      name: 'Billing 2026-09',
      profileId: 'p',
      profileName: 'Prod',
      host: 'h',
      period: { startDate: '2026-09-01', endDate: '2026-09-30' },
      fetchedAt: '2026-10-07T00:00:00.000Z',
      counts: { billingEntries: 0, organizations: 0, services: 0, subscriptions: 0, lines: 0 },
      totals: [],
    };
    await writeFile(legacy, JSON.stringify({ meta, entries }));
    const id = await importReportFile(ledger, legacy, '2026-11-20T00:00:00.000Z');
    expect((await new ReportLibrary(async () => ledger).meta(id)).counts.lines).toBe(
      entries.flatMap((e) => e.organizations.flatMap((o) => o.services.flatMap((s) => s.items.flatMap((i) => i.products)))).length,
    );
    const notReport = join(dir, 'service.json');
    await writeFile(notReport, JSON.stringify({ status: 5, data: entries }));
    await expect(importReportFile(ledger, notReport, '')).rejects.toMatchObject({
      code: 'validation',
      message: expect.stringContaining('is not a Closebook report file'),
    });
    const garbage = join(dir, 'garbage.json');
    await writeFile(garbage, '{"meta": {"id": 1}, "entries": [');
    await expect(importReportFile(ledger, garbage, '')).rejects.toMatchObject({ code: 'validation', message: expect.stringContaining('garbage.json') });
    expect((await ledger.all('SELECT count(*) AS n FROM reports'))[0]?.n).toBe('2');
  });
});
