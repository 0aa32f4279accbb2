import { describe, expect, it, vi } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { money } from '@shared/money';
import { foldForSearch } from '@shared/search-fold';
import { ChangeKind, ChangeLevel, ChangeSortKey, type ChangeView, FIRST_VIEW, type MonthChange } from '@shared/schemas/month-close';
import { ledgerWithMonth, restateTotals, testIdentity } from '@testing/ledger-month';
import { testPorts } from '@testing/test-support';
import { ingestReport } from '../reports/report-ingest';
import { createClose } from './handlers';
import { compareMonths } from './month-compare';
import { keepComparison } from './queries/compare';
import { viewOrderQuery } from './queries/change-views';

// The real statements, counted where they are made: a comparison, and a view's order of its changes.
vi.mock('./queries/compare', async (importOriginal) => {
  const original = await importOriginal<typeof import('./queries/compare')>();
  return { ...original, keepComparison: vi.fn(original.keepComparison) };
});
vi.mock('./queries/change-views', async (importOriginal) => {
  const original = await importOriginal<typeof import('./queries/change-views')>();
  return { ...original, viewOrderQuery: vi.fn(original.viewOrderQuery) };
});

const OCTOBER = '11111111-1111-4111-8111-000000000010';
const NOVEMBER = '11111111-1111-4111-8111-000000000011';
const cleanups = cleanupsAfterEach();

/**
 * October, and November with every kind of change: unit prices raised, quantities doubled, a subscription gone, an
 * organization gone from one billing entry and a new one (Ørsted Nybygg AS, one new change for all its lines), its
 * name with a letter search folds.
 */
async function twoMonths() {
  const month = await ledgerWithMonth({ reportId: OCTOBER, seed: 7, organizations: 12, linesPerOrganization: 6 });
  cleanups.push(month.close);
  const november = structuredClone(month.entries);
  const [entry] = november;
  if (!entry || entry.organizations.length < 4) throw new Error('the twin month has too few organizations');
  const products = (organizations: typeof entry.organizations) =>
    organizations.flatMap((organization) => organization.services.flatMap((service) => service.items.flatMap((item) => item.products)));
  const lines = products(entry.organizations);
  for (const line of lines.slice(0, 5)) {
    line.customerPricePerUnit = money(line.customerPricePerUnit).plus('1.5').toFixed();
    line.totalCustomerPrice = money(line.customerPricePerUnit).times(line.quantity).toFixed(2);
  }
  for (const line of lines.slice(10, 13)) {
    line.quantity *= 2;
    line.totalCustomerPrice = money(line.customerPricePerUnit).times(line.quantity).toFixed(2);
    line.totalResellerPrice = money(line.resellerPricePerUnit).times(line.quantity).toFixed(2);
  }
  entry.organizations.pop();
  const subscriptions = entry.organizations[2]!.services.find((service) => service.items.length > 1);
  if (!subscriptions) throw new Error('the twin organization has no service with two subscriptions');
  subscriptions.items.pop();
  const newcomer = structuredClone(entry.organizations[1]!);
  Object.assign(newcomer, { name: 'Ørsted Nybygg AS', customerNumber: 'C-NEW-77', orgId: 'a0a0a0a0-0000-4000-8000-000000000077' });
  newcomer.services.forEach((service) =>
    service.items.forEach((item, index) => (item.subscriptionId = `b0b0b0b0-0000-4000-8000-${String(index).padStart(12, '0')}`)),
  );
  entry.organizations.push(newcomer);
  restateTotals(november);
  async function* body() {
    yield JSON.stringify({ status: 5, data: november });
  }
  await ingestReport(month.ledger, testIdentity(NOVEMBER, { name: 'Billing 2026-11', period: { startDate: '2026-11-01', endDate: '2026-11-30' } }), body());
  const { ports, cleanup } = await testPorts();
  cleanups.push(cleanup);
  const { handlers } = createClose(ports, async () => month.ledger);
  return { month, handlers };
}

type Handlers = Awaited<ReturnType<typeof twoMonths>>['handlers'];

/** Every change a view shows, read `count` at a time as the screen scrolls through it, and the total each window said. */
async function readView(handlers: Handlers, view: ChangeView, count = 4): Promise<{ changes: MonthChange[]; totals: Set<number> }> {
  const changes: MonthChange[] = [];
  const totals = new Set<number>();
  for (let from = 0; ; from += count) {
    const window = await handlers['close:changes']({ beforeId: OCTOBER, afterId: NOVEMBER, view, from, count });
    totals.add(window.total);
    changes.push(...window.changes);
    if (window.changes.length < count) return { changes, totals };
  }
}

/** The order every view is expected in, worked out here in JavaScript from the comparison's own order. */
function expectedOrder(changes: readonly MonthChange[], view: ChangeView): MonthChange[] {
  const sign = view.direction === 'asc' ? 1 : -1;
  const names = new Intl.Collator('en-u-kn-true');
  const place = (change: MonthChange) => [change.service, change.subscription, change.product].filter(Boolean).join(' › ');
  const amount = (change: MonthChange) =>
    view.sort === 'before' ? (change.before?.sales ?? null) : view.sort === 'after' ? (change.after?.sales ?? null) : effect(change);
  const primary = (a: MonthChange, b: MonthChange): number => {
    switch (view.sort) {
      case 'organization':
        return 0;
      case 'kind':
        return ChangeKind.options.indexOf(a.kind) - ChangeKind.options.indexOf(b.kind);
      case 'level':
        return ChangeLevel.options.indexOf(a.level) - ChangeLevel.options.indexOf(b.level);
      case 'place':
        return names.compare(place(a), place(b));
      case 'currency':
        return a.currencyKey < b.currencyKey ? -1 : a.currencyKey > b.currencyKey ? 1 : 0;
      default:
        return 0;
    }
  };
  const indexed = changes.map((change, index) => ({ change, index }));
  return indexed
    .sort((a, b) => {
      if (view.sort === 'organization') return (a.index - b.index) * sign;
      if (['before', 'after', 'effect'].includes(view.sort)) {
        if (a.change.currencyKey !== b.change.currencyKey) return a.change.currencyKey < b.change.currencyKey ? -1 : 1;
        const [x, y] = [amount(a.change), amount(b.change)];
        if (x === null || y === null) {
          if (x !== y) return x === null ? 1 : -1;
        } else if (!money(x).eq(y)) return money(x).comparedTo(y) * sign;
        return a.index - b.index;
      }
      return primary(a.change, b.change) * sign || a.index - b.index;
    })
    .map((entry) => entry.change);
}

const effect = (change: MonthChange) => {
  const { price, quantity, newLost, other } = change.effects;
  return money(price).plus(quantity).plus(newLost).plus(other).toFixed();
};

/** Whether a change names something holding `word` (folded): the names and ids it shows. */
const names = (change: MonthChange, word: string) =>
  [
    change.organization,
    change.customerNumber,
    change.orgId,
    change.service,
    change.serviceId,
    change.subscription,
    change.subscriptionId,
    change.product,
    change.productId,
  ]
    .filter((value): value is string => Boolean(value))
    .some((value) => foldForSearch(value).includes(word));

describe("the Close screen's changes, a window at a time", () => {
  it('sorts by every column both ways in the ledger, each window of a view joining into the whole comparison in that order', async () => {
    const { month, handlers } = await twoMonths();
    const shown = await handlers['close:compare']({ beforeId: OCTOBER, afterId: NOVEMBER });
    const whole = await (await compareMonths(month.ledger, OCTOBER, NOVEMBER)).changes(0, shown.changeCount);
    // Every kind and roll-ups are among them, so each order is tried on all it has to tell apart.
    expect(new Set(whole.map((change) => change.kind))).toEqual(new Set(['new', 'lost', 'price', 'quantity']));
    expect(new Set(whole.map((change) => change.level))).toEqual(new Set(ChangeLevel.options));
    expect(shown.kinds).toEqual(Object.fromEntries(ChangeKind.options.map((kind) => [kind, whole.filter((change) => change.kind === kind).length])));
    // The answer's first window is the comparison's own order.
    expect(shown.changes).toEqual(whole.slice(0, shown.changes.length));

    for (const sort of ChangeSortKey.options) {
      for (const direction of ['asc', 'desc'] as const) {
        const view = { sort, direction };
        const read = await readView(handlers, view);
        expect(read.totals, `${sort} ${direction}`).toEqual(new Set([whole.length]));
        expect(read.changes, `${sort} ${direction}`).toEqual(expectedOrder(whole, view));
      }
    }
  });

  it('filters by kind and by every word typed, folded as every search is, and says how many the view shows', async () => {
    const { month, handlers } = await twoMonths();
    const whole = await (await compareMonths(month.ledger, OCTOBER, NOVEMBER)).changes(0, 1_000);
    const price = await readView(handlers, { ...FIRST_VIEW, kind: 'price' });
    expect(price.changes).toEqual(whole.filter((change) => change.kind === 'price'));
    expect(price.totals).toEqual(new Set([5]));

    // "orsted" finds Ørsted; a customer number, a product's name in another case; two words each in another field.
    const newcomer = whole.find((change) => change.kind === 'new')!;
    expect(newcomer.organization).toBe('Ørsted Nybygg AS');
    const quantity = whole.find((change) => change.kind === 'quantity')!;
    const productWord = quantity.product!.split(' ')[0]!.toUpperCase();
    // A product's id is in no name but the product's: it finds the changes of that product alone.
    for (const text of ['orsted', 'C-NEW-77', `  ${productWord} `, quantity.productId!, `nybygg ${foldForSearch(newcomer.service).split(' ')[0]}`]) {
      const words = foldForSearch(text.trim()).split(/\s+/);
      const expected = whole.filter((change) => words.every((word) => names(change, word)));
      expect(expected.length, text).toBeGreaterThan(0);
      const found = await readView(handlers, { ...FIRST_VIEW, text });
      expect(found.changes, text).toEqual(expected);
      expect(found.totals, text).toEqual(new Set([expected.length]));
    }
    const both = await readView(handlers, { sort: 'effect', direction: 'desc', kind: 'quantity', text: productWord });
    expect(both.changes).toEqual(
      expectedOrder(
        whole.filter((change) => change.kind === 'quantity' && names(change, foldForSearch(productWord))),
        { sort: 'effect', direction: 'desc' },
      ),
    );
    expect(await readView(handlers, { ...FIRST_VIEW, text: 'nothing-is-named-so' })).toEqual({ changes: [], totals: new Set([0]) });
  });

  it("makes a view's order once and reads each window of it; makes the comparison when none is kept yet", async () => {
    const { handlers } = await twoMonths();
    vi.mocked(keepComparison).mockClear();
    vi.mocked(viewOrderQuery).mockClear();
    const view: ChangeView = { sort: 'place', direction: 'desc', text: 'a' };
    const read = await readView(handlers, view, 2);
    expect(read.changes.length).toBeGreaterThan(4);
    expect(vi.mocked(keepComparison)).toHaveBeenCalledTimes(1);
    // The same view typed otherwise (" A ", "a A": a word twice is looked for once) is the same order; another view is another.
    await handlers['close:changes']({ beforeId: OCTOBER, afterId: NOVEMBER, view: { ...view, text: ' A ' }, from: 0, count: 2 });
    await handlers['close:changes']({ beforeId: OCTOBER, afterId: NOVEMBER, view: { ...view, text: 'a A' }, from: 0, count: 2 });
    expect(vi.mocked(viewOrderQuery)).toHaveBeenCalledTimes(1);
    await handlers['close:changes']({ beforeId: OCTOBER, afterId: NOVEMBER, view: { ...view, direction: 'asc' }, from: 0, count: 2 });
    expect(vi.mocked(viewOrderQuery)).toHaveBeenCalledTimes(2);
    // Past the end there is nothing, and still the count; the comparison's own order is read with no order made.
    expect(await handlers['close:changes']({ beforeId: OCTOBER, afterId: NOVEMBER, view, from: 10_000, count: 5 })).toEqual({
      total: read.changes.length,
      changes: [],
    });
    const whole = await readView(handlers, { ...FIRST_VIEW, direction: 'desc' }, 3);
    expect(whole.totals).toEqual(new Set([whole.changes.length]));
    const last = await handlers['close:changes']({ beforeId: OCTOBER, afterId: NOVEMBER, view: FIRST_VIEW, from: whole.changes.length - 1, count: 5 });
    expect(last).toEqual({ total: whole.changes.length, changes: whole.changes.slice(0, 1) });
    expect(vi.mocked(viewOrderQuery)).toHaveBeenCalledTimes(2);
  });

  it("opens a list's view in place of the one it opened before, stopping that one; another list's and a scroll's go on", async () => {
    const { handlers } = await twoMonths();
    await readView(handlers, FIRST_VIEW); // the comparison made and kept
    const list = '22222222-2222-4222-8222-000000000001';
    const other = '22222222-2222-4222-8222-000000000002';
    const typed = (text: string): ChangeView => ({ sort: 'effect', direction: 'desc', text });
    const open = (view: ChangeView, asking?: string) =>
      handlers['close:changes']({ beforeId: OCTOBER, afterId: NOVEMBER, view, from: 0, count: 4, ...(asking ? { list: asking } : {}) });
    /** A view's order that takes its time: endless, or about half a second (then it shows nothing). */
    const slowOrder = (rows: number) => ({ sql: `SELECT CASE WHEN sum(hash(i)) < 0 THEN '1' ELSE '' END AS seqs FROM range(${rows}) t(i)`, params: [] });
    const started = () => new Promise((resolve) => setTimeout(resolve, 300));

    vi.mocked(viewOrderQuery).mockImplementationOnce(() => slowOrder(1e12));
    const stuck = open(typed('n'), list);
    await started();
    const nyb = open(typed('nyb'), list);
    await expect(stuck).rejects.toMatchObject({ code: 'cancelled' });
    expect((await nyb).changes.map((change) => change.organization)).toEqual(['Ørsted Nybygg AS']);

    vi.mocked(viewOrderQuery)
      .mockImplementationOnce(() => slowOrder(1e8))
      .mockImplementationOnce(() => slowOrder(1e8));
    const othersView = open(typed('o'), other);
    const scrolled = handlers['close:changes']({ beforeId: OCTOBER, afterId: NOVEMBER, view: typed('p'), from: 4, count: 4 });
    await started();
    expect((await open(typed('ny'), list)).total).toBeGreaterThanOrEqual(1);
    await expect(othersView).resolves.toEqual({ total: 0, changes: [] });
    await expect(scrolled).resolves.toEqual({ total: 0, changes: [] });
    // The view stopped opens when asked for again.
    expect((await open(typed('n'), list)).total).toBeGreaterThan(1);
  });
});
