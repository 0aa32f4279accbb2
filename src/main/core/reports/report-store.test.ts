import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SavedReport } from '../../../shared/schemas/saved-report';
import { importReport } from './handlers';
import { temporaryDir } from '../../testing/test-support';
import { ReportStore } from './report-store';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function report(id: string, name: string): SavedReport {
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
      totals: [{ currency: 'SEK', cost: '999', sales: '999', margin: '0' }],
    },
    entries: [
      {
        billingDate: '2026-10-07T00:00:00',
        billingContentStartDate: '',
        billingContentEndDate: '',
        organizations: [{ name: 'O', customerNumber: 'C', orgId: 'o', organizationGroups: [], services: [{ serviceName: 'S', serviceId: 's', totalResellerPrice: '1.10', totalCustomerPrice: '2.20', currencyCode: 'SEK', customerCurrencyCode: 'SEK', items: [{ itemName: 'I', subscriptionId: 'i', poNumber: '', quantity: 1, totalResellerPrice: '1.10', totalCustomerPrice: '2.20', resellerPricePerUnit: '1.10', customerPricePerUnit: '2.20', products: [{ productName: 'P', productId: 'p', itemCode: 'c', quantity: 1, resellerPricePerUnit: '1.10', customerPricePerUnit: '2.20', totalResellerPrice: '1.10', totalCustomerPrice: '2.20', itemDetails: '' }] }] }] }],
      },
    ],
  };
}

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';

async function store() {
  const dir = await temporaryDir();
  cleanups.push(dir.remove);
  return { dir: dir.path, store: new ReportStore(dir.path) };
}

describe('saved reports', () => {
  it('saves, lists newest first, opens, renames and deletes', async () => {
    const { store: reports } = await store();
    await reports.save(report(A, 'October'));
    await reports.save(report(B, 'November'));
    expect((await reports.list()).map((listing) => (listing.state === 'ok' ? listing.meta.name : listing.state))).toEqual(['November', 'October']);
    await reports.rename(A, 'October final');
    expect((await reports.open(A)).meta.name).toBe('October final');
    await reports.delete(B);
    expect(await reports.list()).toHaveLength(1);
  });

  it('lists a damaged report as damaged with the reason, and leaves the others and the file untouched', async () => {
    const { dir, store: reports } = await store();
    await reports.save(report(A, 'Good'));
    await reports.save(report(B, 'Broken'));
    const brokenMeta = join(dir, 'reports', `${B}.meta.json`);
    await writeFile(brokenMeta, '{"id": "truncated');
    const listings = await reports.list();
    expect(listings).toEqual(
      expect.arrayContaining([
        { state: 'ok', meta: expect.objectContaining({ name: 'Good' }) },
        { state: 'damaged', id: B, file: brokenMeta, reason: expect.stringContaining('damaged') },
      ]),
    );
    expect(await readFile(brokenMeta, 'utf8')).toBe('{"id": "truncated');
    expect((await reports.open(A)).entries).toHaveLength(1);
  });

  it('refuses to open a report whose file was corrupted, naming the bad field', async () => {
    const { dir, store: reports } = await store();
    await reports.save(report(A, 'Good'));
    const path = join(dir, 'reports', `${A}.report.json`);
    await writeFile(path, (await readFile(path, 'utf8')).replace('"1.10"', '"one ten"'));
    await expect(reports.open(A)).rejects.toMatchObject({ code: 'storage', message: expect.stringContaining('totalResellerPrice') });
  });

  it('imports a shared report under a new id with totals recomputed from its lines', async () => {
    const { store: reports } = await store();
    const shared = report(A, 'From a colleague');
    const meta = await importReport(reports, 'shared.json', JSON.stringify(shared));
    expect(meta.id).not.toBe(A);
    expect(meta.totals).toEqual([{ currency: 'SEK', cost: '1.10', sales: '2.20', margin: '1.10' }]);
    expect(meta.counts).toEqual({ billingEntries: 1, organizations: 1, services: 1, subscriptions: 1, lines: 1 });
    await expect(importReport(reports, 'notes.txt', 'hello')).rejects.toMatchObject({ code: 'validation', message: expect.stringContaining('not JSON') });
    await expect(importReport(reports, 'x.json', JSON.stringify({ meta: shared.meta }))).rejects.toMatchObject({ code: 'validation', message: expect.stringContaining('entries') });
  });
});
