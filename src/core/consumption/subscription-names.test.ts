import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { ledgerWithMonth, type ServedEntries, testIdentity } from '@testing/ledger-month';
import type { Ledger } from '../ledger/ledger';
import { ingestReport } from '../reports/report-ingest';
import { subscriptionNames } from './subscription-names';

const OCTOBER = '11111111-1111-4111-8111-000000000010';
const NOVEMBER = '11111111-1111-4111-8111-000000000011';
const OTHER_RESELLER = '11111111-1111-4111-8111-000000000012';
const PROFILE = { host: 'billing.example.com', resellerId: 'r' };
const cleanups = cleanupsAfterEach();

async function save(ledger: Ledger, reportId: string, entries: ServedEntries, change: Parameters<typeof testIdentity>[1]) {
  async function* body() {
    yield JSON.stringify({ status: 5, data: entries });
  }
  await ingestReport(ledger, testIdentity(reportId, change), body());
}

function subscriptionsOf(entries: ServedEntries) {
  return entries.flatMap((entry) =>
    entry.organizations.flatMap((organization) => organization.services.flatMap((service) => service.items.map((item) => ({ organization, service, item })))),
  );
}

/** October, then November with one organization renamed; and the same November of another reseller, renamed otherwise. */
async function months(options: { organizations: number; linesPerOrganization: number }) {
  const october = await ledgerWithMonth({ reportId: OCTOBER, seed: 7, ...options });
  cleanups.push(october.close);
  const [first] = subscriptionsOf(october.entries);
  const renamed = (entries: ServedEntries, name: string) => {
    const copy = structuredClone(entries);
    for (const entry of copy) for (const organization of entry.organizations) if (organization.orgId === first!.organization.orgId) organization.name = name;
    return copy;
  };
  const november = { period: { startDate: '2026-11-01', endDate: '2026-11-30' }, fetchedAt: '2026-12-07T08:00:00.000Z' };
  await save(october.ledger, NOVEMBER, renamed(october.entries, 'Renamed in November AB'), november);
  await save(october.ledger, OTHER_RESELLER, renamed(october.entries, 'Another reseller’s customer'), {
    ...november,
    resellerId: 'another',
    fetchedAt: '2026-12-08T08:00:00.000Z',
  });
  return { ...october, first: first! };
}

describe('names beside consumption ids', () => {
  it('names each subscription from the newest saved month of the same service and reseller; an unknown id is left out', async () => {
    const { ledger, first, entries } = await months({ organizations: 4, linesPerOrganization: 3 });
    const unknown = randomUUID();
    const found = await subscriptionNames(ledger, PROFILE, [first.item.subscriptionId.toUpperCase(), ` ${first.item.subscriptionId} `, unknown]);
    expect(found.savedReports).toBe(2);
    expect(found.names).toEqual([
      {
        subscriptionId: first.item.subscriptionId,
        organization: 'Renamed in November AB',
        customerNumber: first.organization.customerNumber,
        subscription: first.item.itemName,
        service: first.service.serviceName,
        products: [...new Set(first.item.products.map((line) => line.productName))].sort().slice(0, 3),
        period: { startDate: '2026-11-01', endDate: '2026-11-30' },
        months: 2,
        metered: false, // the same quantities in October and November
      },
    ]);
    // Every subscription of the month is found, each once.
    const all = subscriptionsOf(entries).map(({ item }) => item.subscriptionId);
    expect((await subscriptionNames(ledger, PROFILE, all)).names.map((name) => name.subscriptionId).sort()).toEqual([...new Set(all)].sort());
  });

  it('says which subscriptions were billed as metered: a quantity that differs between months, not between two fetches of one', async () => {
    const { ledger, first, entries } = await months({ organizations: 3, linesPerOrganization: 3 });
    const [, second] = subscriptionsOf(entries);
    const metered = (changed: ServedEntries) => {
      for (const { item } of subscriptionsOf(changed).filter(({ item }) => item.subscriptionId === first.item.subscriptionId))
        for (const line of item.products) line.quantity += 1;
      return changed;
    };
    // December bills the first subscription for more. An earlier fetch of November billed the second one for more, but
    // the newest fetch of November (the one that counts) bills it as October and December do.
    await save(ledger, randomUUID(), metered(structuredClone(entries)), {
      period: { startDate: '2026-12-01', endDate: '2026-12-31' },
      fetchedAt: '2027-01-07T08:00:00.000Z',
    });
    const earlier = structuredClone(entries);
    for (const { item } of subscriptionsOf(earlier).filter(({ item }) => item.subscriptionId === second!.item.subscriptionId))
      for (const line of item.products) line.quantity += 1;
    await save(ledger, randomUUID(), earlier, { period: { startDate: '2026-11-01', endDate: '2026-11-30' }, fetchedAt: '2026-12-05T08:00:00.000Z' });
    const { names } = await subscriptionNames(ledger, PROFILE, [first.item.subscriptionId, second!.item.subscriptionId]);
    const of = (id: string) => names.find((name) => name.subscriptionId === id);
    expect(of(first.item.subscriptionId)).toMatchObject({ months: 3, metered: true });
    expect(of(second!.item.subscriptionId)).toMatchObject({ months: 3, metered: false });
  });

  it('finds nothing in the reports of another service or reseller, and says how many reports there are', async () => {
    const { ledger, first } = await months({ organizations: 2, linesPerOrganization: 2 });
    expect(await subscriptionNames(ledger, { host: 'other.example.com', resellerId: 'r' }, [first.item.subscriptionId])).toEqual({
      savedReports: 0,
      names: [],
    });
    const another = await subscriptionNames(ledger, { host: PROFILE.host, resellerId: 'another' }, [first.item.subscriptionId]);
    expect(another.savedReports).toBe(1);
    expect(another.names[0]?.organization).toBe('Another reseller’s customer');
  });

  it('answers 50,000 ids in one query, quickly', async () => {
    const { ledger, entries } = await months({ organizations: 400, linesPerOrganization: 25 });
    const known = [...new Set(subscriptionsOf(entries).map(({ item }) => item.subscriptionId))];
    const ids = [...known, ...Array.from({ length: 50_000 - known.length }, () => randomUUID())];
    const started = performance.now();
    const found = await subscriptionNames(ledger, PROFILE, ids);
    const took = performance.now() - started;
    expect(found.names).toHaveLength(known.length);
    // 0.5–2 s on a 2-core machine under heavy load (binding the ids as a list instead of one text added ~1 s).
    expect(took).toBeLessThan(5_000);
  });
});
