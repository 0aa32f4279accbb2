import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { Money } from '@shared/money';
import type { ReportFilter } from '@shared/report-filter';
import { Ledger } from '@core/ledger/ledger';
import { silentLogger } from '@core/ports/ports';
import { buildBillingReport, generateOrganizations, temporaryDir } from '@testing/test-support';
import { LINE_FIELDS } from '../billing-line-columns';
import { type ExportLine, exportLines } from './export-lines';
import { ingestReport } from '../report-ingest';
import { byName } from '@testing/name-order';

const REPORT = '00000000-0000-4000-8000-000000000005';
const cleanups = cleanupsAfterEach();

async function setup() {
  const dir = await temporaryDir();
  cleanups.push(() => dir.remove());
  const ledger = await Ledger.open(dir.path, silentLogger);
  cleanups.push(() => ledger.close());
  const entries = buildBillingReport(generateOrganizations({ seed: 11, organizations: 25, linesPerOrganization: 7 }), '2026-10-01', '2026-10-31', { seed: 11 });
  entries[0]!.organizations[2]!.organizationGroups = ['Zeta', 'Alpha', 'Zeta'];
  // Order by name in any case ("aardvark" before "Baltic"), and two organizations of one name kept apart by key.
  entries[0]!.organizations[6]!.name = 'aardvark lower case';
  entries[0]!.organizations[4]!.name = entries[0]!.organizations[5]!.name;
  async function* body() {
    yield JSON.stringify({ status: 5, data: entries });
  }
  const identity = {
    reportId: REPORT,
    jobId: null,
    name: 'Billing 2026-10',
    profileId: 'p',
    profileName: 'P',
    host: 'h',
    resellerId: 'r',
    period: { startDate: '2026-10-01', endDate: '2026-10-31' },
    fetchedAt: '2026-11-07T00:00:00Z',
    source: 'service' as const,
    sourceFile: null,
  };
  await ingestReport(ledger, identity, body());
  return { ledger, entries };
}

async function collect(lines: AsyncIterable<ExportLine[]>): Promise<ExportLine[]> {
  const all: ExportLine[] = [];
  for await (const batch of lines) all.push(...batch);
  return all;
}

const at = (line: ExportLine, field: (typeof LINE_FIELDS)[number]) => line[LINE_FIELDS.indexOf(field)] ?? null;

/**
 * The served lines in the order the exports promise, worked out here: organizations by name in any case (the
 * name of their first appearance), then key; services by name, then id; subscriptions by name, then id; then as served.
 */
function linesInExportOrder(entries: Awaited<ReturnType<typeof setup>>['entries']) {
  const served = entries.flatMap((entry) =>
    entry.organizations.flatMap((organization) =>
      organization.services.flatMap((service) =>
        service.items.flatMap((item) => item.products.map((product) => ({ entry, organization, service, item, product }))),
      ),
    ),
  );
  const keyOf = (organization: (typeof served)[number]['organization']) => organization.orgId || `${organization.name}|${organization.customerNumber}`;
  const firstName = new Map<string, string>();
  for (const { organization } of served) if (!firstName.has(keyOf(organization))) firstName.set(keyOf(organization), organization.name);
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const names = byName();
  return served
    .map((line, index) => ({ line, index }))
    .sort(
      ({ line: a, index: i }, { line: b, index: j }) =>
        names(firstName.get(keyOf(a.organization))!, firstName.get(keyOf(b.organization))!) ||
        compare(keyOf(a.organization), keyOf(b.organization)) ||
        names(a.service.serviceName, b.service.serviceName) ||
        compare(a.service.serviceId, b.service.serviceId) ||
        names(a.item.itemName, b.item.itemName) ||
        compare(a.item.subscriptionId, b.item.subscriptionId) ||
        i - j,
    )
    .map(({ line }) => line);
}

describe('the exported billing lines', () => {
  it('are every served line by organization, service and subscription (then report order), with its organization, groups, service, subscription and billing date beside it', async () => {
    const { ledger, entries } = await setup();
    const served = linesInExportOrder(entries);
    const lines = await collect(exportLines(ledger, REPORT));
    expect(lines).toHaveLength(served.length);
    lines.forEach((line, index) => {
      const { entry, organization, service, item, product } = served[index]!;
      const customerCurrency = service.customerCurrencyCode ?? service.currencyCode;
      expect(line).toHaveLength(LINE_FIELDS.length);
      expect([at(line, 'org_name'), at(line, 'customer_number'), at(line, 'org_id'), at(line, 'service_name'), at(line, 'service_id')]).toEqual([
        organization.name,
        organization.customerNumber,
        organization.orgId,
        service.serviceName,
        service.serviceId,
      ]);
      expect([
        at(line, 'item_name'),
        at(line, 'subscription_id'),
        at(line, 'po_number'),
        at(line, 'product_name'),
        at(line, 'product_id'),
        at(line, 'item_code'),
        at(line, 'item_details'),
      ]).toEqual([item.itemName, item.subscriptionId, item.poNumber, product.productName, product.productId, product.itemCode, product.itemDetails]);
      expect(at(line, 'organization_groups')).toBe([...new Set(organization.organizationGroups)].sort().join(', '));
      expect([at(line, 'currency'), at(line, 'customer_currency'), at(line, 'billing_date')]).toEqual([
        service.currencyCode,
        customerCurrency,
        entry.billingDate,
      ]);
      expect(new Money(at(line, 'cost') as string).eq(String(product.totalResellerPrice))).toBe(true);
      expect(new Money(at(line, 'sales') as string).eq(String(product.totalCustomerPrice))).toBe(true);
      expect(new Money(at(line, 'quantity') as string).eq(String(product.quantity))).toBe(true);
      expect(new Money(at(line, 'cost_per_unit') as string).eq(String(product.resellerPricePerUnit))).toBe(true);
      const margin = at(line, 'margin');
      if (service.currencyCode === customerCurrency)
        expect(new Money(margin as string).eq(new Money(String(product.totalCustomerPrice)).minus(String(product.totalResellerPrice)))).toBe(true);
      else expect(margin).toBeNull(); // never a margin across two currencies
    });
  });

  it("starts a batch's query while the batch before is read, and lets every query go when the reader stops early", async () => {
    const { ledger } = await setup();
    // Every stream the export opens, and which of them are still open (a stream's connection closes in its finally).
    let started = 0;
    const open = new Set<number>();
    const stream = ledger.stream.bind(ledger);
    ledger.stream = async function* (sql, params) {
      const id = started++;
      open.add(id);
      try {
        yield* stream(sql, params);
      } finally {
        open.delete(id);
      }
    };
    for await (const batch of exportLines(ledger, REPORT, {}, 1)) {
      expect(batch.length).toBeGreaterThan(0);
      // One organization a batch: as the first batch's lines are handed out, the second batch's query has begun
      // (asked for only one chunk ahead, it began when the first batch was read to its end).
      expect(started).toBe(2);
      break;
    }
    expect(open.size).toBe(0);
    expect(await collect(exportLines(ledger, REPORT, {}, 1))).toEqual(await collect(exportLines(ledger, REPORT, {}, 1_000_000)));
    expect(started).toBeGreaterThan(25); // one query an organization
    expect(open.size).toBe(0);
  });

  it('gives the same lines, in the same order, whatever the window size and filter', async () => {
    const { ledger } = await setup();
    for (const filter of [{}, { currency: 'SEK' }, { text: 'micro' }, { group: 'Alpha' }] satisfies ReportFilter[]) {
      const whole = await collect(exportLines(ledger, REPORT, filter, 1_000_000));
      expect(whole.length).toBeGreaterThan(0);
      expect(await collect(exportLines(ledger, REPORT, filter, 7))).toEqual(whole);
      if (Object.keys(filter).length === 0) expect(await collect(exportLines(ledger, REPORT, filter, 1))).toEqual(whole); // one line a window
    }
  });
});
