import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { channels } from '@shared/contract';
import { Money } from '@shared/money';
import type { ReportFilter } from '@shared/report-filter';
import { ledgerWithMonth, type ServedEntries } from '@testing/ledger-month';
import { invoicing } from './report-invoicing';
import { byNames } from '@testing/name-order';

const REPORT = '00000000-0000-4000-8000-000000000009';
const cleanups = cleanupsAfterEach();

async function month(change?: (entries: ServedEntries) => void) {
  const made = await ledgerWithMonth({ reportId: REPORT, seed: 9, organizations: 24, linesPerOrganization: 8, ...(change ? { change } : {}) });
  cleanups.push(made.close);
  return made;
}
type Served = Awaited<ReturnType<typeof month>>['lines'][number];

const orgKey = (organization: Served['organization']) => (organization.orgId ? organization.orgId : `${organization.name}|${organization.customerNumber}`);
const customerCurrency = (service: Served['service']) => service.customerCurrencyCode ?? service.currencyCode;

/** What to invoice, worked out here from the served report with decimal arithmetic (not from the ledger). */
function expectedInvoices(lines: Served[], keep: (line: Served) => boolean = () => true) {
  const byKey = new Map<string, { name: string; lines: number; sales: Money; sameCurrencySales: Money; costs: Map<string, Money>; groups: Set<string> }>();
  for (const served of lines.filter(keep)) {
    const key = `${orgKey(served.organization)}|${customerCurrency(served.service)}`;
    const row = byKey.get(key) ?? {
      name: served.organization.name,
      lines: 0,
      sales: new Money(0),
      sameCurrencySales: new Money(0),
      costs: new Map(),
      groups: new Set(),
    };
    row.lines++;
    row.sales = row.sales.plus(String(served.line.totalCustomerPrice));
    if (served.service.currencyCode === customerCurrency(served.service))
      row.sameCurrencySales = row.sameCurrencySales.plus(String(served.line.totalCustomerPrice));
    row.costs.set(served.service.currencyCode, (row.costs.get(served.service.currencyCode) ?? new Money(0)).plus(String(served.line.totalResellerPrice)));
    for (const group of served.organization.organizationGroups) row.groups.add(group);
    byKey.set(key, row);
  }
  return byKey;
}

/** Half away from zero to two places (every currency of the twin has a minor unit of 2). */
const cents = (amount: Money) => amount.toDecimalPlaces(2, Money.ROUND_HALF_UP).toFixed(2);

describe('the invoicing query', () => {
  it('gives one row per organization and customer currency: the exact sum of its sales over every service, rounded once', async () => {
    const { ledger, lines } = await month((entries) => {
      // One organization also buys a service sold in another currency: a second invoice, never added to the first.
      const organization = entries[0]!.organizations[1]!;
      const service = organization.services[0]!;
      service.customerCurrencyCode = service.customerCurrencyCode === 'NOK' ? 'DKK' : 'NOK';
    });
    const answer = await invoicing(ledger, REPORT);
    expect(channels['reports:invoicing'].output.parse(answer)).toEqual(answer); // what the handler answers is the contract's shape
    const { rows, totals } = answer;
    const expected = expectedInvoices(lines);
    expect(rows.map((row) => row.key).sort()).toEqual([...expected.keys()].sort());
    // Custom services bought in USD and sold in the customer's currency are in the same invoice.
    expect(rows.some((row) => row.costs.length > 1)).toBe(true);
    expect(rows.some((row) => row.currency !== 'USD' && row.costs.some((cost) => cost.currency === 'USD'))).toBe(true);
    expect(rows.some((row) => row.marginPartial && row.margin !== null)).toBe(true);
    for (const row of rows) {
      const want = expected.get(row.key)!;
      expect(new Money(row.exactAmount).eq(want.sales)).toBe(true);
      expect(row.amountToInvoice).toBe(cents(want.sales));
      expect(row.lines).toBe(want.lines);
      expect(row.organization).toBe(want.name);
      expect(row.groups).toEqual([...want.groups].sort());
      expect(row.costs.map((cost) => cost.currency)).toEqual([...want.costs.keys()].sort());
      for (const cost of row.costs) expect(new Money(cost.amount).eq(want.costs.get(cost.currency)!)).toBe(true);
      // The margin of the part bought in the invoice currency (never across currencies); partial when more was bought in another.
      const sameCurrencyCost = want.costs.get(row.currency);
      if (sameCurrencyCost) expect(new Money(row.margin!).eq(want.sameCurrencySales.minus(sameCurrencyCost))).toBe(true);
      else expect(row.margin).toBeNull();
      expect(row.marginPartial).toBe(Boolean(sameCurrencyCost) && row.costs.length > 1);
      expect(row.flags).toEqual([]);
    }
    // Metered lines carry four decimals: rounding each line instead of the sum would differ somewhere.
    expect(rows.some((row) => !new Money(row.exactAmount).eq(row.amountToInvoice))).toBe(true);
    const order = rows.map((row) => [row.organization, row.key]);
    expect(order).toEqual([...order].sort(byNames()));

    expect(totals.map((total) => total.currency)).toEqual([...new Set(rows.map((row) => row.currency))].sort());
    for (const total of totals) {
      const mine = rows.filter((row) => row.currency === total.currency);
      expect(total.customers).toBe(mine.length);
      expect(total.lines).toBe(mine.reduce((sum, row) => sum + row.lines, 0));
      // The invoices add up to the sum of the rounded amounts (not the rounded sum of the exact ones).
      expect(total.amountToInvoice).toBe(mine.reduce((sum, row) => sum.plus(row.amountToInvoice), new Money(0)).toFixed(2));
    }
  });

  it('is one organization across billing entries, and rounds the sum, not each line', async () => {
    const { ledger, entries } = await month((served) => {
      const [first, second] = served;
      const organization = first!.organizations[0]!;
      // The same organization in the second billing entry (same id): one invoice.
      second!.organizations.push({ ...organization, services: [structuredClone(organization.services[0]!)] });
      for (const entry of [first!, second!]) {
        const service = entry.organizations.find((candidate) => candidate.orgId === organization.orgId)!.services[0]!;
        for (const item of service.items) for (const line of item.products) line.totalCustomerPrice = '1.004';
      }
    });
    const organization = entries[0]!.organizations[0]!;
    const { rows } = await invoicing(ledger, REPORT);
    const mine = rows.filter((row) => row.key.startsWith(`${organization.orgId}|`));
    expect(mine).toHaveLength(1);
    const expected = expectedInvoices(
      entries.flatMap((entry) =>
        entry.organizations.flatMap((o) =>
          o.services.flatMap((service) => service.items.flatMap((item) => item.products.map((line) => ({ organization: o, service, item, line })))),
        ),
      ),
    ).get(mine[0]!.key)!;
    expect(mine[0]!.lines).toBe(expected.lines);
    expect(mine[0]!.amountToInvoice).toBe(cents(expected.sales));
  });

  it('flags a credit note, a stated total that differs from its lines, and a missing customer number', async () => {
    const { ledger, entries } = await month((served) => {
      const [credit, noNumber, differs] = served[0]!.organizations;
      for (const entry of served) {
        for (const organization of entry.organizations.filter((candidate) => candidate.orgId === credit!.orgId)) {
          for (const service of organization.services) {
            for (const item of service.items)
              for (const line of item.products) line.totalCustomerPrice = new Money(line.totalCustomerPrice).negated().toFixed();
            for (const item of service.items) item.totalCustomerPrice = new Money(item.totalCustomerPrice).negated().toFixed();
            service.totalCustomerPrice = new Money(service.totalCustomerPrice).negated().toFixed();
          }
        }
      }
      // (In every billing entry: a number given in any of them is the organization's number.)
      for (const entry of served) for (const organization of entry.organizations) if (organization.orgId === noNumber!.orgId) organization.customerNumber = '';
      differs!.services[0]!.items[0]!.totalCustomerPrice = new Money(differs!.services[0]!.items[0]!.totalCustomerPrice).plus('0.01').toFixed();
    });
    const [credit, noNumber, differs] = entries[0]!.organizations;
    const { rows } = await invoicing(ledger, REPORT);
    const flagsOf = (orgId: string) => rows.filter((row) => row.orgId === orgId).flatMap((row) => row.flags);
    expect(flagsOf(credit!.orgId)).toEqual(['credit']);
    expect(rows.find((row) => row.orgId === credit!.orgId)!.amountToInvoice).toMatch(/^-\d+\.\d{2}$/);
    expect(flagsOf(noNumber!.orgId)).toEqual(['missing-customer-number']);
    // The subscription's stated total no longer matches its lines, and the service's no longer matches its subscriptions.
    expect(flagsOf(differs!.orgId)).toEqual(['stated-total-differs']);
    expect(rows.filter((row) => row.flags.length > 0)).toHaveLength(3);
  });

  it('honours the filter, and checks stated totals against whole subscriptions even when the filter keeps part of one', async () => {
    const { ledger, lines } = await month((entries) => {
      entries[0]!.organizations[0]!.organizationGroups = [];
      entries[0]!.organizations[2]!.organizationGroups = [];
    });
    const product = lines.find((served) => served.item.products.length > 1)!.line.productName.toLowerCase();
    const haystack = (l: Served) =>
      [
        l.organization.name,
        l.organization.customerNumber,
        l.organization.orgId,
        l.service.serviceName,
        l.service.serviceId,
        l.item.itemName,
        l.item.subscriptionId,
        l.item.poNumber,
        l.line.productName,
        l.line.productId,
        l.line.itemCode,
        l.line.itemDetails,
      ]
        .join(' ')
        .toLowerCase();
    const matchesText = (l: Served) => product.split(/\s+/).every((word) => haystack(l).includes(word));
    const cases: [ReportFilter, (line: Served) => boolean][] = [
      [{ currency: 'USD→SEK' }, (l) => l.service.currencyCode === 'USD' && customerCurrency(l.service) === 'SEK'],
      [{ ungrouped: true }, (l) => l.organization.organizationGroups.length === 0],
      [
        { group: lines[5]!.organization.organizationGroups[0]! },
        (l) => l.organization.organizationGroups.includes(lines[5]!.organization.organizationGroups[0]!),
      ],
      [{ text: product }, matchesText],
    ];
    // The text keeps some lines of a subscription and not others.
    expect(lines.some((served) => matchesText(served) && served.item.products.some((line) => !matchesText({ ...served, line })))).toBe(true);
    for (const [filter, keep] of cases) {
      const { rows } = await invoicing(ledger, REPORT, filter);
      const expected = expectedInvoices(lines, keep);
      expect(expected.size).toBeGreaterThan(0);
      expect(rows.map((row) => row.key).sort()).toEqual([...expected.keys()].sort());
      for (const row of rows) {
        expect(new Money(row.exactAmount).eq(expected.get(row.key)!.sales)).toBe(true);
        expect(row.flags).toEqual([]); // a part of a subscription is not a stated total that differs
      }
    }
    expect(new Set((await invoicing(ledger, REPORT, { ungrouped: true })).rows.map((row) => row.orgId)).size).toBe(2);
  });
});
