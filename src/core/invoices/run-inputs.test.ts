import { describe, expect, it } from 'vitest';
import { CustomerMapping, InvoiceSettings, ItemMapping } from '@shared/schemas/invoices';
import { type RunMadeFrom, runInputs } from './run-inputs';

const made: RunMadeFrom = {
  reportId: 'report-1',
  contentHash: 'a'.repeat(64),
  periodStart: '2026-10-01',
  mapping: {
    customers: [CustomerMapping.parse({ orgId: 'org-1', contactName: 'Acme AB', paymentTermsDays: 30, vatTreatment: 'domestic' })],
    items: [ItemMapping.parse({ match: 'service', id: 'svc-1', account: '3010', taxCode: 'MP1', vatCategory: 'S', vatRate: '25' })],
  },
  settings: InvoiceSettings.parse({ prefix: 'INV-', dateFormat: 'DD/MM/YYYY', linesPer: 'subscription', splitByPo: false }),
  logged: [],
};

describe("a run's inputs", () => {
  it('are the same for the same fetch, mapping, settings and adjustments, and differ when any of them does', () => {
    const key = runInputs(made);
    expect(runInputs(structuredClone(made))).toBe(key);
    const customer = made.mapping.customers[0]!;
    const item = made.mapping.items[0]!;
    const changed: RunMadeFrom[] = [
      // Another fetch of the month with the same amounts: its PO numbers or names may differ all the same.
      { ...made, reportId: 'report-2' },
      { ...made, contentHash: 'b'.repeat(64) },
      { ...made, periodStart: '2026-11-01' },
      { ...made, mapping: { ...made.mapping, customers: [{ ...customer, contactName: 'Acme Holding AB' }] } },
      { ...made, mapping: { ...made.mapping, customers: [{ ...customer, paymentTermsDays: 14 }] } },
      { ...made, mapping: { ...made.mapping, items: [{ ...item, account: '3011' }] } },
      { ...made, settings: { ...made.settings, linesPer: 'product' } },
      { ...made, settings: { ...made.settings, splitByPo: true } },
      {
        ...made,
        logged: [
          {
            adjustment: { kind: 'exclude', id: '00000000-0000-4000-8000-000000000001', orgId: 'org-1', currency: 'SEK', lineKey: 'subscription:s-1' },
            reason: 'Billed twice',
            by: 'anna',
            at: '2026-11-09T10:00:00.000Z',
            seq: 7,
          },
        ],
      },
    ];
    const keys = changed.map(runInputs);
    expect(new Set([key, ...keys]).size).toBe(changed.length + 1);
  });
});
