import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { Ledger } from '../ledger/ledger';
import { silentLogger } from '../ports/ports';
import { type SavedReportFile, temporaryDir } from '@testing/test-support';
import { ReportLibrary } from './report-library';
import { migrateLegacyReports } from './report-migration';

const cleanups = cleanupsAfterEach();

/** A report exactly as the version before the ledger saved it. */
function report(id: string, name: string, sales: string): SavedReportFile {
  return {
    meta: {
      id,
      schemaVersion: 1,
      name,
      profileId: 'p',
      profileName: 'Prod',
      host: 'billing.example.com',
      period: { startDate: '2026-10-01', endDate: '2026-10-31' },
      fetchedAt: `2026-11-0${id.charAt(0)}T09:00:00.000Z`,
      counts: { billingEntries: 1, organizations: 1, services: 1, subscriptions: 1, lines: 1 },
      totals: [{ currency: 'SEK', cost: '1.10', sales, margin: '' }],
    },
    entries: [
      {
        billingDate: '2026-10-07T00:00:00',
        billingContentStartDate: '',
        billingContentEndDate: '',
        organizations: [
          {
            name: 'O',
            customerNumber: 'C',
            orgId: 'o',
            organizationGroups: ['Team A'],
            services: [
              {
                serviceName: 'S',
                serviceId: 's',
                totalResellerPrice: '1.10',
                totalCustomerPrice: sales,
                currencyCode: 'SEK',
                customerCurrencyCode: 'SEK',
                items: [
                  {
                    itemName: 'I',
                    subscriptionId: 'i',
                    poNumber: '',
                    quantity: 1,
                    totalResellerPrice: '1.10',
                    totalCustomerPrice: sales,
                    resellerPricePerUnit: '1.10',
                    customerPricePerUnit: sales,
                    products: [
                      {
                        productName: 'P',
                        productId: 'p',
                        itemCode: 'c',
                        quantity: 1,
                        resellerPricePerUnit: '1.10',
                        customerPricePerUnit: sales,
                        totalResellerPrice: '1.10',
                        totalCustomerPrice: sales,
                        itemDetails: '',
                      },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      },
    ],
  };
}

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';
const C = '33333333-3333-4333-8333-333333333333';
const D = '44444444-4444-4444-8444-444444444444';

async function legacyFolder() {
  const dir = await temporaryDir();
  cleanups.push(() => dir.remove());
  const reports = join(dir.path, 'reports');
  await mkdir(reports);
  const save = async (saved: SavedReportFile) => {
    await writeFile(join(reports, `${saved.meta.id}.report.json`), JSON.stringify(saved));
    await writeFile(join(reports, `${saved.meta.id}.meta.json`), JSON.stringify(saved.meta));
  };
  return { dir: dir.path, reports, save };
}

describe('moving reports saved before the ledger into it', () => {
  it('moves every readable report with its id, name and exact totals, keeps the files in reports/migrated, and lists damaged ones', async () => {
    const { dir, reports, save } = await legacyFolder();
    await save(report(A, 'Billing 2026-10 (renamed)', '2.20'));
    await save(report(B, 'Billing 2026-09', '3.30'));
    await writeFile(join(reports, `${C}.report.json`), '{"meta":'); // no summary: it was never saved completely
    await save(report(D, 'Broken', '1.00'));
    await writeFile(join(reports, `${D}.report.json`), '{"meta": {}, "entries": [{"organizations": [{"services": [{"totalResellerPrice": "x"}]}]}]}');
    const ledger = await Ledger.open(dir, silentLogger);
    cleanups.push(() => ledger.close());
    const progress: number[] = [];
    const outcome = await migrateLegacyReports(dir, ledger, silentLogger, (done) => progress.push(done));
    expect(outcome.migrated).toBe(2);
    expect(outcome.damaged.map((listing) => (listing.state === 'damaged' ? listing.id : '')).sort()).toEqual([C, D]);
    expect(progress).toEqual([1, 2, 3]);
    const listed = await new ReportLibrary(async () => ledger).list();
    expect(listed.map((meta) => [meta.id, meta.name, meta.totals[0]?.sales])).toEqual([
      [B, 'Billing 2026-09', '3.300000'],
      [A, 'Billing 2026-10 (renamed)', '2.200000'],
    ]);
    await access(join(reports, 'migrated', `${A}.report.json`));
    await access(join(reports, `${D}.report.json`)); // damaged ones stay where they were
  });

  it('carries on after an interrupted run without adding a report twice', async () => {
    const { dir, save } = await legacyFolder();
    await save(report(A, 'A', '2.20'));
    await save(report(B, 'B', '3.30'));
    const ledger = await Ledger.open(dir, silentLogger);
    cleanups.push(() => ledger.close());
    await migrateLegacyReports(dir, ledger, silentLogger);
    // As if the first run had stopped after A went into the ledger but before its files moved:
    await save(report(A, 'A', '2.20'));
    const again = await migrateLegacyReports(dir, ledger, silentLogger);
    expect(again).toMatchObject({ migrated: 1, damaged: [] });
    expect((await ledger.all('SELECT count(*) AS n FROM reports'))[0]?.n).toBe('2');
  });
});
