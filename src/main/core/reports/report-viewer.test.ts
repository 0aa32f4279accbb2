import { afterEach, describe, expect, it } from 'vitest';
import { Money } from '../../../shared/money';
import type { ReportFilter } from '../../../shared/report-filter';
import { ledgerWithMonth } from '../../testing/ledger-month';
import { ReportLibrary } from './report-library';
import { ReportViewerQueries, type WindowRequest } from './report-viewer';

const REPORT = '00000000-0000-4000-8000-000000000001';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function setup() {
  const month = await ledgerWithMonth({ reportId: REPORT, seed: 11, organizations: 30, linesPerOrganization: 6 });
  cleanups.push(month.close);
  const { ledger } = month;
  return { viewer: new ReportViewerQueries(async () => ledger, new ReportLibrary(async () => ledger)), entries: month.entries, lines: month.lines };
}

const request = (change: Partial<WindowRequest> = {}): WindowRequest => ({
  reportId: REPORT, filter: {}, sort: { key: 'label', direction: 'asc' }, expansion: { all: 'none', toggled: [] }, offset: 0, count: 500, ...change,
});

describe('viewer window queries', () => {
  it('answers one row per organization and currency, sorted by name, with exact sums that match the lines', async () => {
    const { viewer, lines } = await setup();
    const window = await viewer.window(request());
    expect(window.lineCount).toBe(lines.length);
    expect(window.totalLines).toBe(lines.length);
    expect(window.rows.every((row) => row.level === 'organization' && row.depth === 0)).toBe(true);
    const names = window.rows.map((row) => row.label.toLowerCase());
    expect(names).toEqual([...names].sort());
    const first = window.rows[0]!;
    const expected = lines.filter((l) => l.organization.name === first.label && first.currencyKey === (l.service.currencyCode === (l.service.customerCurrencyCode ?? l.service.currencyCode) ? l.service.currencyCode : `${l.service.currencyCode}→${l.service.customerCurrencyCode}`));
    expect(new Money(first.sales).equals(expected.reduce((sum, l) => sum.plus(String(l.line.totalCustomerPrice)), new Money(0)))).toBe(true);
    expect(first.lines).toBe(expected.length);
  });

  it('filters by group, text and currency with bound values (a quote in the text is just text)', async () => {
    const { viewer, lines } = await setup();
    const group = lines[0]!.organization.organizationGroups[0]!;
    const grouped = await viewer.window(request({ filter: { group } }));
    expect(grouped.lineCount).toBe(lines.filter((l) => l.organization.organizationGroups.includes(group)).length);
    // Every word must appear somewhere on the line's path: organization, service, subscription or the line itself.
    const words = [lines[3]!.line.productName.split(' ')[0]!.toLowerCase(), lines[3]!.organization.name.split(' ')[0]!.toLowerCase()];
    const haystack = (l: (typeof lines)[number]) =>
      [l.organization.name, l.organization.customerNumber, l.organization.orgId, l.service.serviceName, l.service.serviceId, l.item.itemName, l.item.subscriptionId, l.item.poNumber, l.line.productName, l.line.productId, l.line.itemCode, l.line.itemDetails].join(' ').toLowerCase();
    const texted = await viewer.window(request({ filter: { text: words.join(' ') } }));
    expect(texted.lineCount).toBe(lines.filter((l) => words.every((word) => haystack(l).includes(word))).length);
    expect(texted.lineCount).toBeGreaterThan(0);
    expect((await viewer.window(request({ filter: { text: "x' OR 1=1 --" } }))).lineCount).toBe(0);
    const totals = await viewer.totals(REPORT, { currency: 'SEK' });
    expect(totals.totals.map((total) => total.currencyKey)).toEqual(['SEK']);
  });

  it('expands an organization, then a service and a subscription, down to its billing lines', async () => {
    const { viewer } = await setup();
    const organization = (await viewer.window(request())).rows[0]!;
    const opened = await viewer.window(request({ expansion: { all: 'none', toggled: [organization.key] } }));
    const services = opened.rows.filter((row) => row.level === 'service');
    expect(services.length).toBeGreaterThan(0);
    expect(opened.rows[0]).toMatchObject({ key: organization.key, expanded: true });
    const service = services[0]!;
    const deeper = await viewer.window(request({ expansion: { all: 'none', toggled: [organization.key, service.key] } }));
    const subscription = deeper.rows.find((row) => row.level === 'subscription')!;
    const deepest = await viewer.window(request({ expansion: { all: 'none', toggled: [organization.key, service.key, subscription.key] } }));
    const lines = deepest.rows.filter((row) => row.level === 'line');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.reduce((sum, row) => sum.plus(row.sales), new Money(0)).equals(new Money(subscription.sales))).toBe(true);
    const all = await viewer.window(request({ expansion: { all: 'organizations', toggled: [] } }));
    expect(all.rows.filter((row) => row.level === 'organization').every((row) => row.expanded)).toBe(true);
    expect(all.rowCount).toBeGreaterThan(opened.rowCount);
  });

  it('sorts by sales descending, and pages through the visible rows by offset', async () => {
    const { viewer } = await setup();
    const sorted = await viewer.window(request({ sort: { key: 'sales', direction: 'desc' } }));
    const sales = sorted.rows.map((row) => new Money(row.sales));
    expect(sales.every((value, index) => index === 0 || value.lessThanOrEqualTo(sales[index - 1]!))).toBe(true);
    const page = await viewer.window(request({ sort: { key: 'sales', direction: 'desc' }, offset: 5, count: 3 }));
    expect(page.rows.map((row) => row.key)).toEqual(sorted.rows.slice(5, 8).map((row) => row.key));
    expect(page.rowCount).toBe(sorted.rowCount);
  });

  it('says n/a for margin where cost and sales are in different currencies', async () => {
    const { viewer } = await setup();
    const rows = (await viewer.window(request())).rows;
    const mixed = rows.find((row) => row.currencyKey.includes('→'));
    const single = rows.find((row) => !row.currencyKey.includes('→'))!;
    if (mixed) expect(mixed).toMatchObject({ margin: null, marginPercent: null });
    expect(new Money(single.margin!).equals(new Money(single.sales).minus(single.cost))).toBe(true);
  });

  it('gives totals per currency pair equal to the exact sums of the lines the filter keeps, before and after a window', async () => {
    const month = await ledgerWithMonth({ reportId: REPORT, seed: 12, organizations: 25, linesPerOrganization: 5 });
    cleanups.push(month.close);
    const { ledger } = month;
    const keyOf = (l: (typeof month.lines)[number]) => {
      const customer = l.service.customerCurrencyCode ?? l.service.currencyCode;
      return l.service.currencyCode === customer ? customer : `${l.service.currencyCode}→${customer}`;
    };
    const expected = (keep: (l: (typeof month.lines)[number]) => boolean) => {
      const sums = new Map<string, { lines: number; cost: InstanceType<typeof Money>; sales: InstanceType<typeof Money> }>();
      for (const l of month.lines.filter(keep)) {
        const sum = sums.get(keyOf(l)) ?? { lines: 0, cost: new Money(0), sales: new Money(0) };
        sums.set(keyOf(l), { lines: sum.lines + 1, cost: sum.cost.plus(String(l.line.totalResellerPrice)), sales: sum.sales.plus(String(l.line.totalCustomerPrice)) });
      }
      return [...sums.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([currencyKey, sum]) => ({ currencyKey, lines: sum.lines, cost: sum.cost.toFixed(6), sales: sum.sales.toFixed(6) }));
    };
    const cases: [ReportFilter, (l: (typeof month.lines)[number]) => boolean][] = [
      [{}, () => true],
      [{ currency: 'SEK' }, (l) => keyOf(l) === 'SEK'],
    ];
    for (const [filter, keep] of cases) {
      const before = new ReportViewerQueries(async () => ledger, new ReportLibrary(async () => ledger));
      expect((await before.totals(REPORT, filter)).totals.map(({ margin: _m, marginPercent: _p, ...total }) => total)).toEqual(expected(keep));
      const after = new ReportViewerQueries(async () => ledger, new ReportLibrary(async () => ledger));
      await after.window(request({ filter, sort: { key: 'sales', direction: 'desc' } }));
      expect(await after.totals(REPORT, filter)).toEqual(await before.totals(REPORT, filter));
    }
  });
});
