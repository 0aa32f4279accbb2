import { describe, expect, it, vi } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { Money } from '@shared/money';
import type { ReportFilter } from '@shared/report-filter';
import { ledgerWithMonth } from '@testing/ledger-month';
import type { ReportSortInput, TreeRow } from '@shared/contract';
import { byName } from '@testing/name-order';
import type { ReportViewerQueries, WindowRequest } from './report-viewer';
import { viewerOn, windowRequest } from '@testing/viewer';
import { LEVEL_NUMBERS_SQL } from './queries/lines';

const REPORT = '00000000-0000-4000-8000-000000000001';

const cleanups = cleanupsAfterEach();

async function setup() {
  const month = await ledgerWithMonth({ reportId: REPORT, seed: 11, organizations: 30, linesPerOrganization: 6 });
  cleanups.push(month.close);
  const { ledger } = month;
  return { viewer: viewerOn(ledger).viewer, ledger, entries: month.entries, lines: month.lines };
}

const request = (change: Partial<WindowRequest> = {}) => windowRequest(REPORT, change);

describe('viewer window queries', () => {
  it('answers one row per organization and currency, sorted by name, with exact sums that match the lines', async () => {
    const { viewer, lines } = await setup();
    const window = await viewer.window(request());
    expect(window.lineCount).toBe(lines.length);
    expect(window.totalLines).toBe(lines.length);
    expect(window.rows.every((row) => row.level === 'organization' && row.depth === 0)).toBe(true);
    const names = window.rows.map((row) => row.label);
    expect(names).toEqual([...names].sort(byName()));
    const first = window.rows[0]!;
    const expected = lines.filter(
      (l) =>
        l.organization.name === first.label &&
        first.currencyKey ===
          (l.service.currencyCode === (l.service.customerCurrencyCode ?? l.service.currencyCode)
            ? l.service.currencyCode
            : `${l.service.currencyCode}→${l.service.customerCurrencyCode}`),
    );
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
    const texted = await viewer.window(request({ filter: { text: words.join(' ') } }));
    expect(texted.lineCount).toBe(lines.filter((l) => words.every((word) => haystack(l).includes(word))).length);
    expect(texted.lineCount).toBeGreaterThan(0);
    expect((await viewer.window(request({ filter: { text: "x' OR 1=1 --" } }))).lineCount).toBe(0);
    const totals = await viewer.window(request({ filter: { currency: 'SEK' } }));
    expect(totals.totals.map((total) => total.currencyKey)).toEqual(['SEK']);
  });

  it('matches without case or diacritics in the text and organization filters: "akerberg" finds Åkerberg, "orsted" Ørsted, "creme cafe" Café Crème', async () => {
    const month = await ledgerWithMonth({
      reportId: REPORT,
      seed: 11,
      organizations: 8,
      linesPerOrganization: 4,
      change: (entries) => {
        const renamed = entries[0]!.organizations[0]!.orgId;
        for (const entry of entries)
          for (const organization of entry.organizations) if (organization.orgId === renamed) organization.name = 'Åkerberg & Ørsted AB';
        entries[0]!.organizations[1]!.services[0]!.items[0]!.products[0]!.productName = 'Café Crème Plan';
      },
    });
    cleanups.push(month.close);
    const viewer = viewerOn(month.ledger).viewer;
    const ofOrganization = month.lines.filter((l) => l.organization.name === 'Åkerberg & Ørsted AB').length;
    const ofProduct = month.lines.filter((l) => l.line.productName === 'Café Crème Plan').length;
    expect(ofOrganization).toBeGreaterThan(0);
    const count = async (filter: ReportFilter) => (await viewer.window(request({ filter }))).lineCount;
    for (const text of ['akerberg', 'ÅKERBERG', 'orsted', 'akerberg orsted', 'Åkerberg Ørsted']) expect(await count({ text }), text).toBe(ofOrganization);
    for (const organization of ['akerberg & orsted', 'Akerberg', 'ørsted ab']) expect(await count({ organization }), organization).toBe(ofOrganization);
    expect(await count({ text: 'creme cafe' })).toBe(ofProduct);
    expect(await count({ text: 'akerbergx' })).toBe(0);
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

  it('sorts by sales descending within each currency, and pages through the visible rows by offset', async () => {
    const { viewer } = await setup();
    const sorted = await viewer.window(request({ sort: { key: 'sales', direction: 'desc' } }));
    const currencies = sorted.rows.map((row) => row.currencyKey);
    expect(currencies).toEqual([...currencies].sort());
    const sales = sorted.rows.map((row) => new Money(row.sales));
    expect(sales.every((value, index) => index === 0 || currencies[index] !== currencies[index - 1] || value.lessThanOrEqualTo(sales[index - 1]!))).toBe(true);
    const page = await viewer.window(request({ sort: { key: 'sales', direction: 'desc' }, offset: 5, count: 3 }));
    expect(page.rows.map((row) => row.key)).toEqual(sorted.rows.slice(5, 8).map((row) => row.key));
    expect(page.rowCount).toBe(sorted.rowCount);
  });

  it("merges an organization's billing under one key into one top row per currency (the name ranked first, the lowest customer number), and keeps same-named others apart", async () => {
    const month = await ledgerWithMonth({
      reportId: REPORT,
      seed: 11,
      organizations: 30,
      linesPerOrganization: 6,
      change: (entries) => {
        const [first, second, third, fourth] = entries[0]!.organizations;
        // One organization under two names (its id the same): one row, under the name that sorts first.
        Object.assign(first!, { name: 'Aa Merged Oy', customerNumber: '5000' });
        Object.assign(second!, { orgId: first!.orgId, name: 'Zz Merged Oy', customerNumber: '0100' });
        const { currencyCode, customerCurrencyCode } = first!.services[0]!;
        Object.assign(second!.services[0]!, { currencyCode, customerCurrencyCode }); // and billed in one currency pair too
        // Two without an id, one name: their customer numbers keep them apart, in the keys' order.
        Object.assign(third!, { orgId: '', name: 'Same Name AB', customerNumber: 'C-2' });
        Object.assign(fourth!, { orgId: '', name: 'Same Name AB', customerNumber: 'C-1' });
        Object.assign(fourth!.services[0]!, { currencyCode: third!.services[0]!.currencyCode, customerCurrencyCode: third!.services[0]!.customerCurrencyCode });
      },
    });
    cleanups.push(month.close);
    const { viewer } = viewerOn(month.ledger);
    const merged = month.entries[0]!.organizations[0]!.orgId;
    // Per currency, of those billed in it: the name that sorts first, the lowest customer number, all summed.
    const expected = new Map<string, { label: string; detail: string; lines: number; sales: Money }>();
    for (const l of month.lines.filter((line) => line.organization.orgId === merged)) {
      const { name, customerNumber } = l.organization;
      const sum = expected.get(currencyKeyOf(l)) ?? { label: name, detail: customerNumber, lines: 0, sales: new Money(0) };
      expected.set(currencyKeyOf(l), {
        label: name < sum.label ? name : sum.label,
        detail: customerNumber < sum.detail ? customerNumber : sum.detail,
        lines: sum.lines + 1,
        sales: sum.sales.plus(String(l.line.totalCustomerPrice)),
      });
    }
    expect(
      [...expected.values()].some((sum) => sum.label === 'Aa Merged Oy' && sum.detail === '0100'),
      'a currency both are billed in',
    ).toBe(true);
    const tops = await allRows(viewer, request());
    const rows = tops.filter((row) => row.key.includes(merged)); // the twin bills it in a later entry too, under its own name
    expect(rows.map((row) => [row.currencyKey, row.label, row.detail, row.lines, exact(row.sales)]).sort()).toEqual(
      [...expected.entries()].map(([currency, sum]) => [currency, sum.label, sum.detail, sum.lines, exact(sum.sales.toString())]).sort(),
    );
    const same = tops.filter((row) => row.label === 'Same Name AB');
    expect(new Set(same.map((row) => row.key)).size).toBe(same.length);
    for (const currency of new Set(same.map((row) => row.currencyKey))) {
      const details = same.filter((row) => row.currencyKey === currency).map((row) => row.detail);
      expect(details).toEqual([...details].sort()); // C-1 before C-2, whichever was billed first
    }
    expect(
      same.some((row, index) => index > 0 && row.currencyKey === same[index - 1]!.currencyKey),
      'two of them in one currency',
    ).toBe(true);
    // Opened, a merged row shows the services of both, adding up to it.
    const both = rows.find((row) => row.label === 'Aa Merged Oy' && row.detail === '0100')!;
    const open = await allRows(viewer, request({ expansion: { all: 'none', toggled: [both.key] } }));
    const after = open.slice(open.findIndex((row) => row.key === both.key) + 1);
    const below = after.slice(
      0,
      after.findIndex((row) => row.depth === 0),
    );
    expect(below.length).toBeGreaterThan(1);
    expect(below.reduce((sum, row) => sum + row.lines, 0)).toBe(both.lines);
    expect(below.reduce((sum, row) => sum.plus(row.sales), new Money(0)).equals(new Money(both.sales))).toBe(true);
  });

  it('says n/a for margin where cost and sales are in different currencies', async () => {
    const { viewer } = await setup();
    const rows = (await viewer.window(request())).rows;
    const mixed = rows.find((row) => row.currencyKey.includes('→'));
    const single = rows.find((row) => !row.currencyKey.includes('→'))!;
    if (mixed) expect(mixed).toMatchObject({ margin: null, marginPercent: null });
    expect(new Money(single.margin!).equals(new Money(single.sales).minus(single.cost))).toBe(true);
  });

  it('gives with every window totals per currency pair equal to the exact sums of the lines the filter keeps', async () => {
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
        sums.set(keyOf(l), {
          lines: sum.lines + 1,
          cost: sum.cost.plus(String(l.line.totalResellerPrice)),
          sales: sum.sales.plus(String(l.line.totalCustomerPrice)),
        });
      }
      return [...sums.entries()]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([currencyKey, sum]) => ({ currencyKey, lines: sum.lines, cost: sum.cost.toFixed(6), sales: sum.sales.toFixed(6) }));
    };
    const cases: [ReportFilter, (l: (typeof month.lines)[number]) => boolean][] = [
      [{}, () => true],
      [{ currency: 'SEK' }, (l) => keyOf(l) === 'SEK'],
    ];
    for (const [filter, keep] of cases) {
      const viewer = viewerOn(ledger).viewer;
      const window = await viewer.window(request({ filter }));
      expect(window.totals.map(({ margin: _m, marginPercent: _p, ...total }) => total)).toEqual(expected(keep));
      expect(window.lineCount).toBe(expected(keep).reduce((sum, total) => sum + total.lines, 0));
      // Every window brings the same totals, in any sort and either arrangement, first asked or kept.
      expect((await viewer.window(request({ filter, sort: { key: 'sales', direction: 'desc' }, offset: 2, count: 3 }))).totals).toEqual(window.totals);
      const byService = await viewerOn(ledger).viewer.window(request({ filter, hierarchy: 'service', offset: 3, count: 2 }));
      expect(byService.totals).toEqual(window.totals);
      expect(byService.lineCount).toBe(window.lineCount);
    }
  });
});

type Month = Awaited<ReturnType<typeof ledgerWithMonth>>;
type Line = Month['lines'][number];

const currencyKeyOf = (l: Line) => {
  const customer = l.service.customerCurrencyCode ?? l.service.currencyCode;
  return l.service.currencyCode === customer ? customer : `${l.service.currencyCode}→${customer}`;
};
const exact = (value: string | number) => new Money(value).toFixed();

/**
 * A month with what the twin never sends on its own: a service whose stated total differs from its subscriptions, a
 * subscription whose stated total differs from its lines, and a single-currency service that sold nothing (no margin %).
 */
async function markedMonth() {
  const month = await ledgerWithMonth({
    reportId: REPORT,
    seed: 21,
    organizations: 24,
    linesPerOrganization: 6,
    change: (entries) => {
      const services = entries.flatMap((entry) => entry.organizations.flatMap((organization) => organization.services));
      services[0]!.totalResellerPrice = new Money(services[0]!.totalResellerPrice).plus(1).toFixed(2);
      // The service's stated total moves with its subscription's: only the subscription differs from what is below it.
      services[1]!.items[0]!.totalCustomerPrice = new Money(services[1]!.items[0]!.totalCustomerPrice).plus(2).toFixed(2);
      services[1]!.totalCustomerPrice = new Money(services[1]!.totalCustomerPrice).plus(2).toFixed(2);
      const unsold = services.find((service, index) => index > 1 && service.currencyCode === service.customerCurrencyCode)!;
      unsold.totalCustomerPrice = '0.00';
      for (const item of unsold.items) {
        item.totalCustomerPrice = '0.00';
        for (const product of item.products) product.totalCustomerPrice = '0.00';
      }
    },
  });
  cleanups.push(month.close);
  const lines = month.entries.flatMap((entry) =>
    entry.organizations.flatMap((organization) =>
      organization.services.flatMap((service) => service.items.flatMap((item) => item.products.map((line) => ({ entry, organization, service, item, line })))),
    ),
  );
  return { viewer: viewerOn(month.ledger).viewer, lines };
}

/** Every row of a state, paged through as the renderer scrolls. */
async function allRows(viewer: ReportViewerQueries, state: WindowRequest): Promise<TreeRow[]> {
  const rows: TreeRow[] = [];
  let rowCount = Infinity;
  while (rows.length < rowCount) {
    const window = await viewer.window({ ...state, offset: rows.length, count: 500 });
    rowCount = window.rowCount;
    rows.push(...window.rows);
  }
  return rows;
}

/** The whole tree open, down to the billing lines (each level opened with the keys the window gave). */
async function wholeTree(viewer: ReportViewerQueries, state: Partial<WindowRequest> = {}): Promise<TreeRow[]> {
  let toggled: string[] = [];
  let rows: TreeRow[] = [];
  for (let depth = 1; depth <= 3; depth++) {
    rows = await allRows(viewer, request({ ...state, expansion: { all: 'organizations', toggled } }));
    toggled = rows.filter((row) => row.hasChildren && row.depth >= 1).map((row) => row.key);
  }
  return rows;
}

/** Rows grouped under their parent (the top rows are one group), in the order shown. */
function siblingGroups(rows: TreeRow[]): TreeRow[][] {
  const groups = new Map<string, TreeRow[]>();
  const path: string[] = [];
  for (const row of rows) {
    path.length = row.depth;
    const parent = row.depth === 0 ? '' : path[row.depth - 1]!;
    groups.set(parent, [...(groups.get(parent) ?? []), row]);
    path[row.depth] = row.key;
  }
  return [...groups.values()];
}

describe('viewer tree by service', () => {
  it('nests service › organization › subscription › line, each service one row per currency pair summed over every organization', async () => {
    const { viewer, lines } = await markedMonth();
    const rows = await wholeTree(viewer, { hierarchy: 'service' });
    expect(new Set(rows.map((row) => row.key)).size).toBe(rows.length);
    expect(
      rows
        .map((row) => `${row.depth}:${row.level}`)
        .filter((value, index, all) => all.indexOf(value) === index)
        .sort(),
    ).toEqual(['0:service', '1:organization', '2:subscription', '3:line']);

    const expected = new Map<string, { label: string; lines: number; cost: Money; sales: Money; organizations: Set<string> }>();
    for (const l of lines) {
      const key = `${l.service.serviceId}|${currencyKeyOf(l)}`;
      const sum = expected.get(key) ?? { label: l.service.serviceName, lines: 0, cost: new Money(0), sales: new Money(0), organizations: new Set<string>() };
      expected.set(key, {
        ...sum,
        lines: sum.lines + 1,
        cost: sum.cost.plus(l.line.totalResellerPrice),
        sales: sum.sales.plus(l.line.totalCustomerPrice),
        organizations: sum.organizations.add(l.organization.orgId),
      });
    }
    const tops = siblingGroups(rows)[0]!;
    expect(tops.every((row) => row.level === 'service')).toBe(true);
    const summary = (label: string, currencyKey: string, lines: number, cost: string | Money, sales: string | Money) =>
      `${label}|${currencyKey}|${lines}|${exact(cost.toString())}|${exact(sales.toString())}`;
    expect(tops.map((row) => summary(row.label, row.currencyKey, row.lines, row.cost, row.sales)).sort()).toEqual(
      [...expected.entries()].map(([key, sum]) => summary(sum.label, key.split('|')[1]!, sum.lines, sum.cost, sum.sales)).sort(),
    );
    // Under each service: one row per organization that has it, adding up to the service; below, subscriptions and lines.
    for (const group of siblingGroups(rows).slice(1)) {
      const parent = rows[rows.indexOf(group[0]!) - 1]!;
      expect(group.every((row) => row.depth === parent.depth + 1 && row.currencyKey === parent.currencyKey)).toBe(true);
      expect(group.reduce((sum, row) => sum.plus(row.sales), new Money(0)).equals(new Money(parent.sales))).toBe(true);
      expect(group.reduce((sum, row) => sum + row.lines, 0)).toBe(parent.lines);
    }
    for (const top of tops) {
      const organizations = siblingGroups(rows).find((group) => rows[rows.indexOf(group[0]!) - 1] === top)!;
      const sum = [...expected.entries()].find(([key]) => key === `${key.split('|')[0]!}|${top.currencyKey}` && expected.get(key)!.label === top.label)![1];
      expect(organizations.length).toBe(sum.organizations.size);
    }

    // The totals per currency are the same whichever way the tree is arranged.
    const perCurrency = (list: TreeRow[]) => {
      const sums = new Map<string, string>();
      for (const row of list) sums.set(row.currencyKey, exact(new Money(sums.get(row.currencyKey) ?? 0).plus(row.sales).toString()));
      return [...sums.entries()].sort();
    };
    const byOrganization = await allRows(viewer, request());
    expect(perCurrency(tops)).toEqual(perCurrency(byOrganization));
    expect((await viewer.window(request({ hierarchy: 'service' }))).totals.map((total) => [total.currencyKey, exact(total.sales)])).toEqual(perCurrency(tops));
  });

  it("keeps its keys whatever the sort, and never answers one arrangement from the other's cache", async () => {
    const { viewer } = await markedMonth();
    const byLabel = await wholeTree(viewer, { hierarchy: 'service' });
    const bySales = await wholeTree(viewer, { hierarchy: 'service', sort: { key: 'sales', direction: 'desc' } });
    expect(bySales.map((row) => row.key).sort()).toEqual(byLabel.map((row) => row.key).sort());
    const service = byLabel.find((row) => row.level === 'service')!;
    const opened = await allRows(
      viewer,
      request({ hierarchy: 'service', sort: { key: 'cost', direction: 'asc' }, expansion: { all: 'none', toggled: [service.key] } }),
    );
    expect(opened.find((row) => row.key === service.key)).toMatchObject({ expanded: true, label: service.label, sales: service.sales });
    expect(opened.filter((row) => row.depth === 1).length).toBeGreaterThan(0);

    const state = { expansion: { all: 'none' as const, toggled: [] } };
    const services = await viewer.window(request({ ...state, hierarchy: 'service' }));
    const organizations = await viewer.window(request({ ...state, hierarchy: 'organization' }));
    expect(services.rows.every((row) => row.level === 'service')).toBe(true);
    expect(organizations.rows.every((row) => row.level === 'organization')).toBe(true);
    expect((await viewer.window(request(state))).rows.map((row) => row.key)).toEqual(organizations.rows.map((row) => row.key));
  });

  it("flags stated totals that differ from the sum below in both arrangements: the organization rows under a service carry its service's flag", async () => {
    const { viewer } = await markedMonth();
    const flagged = (rows: TreeRow[]) =>
      rows.filter((row) => row.mismatch).map((row) => ({ level: row.level, label: row.label, currencyKey: row.currencyKey, mismatch: row.mismatch }));
    const byOrganization = await wholeTree(viewer);
    const byService = await wholeTree(viewer, { hierarchy: 'service' });
    const service = flagged(byOrganization).find((row) => row.level === 'service')!;
    const subscription = flagged(byOrganization).find((row) => row.level === 'subscription')!;
    expect(new Money(service.mismatch!.statedCost).minus(service.mismatch!.sumCost).toNumber()).toBe(1);
    expect(new Money(subscription.mismatch!.statedSales).minus(subscription.mismatch!.sumSales).toNumber()).toBe(2);
    expect(flagged(byOrganization)).toHaveLength(2);
    expect(flagged(byService)).toHaveLength(2);
    expect(flagged(byService).find((row) => row.level === 'subscription')).toEqual(subscription);
    const organizationRow = flagged(byService).find((row) => row.level === 'organization')!;
    expect(organizationRow.mismatch).toEqual(service.mismatch);
    expect(byService.filter((row) => row.level === 'service').every((row) => row.mismatch === null)).toBe(true);
  });
});

describe('viewer row fields', () => {
  it('gives a quantity only to subscriptions and lines (exact sums), never above them, in both arrangements', async () => {
    const { viewer, lines } = await markedMonth();
    for (const hierarchy of ['organization', 'service'] as const) {
      const rows = await wholeTree(viewer, { hierarchy });
      expect(rows.filter((row) => row.level === 'organization' || row.level === 'service').every((row) => row.quantity === null)).toBe(true);
      for (const group of siblingGroups(rows).filter((list) => list[0]!.level === 'line')) {
        const subscription = rows[rows.indexOf(group[0]!) - 1]!;
        expect(subscription.quantity).not.toBeNull();
        expect(new Money(subscription.quantity!).equals(group.reduce((sum, row) => sum.plus(row.quantity!), new Money(0)))).toBe(true);
      }
      const shown = rows
        .filter((row) => row.level === 'line')
        .map((row) => `${row.label}|${exact(row.quantity!)}|${exact(row.sales)}`)
        .sort();
      expect(shown).toEqual(lines.map((l) => `${l.line.productName}|${exact(l.line.quantity)}|${exact(l.line.totalCustomerPrice)}`).sort());
    }
  });

  it('gives lines their unit prices, PO number and billing date; subscriptions their PO; services under an organization their billing date', async () => {
    const { viewer, lines } = await markedMonth();
    const rows = await wholeTree(viewer);
    const po = (value: string) => (value === '' ? null : value);
    const day = (value: string) => value.slice(0, 10);
    expect(lines.some((l) => l.item.poNumber === '')).toBe(true);
    expect(lines.some((l) => l.item.poNumber !== '')).toBe(true);
    const lineRow = (row: TreeRow) =>
      JSON.stringify([row.label, row.detail, exact(row.unitCost!), exact(row.unitPrice!), row.poNumber, row.billingDate, exact(row.sales)]);
    expect(
      rows
        .filter((row) => row.level === 'line')
        .map(lineRow)
        .sort(),
    ).toEqual(
      lines
        .map((l) =>
          JSON.stringify([
            l.line.productName,
            l.line.itemCode,
            exact(l.line.resellerPricePerUnit),
            exact(l.line.customerPricePerUnit),
            po(l.item.poNumber),
            day(l.entry.billingDate),
            exact(l.line.totalCustomerPrice),
          ]),
        )
        .sort(),
    );
    expect(rows.find((row) => row.level === 'line')!.billingDate).toMatch(/^2026-10-\d\d$/);
    const subscriptionRow = (row: TreeRow) => JSON.stringify([row.label, row.detail, row.poNumber, row.billingDate, row.unitCost, row.unitPrice]);
    const subscriptions = new Map(
      lines.map((l) => [l.item.subscriptionId + l.entry.billingDate, JSON.stringify([l.item.itemName, '', po(l.item.poNumber), null, null, null])]),
    );
    expect(
      rows
        .filter((row) => row.level === 'subscription')
        .map(subscriptionRow)
        .sort(),
    ).toEqual([...subscriptions.values()].sort());
    const services = new Map(
      lines.map((l) => [
        `${l.organization.orgId}|${l.service.serviceId}|${l.entry.billingDate}`,
        JSON.stringify([l.service.serviceName, '', null, day(l.entry.billingDate), null, null]),
      ]),
    );
    expect(
      rows
        .filter((row) => row.level === 'service')
        .map(subscriptionRow)
        .sort(),
    ).toEqual([...services.values()].sort());
    const organizations = rows.filter((row) => row.level === 'organization');
    expect(organizations.every((row) => row.poNumber === null && row.billingDate === null && row.unitCost === null && row.unitPrice === null)).toBe(true);
    expect(organizations.map((row) => row.detail)).toEqual(
      organizations.map((row) => lines.find((l) => l.organization.name === row.label)!.organization.customerNumber),
    );

    const byService = await wholeTree(viewer, { hierarchy: 'service' });
    expect(byService.filter((row) => row.level === 'service').every((row) => row.billingDate === null && row.detail === '' && row.poNumber === null)).toBe(
      true,
    );
    const underService = byService.filter((row) => row.level === 'organization');
    expect(underService.every((row) => row.billingDate === null && row.poNumber === null)).toBe(true);
    expect(underService.map((row) => row.detail)).toEqual(
      underService.map((row) => lines.find((l) => l.organization.name === row.label)!.organization.customerNumber),
    );
    expect(
      byService
        .filter((row) => row.level === 'line')
        .map(lineRow)
        .sort(),
    ).toEqual(
      rows
        .filter((row) => row.level === 'line')
        .map(lineRow)
        .sort(),
    );
  });
});

describe('viewer sorting', () => {
  const value = (row: TreeRow, key: ReportSortInput['key']) => (key === 'label' ? row.label : row[key]);

  /** Siblings in currency order (A→Z), ranked by the value inside each currency, rows without a value last. */
  function expectRankedWithinCurrency(groups: TreeRow[][], sort: ReportSortInput) {
    for (const group of groups) {
      const valued = group.filter((row) => value(row, sort.key) !== null);
      expect(group.slice(0, valued.length)).toEqual(valued);
      const currencies = valued.map((row) => row.currencyKey);
      expect(currencies).toEqual([...currencies].sort());
      for (let i = 1; i < valued.length; i++) {
        if (valued[i]!.currencyKey !== valued[i - 1]!.currencyKey) continue;
        const step = new Money(value(valued[i]!, sort.key)!).comparedTo(value(valued[i - 1]!, sort.key)!);
        expect(sort.direction === 'asc' ? step >= 0 : step <= 0).toBe(true);
      }
    }
  }

  it('ranks money within each currency at every level, in both directions, with n/a (two currencies, no sales) last', async () => {
    const { viewer } = await markedMonth();
    for (const hierarchy of ['organization', 'service'] as const) {
      for (const key of ['cost', 'sales', 'margin', 'marginPercent'] as const) {
        for (const direction of ['asc', 'desc'] as const) {
          const rows = await wholeTree(viewer, { hierarchy, sort: { key, direction } });
          expectRankedWithinCurrency(siblingGroups(rows), { key, direction });
          if (key === 'margin' || key === 'marginPercent') {
            // The checks have something to hold: n/a rows, and groups with them beside rows that have a value.
            const mixed = siblingGroups(rows).filter((group) => group.some((row) => value(row, key) === null) && group.some((row) => value(row, key) !== null));
            expect(mixed.length).toBeGreaterThan(0);
          }
        }
      }
    }
    const unsold = (await wholeTree(viewer, { sort: { key: 'marginPercent', direction: 'desc' } })).filter(
      (row) => row.marginPercent === null && !row.currencyKey.includes('→'),
    );
    expect(unsold.length).toBeGreaterThan(0);
  });

  it('ranks quantity within a currency where rows have one, and by name where they have none; the name sort is unchanged', async () => {
    const { viewer } = await markedMonth();
    for (const hierarchy of ['organization', 'service'] as const) {
      for (const direction of ['asc', 'desc'] as const) {
        const rows = await wholeTree(viewer, { hierarchy, sort: { key: 'quantity', direction } });
        const groups = siblingGroups(rows);
        expectRankedWithinCurrency(
          groups.filter((list) => list[0]!.quantity !== null),
          { key: 'quantity', direction },
        );
        for (const group of groups.filter((list) => list[0]!.quantity === null)) {
          const names = group.map((row) => row.label);
          expect(names).toEqual([...names].sort(byName()));
        }
      }
      const descending = await wholeTree(viewer, { hierarchy, sort: { key: 'label', direction: 'desc' } });
      for (const group of siblingGroups(descending)) {
        const names = group.map((row) => row.label);
        expect(names).toEqual([...names].sort(byName()).reverse());
      }
    }
  });
});

describe('viewer top rows kept in the ledger', () => {
  it('pages through a tree with open rows among closed ones in small windows exactly as in one window', async () => {
    const { viewer } = await markedMonth();
    for (const hierarchy of ['organization', 'service'] as const) {
      const tops = (await viewer.window(request({ hierarchy }))).rows;
      // The first, one in the middle and the last top row open, and a row below the middle one.
      const middle = await viewer.window(request({ hierarchy, expansion: { all: 'none', toggled: [tops[0]!.key, tops[5]!.key, tops.at(-1)!.key] } }));
      const second = middle.rows.find((row, index) => row.depth === 1 && middle.rows[index - 1]?.key === tops[5]!.key)!;
      const state = request({ hierarchy, expansion: { all: 'none', toggled: [tops[0]!.key, tops[5]!.key, tops.at(-1)!.key, second.key] } });
      const whole = await viewer.window({ ...state, count: 500 });
      expect(whole.rows.length).toBe(whole.rowCount);
      expect(whole.rowCount).toBeGreaterThan(tops.length + 3);
      const paged: TreeRow[] = [];
      for (let offset = 0; offset < whole.rowCount; offset += 7) paged.push(...(await viewer.window({ ...state, offset, count: 7 })).rows);
      expect(paged).toEqual(whole.rows);
      expect((await viewer.window({ ...state, offset: whole.rowCount, count: 7 })).rows).toEqual([]);
      // Every row of all-but-some open, the same way.
      const allBut = request({ hierarchy, expansion: { all: 'organizations', toggled: [tops[1]!.key] } });
      const allOpen = await viewer.window({ ...allBut, count: 500 });
      expect(allOpen.rows.find((row) => row.key === tops[1]!.key)).toMatchObject({ expanded: false });
      const pagedAll: TreeRow[] = [];
      for (let offset = 0; offset < allOpen.rowCount; offset += 11) pagedAll.push(...(await viewer.window({ ...allBut, offset, count: 11 })).rows);
      expect(pagedAll).toEqual(allOpen.rows);
    }
  });

  it('drops the tables of filters it no longer keeps, and answers a filter again after its table was dropped', async () => {
    const month = await ledgerWithMonth({ reportId: REPORT, seed: 13, organizations: 12, linesPerOrganization: 4 });
    cleanups.push(month.close);
    const { ledger } = month;
    const viewer = viewerOn(ledger).viewer;
    // Tables let go are dropped in the background, after the answer: counted once that is done.
    const kept = async () => {
      await viewer.settled();
      return Number((await ledger.all('SELECT count(*) AS n FROM duckdb_tables() WHERE temporary'))[0]!.n);
    };
    const first = await viewer.window(request({ filter: { currency: 'SEK' } }));
    for (const text of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) {
      await Promise.all([viewer.window(request({ filter: { text } })), viewer.window(request({ filter: { text }, offset: 5 }))]);
    }
    expect(await kept()).toBe(6);
    expect(await viewer.window(request({ filter: { currency: 'SEK' } }))).toEqual(first);
    expect(await kept()).toBe(6);
    viewer.forget(REPORT);
    await viewer.window(request({ filter: { currency: 'EUR' } }));
    expect(await kept()).toBe(1);
  });
});

describe('the top rows named in JavaScript', () => {
  it("reads a month's names once per arrangement, and forgets them with the month (deleted or replaced)", async () => {
    const month = await ledgerWithMonth({ reportId: REPORT, seed: 17, organizations: 8, linesPerOrganization: 3 });
    cleanups.push(month.close);
    const { ledger } = month;
    const viewer = viewerOn(ledger).viewer;
    const read = vi.spyOn(ledger, 'all');
    const namesRead = () => read.mock.calls.filter(([sql]) => sql.startsWith('SELECT o.org_no AS no') || sql.startsWith('SELECT s.service_no AS no')).length;
    const first = await viewer.window(request());
    for (const text of ['a', 'e', 'o']) await viewer.window(request({ filter: { text } }));
    await viewer.window(request({ hierarchy: 'service' }));
    expect(namesRead()).toBe(2); // once by organization, once by service
    // The month saved again under its id with an organization renamed: its rows say so once the month is forgotten.
    const renamed = first.rows[0]!;
    await ledger.run("UPDATE organizations SET name = 'Renamed AB' WHERE report_id = $1 AND name = $2", [REPORT, renamed.label]);
    expect((await viewer.window(request())).rows[0]!.label).toBe(renamed.label);
    viewer.forget(REPORT);
    const again = await viewer.window(request({ sort: { key: 'sales', direction: 'desc' } }));
    expect(again.rows.map((row) => row.label)).toContain('Renamed AB');
    expect(again.rows.map((row) => row.label)).not.toContain(renamed.label);
    expect(namesRead()).toBe(3);
  });
});

describe('opening a report', () => {
  it('starts the first top rows of the arrangement the viewer will show, so its first window reads them instead of making them', async () => {
    const { viewer, ledger } = await setup();
    const made = vi.spyOn(ledger, 'keepTemporary');
    await viewer.view(REPORT, 'organization');
    await vi.waitFor(() => expect(made).toHaveBeenCalledTimes(1)); // started with the answer, before any window
    const first = await viewer.window(request());
    expect(made).toHaveBeenCalledTimes(1);
    // The same rows and totals a viewer told nothing makes for itself.
    expect(first).toEqual(await viewerOn(ledger).viewer.window(request()));
    expect(made).toHaveBeenCalledTimes(2);
  });

  it('reads the search text and the level numbers ahead from the opening, beside the reading connection, once a month, and a word typed then is answered the same', async () => {
    const { viewer, ledger } = await setup();
    const ahead = vi.spyOn(ledger, 'readAhead');
    const read = vi.spyOn(ledger, 'all');
    await viewer.view(REPORT);
    await vi.waitFor(() => expect(ahead).toHaveBeenCalledTimes(2)); // started with the answer, before any window
    expect(ahead).toHaveBeenCalledWith(LEVEL_NUMBERS_SQL, [REPORT]);
    const [sql, params] = ahead.mock.calls.find(([statement]) => statement !== LEVEL_NUMBERS_SQL)!;
    // Every level's search text of this month, for a word no folded text holds.
    for (const table of ['products', 'subscriptions', 'services', 'organizations'])
      expect(sql).toMatch(new RegExp(`FROM ${table} WHERE report_id = \\$1 AND contains\\(search, \\$2\\)`));
    expect(params).toEqual([REPORT, 'A']);
    const counts = async (word: string) => Object.values((await ledger.all(sql, [REPORT, word]))[0]!).map(Number);
    expect(await counts('A')).toEqual([0, 0, 0, 0]);
    expect((await counts('a')).every((count) => count > 0)).toBe(true); // it does read each level's text
    const typed = await viewer.window(request({ filter: { text: 'a' } }));
    await viewer.view(REPORT);
    await viewer.settled();
    expect(ahead).toHaveBeenCalledTimes(2);
    expect(read.mock.calls.filter(([statement]) => statement === LEVEL_NUMBERS_SQL)).toEqual([]); // the word waited for none on the reading connection
    expect(typed).toEqual(await viewerOn(ledger).viewer.window(request({ filter: { text: 'a' } })));
    expect(typed.lineCount).toBeGreaterThan(0);
  });

  it('settles only once the rows it started are made: the ledger closes after them', async () => {
    const { viewer, ledger } = await setup();
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const keep = ledger.keepTemporary.bind(ledger);
    const made = vi.spyOn(ledger, 'keepTemporary').mockImplementation(async (...args) => {
      await held;
      return keep(...args);
    });
    await viewer.view(REPORT, 'organization');
    let settled = false;
    const settling = viewer.settled().then(() => (settled = true));
    await vi.waitFor(() => expect(made).toHaveBeenCalledTimes(1));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    release();
    await settling;
    expect(settled).toBe(true);
    expect((await viewer.window(request())).rows.length).toBeGreaterThan(0);
    expect(made).toHaveBeenCalledTimes(1);
  });

  it('starts nothing when the arrangement is not known, and the other arrangement is made when it is asked for', async () => {
    const { viewer, ledger } = await setup();
    const made = vi.spyOn(ledger, 'keepTemporary');
    await viewer.view(REPORT);
    await viewer.window(request());
    expect(made).toHaveBeenCalledTimes(1);
    await viewer.view(REPORT, 'service');
    await viewer.window(request({ hierarchy: 'organization' })); // kept: nothing made for it
    await vi.waitFor(() => expect(made).toHaveBeenCalledTimes(2)); // the services' rows, started for a window that did not come
    expect((await viewer.window(request({ hierarchy: 'service' }))).rows[0]?.level).toBe('service');
    expect(made).toHaveBeenCalledTimes(2);
  });
});
