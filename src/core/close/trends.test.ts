import { describe, expect, it } from 'vitest';
import type { Ledger } from '../ledger/ledger';
import { ingestReport } from '../reports/report-ingest';
import { type ServedEntries, testIdentity, useLedger } from '@testing/ledger-month';
import { type TopMover, topMovers, trendScopes, trendsOf, type TrendSeries } from './trends';

type WireBillingEntry = ServedEntries[number];
type WireOrganization = WireBillingEntry['organizations'][number];
type WireService = WireOrganization['services'][number];

/**
 * Small hand-made months, so every expected figure is known exactly: Alpha (Nordics) bills in SEK, Beta (DACH) in
 * EUR, Gamma buys in USD and sells in SEK, and joins Nordics in October.
 */

interface Line {
  cost: string;
  sales: string;
}

function service(name: string, serviceId: string, cost: string, sales: string, lines: Line[]): WireService {
  return {
    serviceName: name,
    serviceId,
    currencyCode: cost,
    customerCurrencyCode: sales,
    totalResellerPrice: '0',
    totalCustomerPrice: '0',
    items: [
      {
        itemName: `${name} plan`,
        subscriptionId: `${serviceId}-sub`,
        poNumber: '',
        quantity: lines.length,
        totalResellerPrice: '0',
        totalCustomerPrice: '0',
        resellerPricePerUnit: '0',
        customerPricePerUnit: '0',
        products: lines.map((line, index) => ({
          productName: `Product ${index}`,
          productId: `${serviceId}-p${index}`,
          itemCode: `I${index}`,
          quantity: 1,
          resellerPricePerUnit: line.cost,
          customerPricePerUnit: line.sales,
          totalResellerPrice: line.cost,
          totalCustomerPrice: line.sales,
          itemDetails: '',
        })),
      },
    ],
  };
}

function organization(name: string, orgId: string, groups: string[], services: WireService[]): WireOrganization {
  return { name, customerNumber: `C-${orgId}`, orgId, organizationGroups: groups, services };
}

const alpha = (sales: string, cost = '10', name = 'Alpha AB') =>
  organization(name, 'alpha', ['Nordics'], [service('Microsoft 365', 'm365', 'SEK', 'SEK', [{ cost, sales }])]);
const beta = (sales: string, cost = '5') => organization('Beta GmbH', 'beta', ['DACH'], [service('Azure', 'azure', 'EUR', 'EUR', [{ cost, sales }])]);
const gamma = (sales: string, groups: string[] = []) =>
  organization('Gamma Oy', 'gamma', groups, [service('Microsoft 365', 'm365', 'USD', 'SEK', [{ cost: '1', sales }])]);

const ids = {
  august: '22222222-2222-4222-8222-000000000008',
  september: '22222222-2222-4222-8222-000000000009',
  septemberRefetch: '22222222-2222-4222-8222-000000000019',
  october: '22222222-2222-4222-8222-000000000010',
  otherReseller: '22222222-2222-4222-8222-000000000099',
};

async function save(ledger: Ledger, reportId: string, month: string, fetchedAt: string, organizations: WireOrganization[], resellerId = 'r') {
  const [year, mm] = month.split('-').map(Number) as [number, number];
  const endDate = new Date(Date.UTC(year, mm, 0)).toISOString().slice(0, 10);
  const entries: WireBillingEntry[] = [{ billingDate: `${month}-07`, billingContentStartDate: `${month}-01`, billingContentEndDate: endDate, organizations }];
  async function* body() {
    yield JSON.stringify({ status: 5, data: entries });
  }
  await ingestReport(
    ledger,
    testIdentity(reportId, { name: `Billing ${month}`, resellerId, period: { startDate: `${month}-01`, endDate }, fetchedAt }),
    body(),
  );
}

const ledger = useLedger(async (opened) => {
  await save(opened, ids.august, '2026-08', '2026-09-05T08:00:00.000Z', [alpha('100.10'), beta('50.5'), gamma('30')]);
  await save(opened, ids.september, '2026-09', '2026-10-05T08:00:00.000Z', [alpha('999'), beta('60'), gamma('31')]);
  // September fetched again later: the service restated Alpha. Only this fetch counts.
  await save(opened, ids.septemberRefetch, '2026-09', '2026-10-20T08:00:00.000Z', [alpha('120.20'), beta('60'), gamma('31')]);
  await save(opened, ids.october, '2026-10', '2026-11-05T08:00:00.000Z', [
    alpha('0.1', '0.05', 'Alpha Group AB'),
    beta('40.25'),
    gamma('45', ['Nordics']),
    organization('Delta AS', 'delta', [], [service('Azure', 'azure', 'EUR', 'EUR', [{ cost: '1', sales: '7' }])]),
    organization('Epsilon Oy', 'epsilon', [], [service('Azure', 'azure', 'EUR', 'EUR', [{ cost: '1', sales: '3' }])]),
  ]);
  // Another reseller at the same service: never part of these trends.
  await save(opened, ids.otherReseller, '2026-10', '2026-11-05T08:00:00.000Z', [alpha('5000')], 'someone-else');
});

const salesOf = (series: TrendSeries[] | undefined, currencyKey: string) =>
  series?.find((entry) => entry.currencyKey === currencyKey)?.points.map((point) => point.sales);

describe('trends over the months of a reseller', () => {
  it('gives one series per currency pair over every month, the newest fetch of a refetched month counting once', async () => {
    const trends = await trendsOf(ledger(), ids.october, { kind: 'all' });
    expect(trends.months.map((month) => month.reportId)).toEqual([ids.august, ids.septemberRefetch, ids.october]);
    expect(trends.currentIndex).toBe(2);
    expect(trends.series.map((entry) => entry.currencyKey)).toEqual(['EUR', 'SEK', 'USD→SEK']);
    expect(trends.series.find((entry) => entry.currencyKey === 'SEK')?.points).toEqual([
      { lines: 1, cost: '10', sales: '100.1', margin: '90.1', marginPercent: '90.01' },
      { lines: 1, cost: '10', sales: '120.2', margin: '110.2', marginPercent: '91.68' },
      { lines: 1, cost: '0.05', sales: '0.1', margin: '0.05', marginPercent: '50.00' },
    ]);
    expect(salesOf(trends.series, 'EUR')).toEqual(['50.5', '60', '50.25']);
    // Cost in USD and sales in SEK: summed apart, and no margin.
    expect(trends.series.find((entry) => entry.currencyKey === 'USD→SEK')?.points).toEqual([
      { lines: 1, cost: '1', sales: '30', margin: null, marginPercent: null },
      { lines: 1, cost: '1', sales: '31', margin: null, marginPercent: null },
      { lines: 1, cost: '1', sales: '45', margin: null, marginPercent: null },
    ]);
  });

  it('keeps a customer, a service and an organization group apart, with zero where the scope billed nothing', async () => {
    const customer = await trendsOf(ledger(), ids.october, { kind: 'organization', key: 'delta' });
    expect(customer.series.map((entry) => [entry.currencyKey, entry.points.map((point) => `${point.lines}:${point.sales}`)])).toEqual([
      ['EUR', ['0:0', '0:0', '1:7']],
    ]);

    const m365 = await trendsOf(ledger(), ids.october, { kind: 'service', key: 'im365' });
    expect(m365.series.map((entry) => entry.currencyKey)).toEqual(['SEK', 'USD→SEK']);
    expect(salesOf(m365.series, 'SEK')).toEqual(['100.1', '120.2', '0.1']);

    // Membership as each month recorded it: Gamma is in Nordics in October only.
    const nordics = await trendsOf(ledger(), ids.october, { kind: 'group', key: 'Nordics' });
    expect(nordics.series.map((entry) => entry.currencyKey)).toEqual(['SEK', 'USD→SEK']);
    expect(salesOf(nordics.series, 'SEK')).toEqual(['100.1', '120.2', '0.1']);
    expect(salesOf(nordics.series, 'USD→SEK')).toEqual(['0', '0', '45']);
  });

  it('sums exactly, to the last decimal a double would lose', async () => {
    const exact = '22222222-2222-4222-8222-000000000077';
    const azure = service('Azure', 'azure', 'EUR', 'EUR', [
      { cost: '0.1', sales: '1234567890.123456' },
      { cost: '0.2', sales: '0.000003' },
    ]);
    await save(
      ledger(),
      exact,
      '2026-10',
      '2026-11-06T08:00:00.000Z',
      [organization('Big AB', 'big', [], [azure, service('Backup', 'backup', 'EUR', 'EUR', [{ cost: '0.6', sales: '1' }])])],
      'exact',
    );
    // Summed per service first, then over the scope: both sums must be exact (0.1 + 0.2 and 0.3 + 0.6 are not, as doubles).
    const cases = [
      [{ kind: 'all' }, { lines: 3, cost: '0.9', sales: '1234567891.123459', margin: '1234567890.223459' }],
      [
        { kind: 'organization', key: 'big' },
        { lines: 3, cost: '0.9', sales: '1234567891.123459' },
      ],
      [
        { kind: 'service', key: 'iazure' },
        { lines: 2, cost: '0.3', sales: '1234567890.123459' },
      ],
    ] as const;
    for (const [scope, expected] of cases) {
      expect((await trendsOf(ledger(), exact, scope)).series[0]?.points[0], scope.kind).toMatchObject(expected);
    }
  });

  it('opened from an older month, still shows every month and marks that one', async () => {
    const trends = await trendsOf(ledger(), ids.september, { kind: 'all' });
    expect(trends.months).toHaveLength(3);
    expect(trends.currentIndex).toBe(1);
    expect(trends.movers?.before.reportId).toBe(ids.august);
    expect(trends.movers?.after.reportId).toBe(ids.septemberRefetch);
  });

  it('has no movers for the first month', async () => {
    expect((await trendsOf(ledger(), ids.august, { kind: 'all' })).movers).toBeNull();
  });
});

describe('top movers', () => {
  const brief = (movers: TopMover[] | undefined) =>
    (movers ?? []).map((mover) => `${mover.level} ${mover.name} ${mover.currencyKey} ${mover.salesBefore}→${mover.salesAfter} ${mover.change} ${mover.status}`);

  it('ranks organizations and services by their change in sales per currency pair, new ones included', async () => {
    const { movers } = await trendsOf(ledger(), ids.october, { kind: 'all' });
    expect(brief(movers?.rows)).toEqual([
      'organization Delta AS EUR 0→7 7 new',
      'organization Epsilon Oy EUR 0→3 3 new',
      'organization Beta GmbH EUR 60→40.25 -19.75 changed',
      'organization Alpha Group AB SEK 120.2→0.1 -120.1 changed',
      'organization Gamma Oy USD→SEK 31→45 14 changed',
      'service Azure EUR 60→50.25 -9.75 changed',
      'service Microsoft 365 SEK 120.2→0.1 -120.1 changed',
      'service Microsoft 365 USD→SEK 31→45 14 changed',
    ]);
  });

  it('keeps the largest rises and falls of each currency pair, within the scope', async () => {
    const scoped = await topMovers(ledger(), ids.septemberRefetch, ids.october, { kind: 'group', key: 'Nordics' });
    // Gamma was not in Nordics in September: within the group it is new in October.
    expect(brief(scoped.filter((mover) => mover.level === 'organization'))).toEqual([
      'organization Alpha Group AB SEK 120.2→0.1 -120.1 changed',
      'organization Gamma Oy USD→SEK 0→45 45 new',
    ]);
    const one = await topMovers(ledger(), ids.septemberRefetch, ids.october, { kind: 'all' }, 1);
    expect(brief(one.filter((mover) => mover.level === 'organization' && mover.currencyKey === 'EUR'))).toEqual([
      'organization Delta AS EUR 0→7 7 new',
      'organization Beta GmbH EUR 60→40.25 -19.75 changed',
    ]);
  });

  it('says lost when an organization billed nothing this month', async () => {
    const movers = await topMovers(ledger(), ids.october, ids.septemberRefetch, { kind: 'organization', key: 'delta' });
    expect(brief(movers)).toEqual(['organization Delta AS EUR 7→0 -7 lost', 'service Azure EUR 7→0 -7 lost']);
  });
});

describe('trend scopes', () => {
  it('offers every organization, service and group of the reseller, named as the newest month names them', async () => {
    const scopes = await trendScopes(ledger(), ids.august);
    expect(scopes.organizations.map((choice) => `${choice.key} ${choice.label} ${choice.detail}`)).toEqual([
      'alpha Alpha Group AB C-alpha',
      'beta Beta GmbH C-beta',
      'delta Delta AS C-delta',
      'epsilon Epsilon Oy C-epsilon',
      'gamma Gamma Oy C-gamma',
    ]);
    expect(scopes.services.map((choice) => `${choice.key} ${choice.label}`)).toEqual(['iazure Azure', 'im365 Microsoft 365']);
    expect(scopes.groups.map((choice) => choice.key)).toEqual(['DACH', 'Nordics']);
  });
});
