import { describe, expect, it } from 'vitest';
import type { BillingException, ChangeView, ChangeWindow, CurrencyBridge, MonthChange } from '@shared/schemas/month-close';
import { afterTitle, messageText } from './exception-list';
import { bridgeAddsUp, bridgeSide, effectOf, nextChangeSort } from './change-list';
import { filterExceptions, groupByRule, placeOf, reviewCounts } from './exception-list';
import { monthLabel } from './month-label';
import { ChangeWindows } from './change-windows';

function exception(fields: Partial<BillingException> & Pick<BillingException, 'rule' | 'severity' | 'organization'>): BillingException {
  return {
    id: `${fields.rule}|${fields.organization}|${fields.message ?? ''}`,
    title: fields.rule,
    explanation: `${fields.rule} in plain words`,
    message: '',
    orgId: '',
    customerNumber: '',
    service: null,
    serviceId: null,
    subscription: null,
    subscriptionId: null,
    product: null,
    productId: null,
    currencyKey: 'SEK',
    path: [],
    evidence: {},
    review: null,
    ...fields,
  };
}

const review = (state: 'accepted' | 'resolved') => ({
  exceptionId: 'x',
  state,
  note: 'ok',
  reviewedBy: 'anna',
  reviewedAt: '2026-11-05T09:00:00.000Z',
  evidence: {},
  capturedAtMigration: false,
  suspended: null,
});

describe('the exception list', () => {
  // As the checks list them: most severe first, then by organization in the month's name order (Swedish here).
  const list = [
    exception({ rule: 'negative-margin', severity: 'high', organization: 'Zeta', message: 'z', review: review('accepted') }),
    exception({ rule: 'unbilled', severity: 'high', organization: 'Gamma', review: review('resolved') }),
    exception({ rule: 'negative-margin', severity: 'high', organization: 'Åkerberg', message: 'a' }),
    exception({ rule: 'quantity-jump', severity: 'medium', organization: 'Alpha', customerNumber: 'C-7', product: 'Seats' }),
    exception({ rule: 'unit-price-changed', severity: 'low', organization: 'Beta', message: 'b' }),
  ];

  it('groups by rule, most severe first, organizations inside a group as the checks list them (the month’s name order)', () => {
    const groups = groupByRule(list);
    expect(groups.map((group) => group.rule)).toEqual(['negative-margin', 'unbilled', 'quantity-jump', 'unit-price-changed']);
    expect(groups[0]!.exceptions.map((item) => item.organization)).toEqual(['Zeta', 'Åkerberg']);
    expect(groups[0]!.explanation).toBe('negative-margin in plain words');
  });

  it('filters by review state, severity, rule and text', () => {
    expect(filterExceptions(list, { review: 'open' }).map((item) => item.organization)).toEqual(['Åkerberg', 'Alpha', 'Beta']);
    expect(filterExceptions(list, { review: 'accepted' }).map((item) => item.organization)).toEqual(['Zeta']);
    expect(filterExceptions(list, { review: 'resolved' }).map((item) => item.organization)).toEqual(['Gamma']);
    expect(filterExceptions(list, { review: 'all', severity: 'high' })).toHaveLength(3);
    expect(filterExceptions(list, { review: 'all', rule: 'negative-margin' })).toHaveLength(2);
    expect(filterExceptions(list, { review: 'all', text: ' c-7 ' }).map((item) => item.organization)).toEqual(['Alpha']);
    expect(filterExceptions(list, { review: 'all', text: 'SEATS' })).toHaveLength(1);
    // Without diacritics: "akerberg" finds Åkerberg, "ørsted" finds Orsted.
    const nordic = [
      exception({ rule: 'unbilled', severity: 'high', organization: 'Åkerberg AB' }),
      exception({ rule: 'unbilled', severity: 'high', organization: 'Orsted A/S' }),
    ];
    expect(filterExceptions(nordic, { review: 'all', text: 'akerberg' }).map((item) => item.organization)).toEqual(['Åkerberg AB']);
    expect(filterExceptions(nordic, { review: 'all', text: 'Ørsted' }).map((item) => item.organization)).toEqual(['Orsted A/S']);
    expect(reviewCounts(list)).toEqual({ open: 3, accepted: 1, resolved: 1, all: 5 });
  });

  it('names the place in the report by what the exception has', () => {
    expect(placeOf({ service: 'Azure plan', subscription: 'Main', product: null })).toBe('Azure plan › Main');
    expect(placeOf({ service: null, subscription: null, product: null })).toBe('');
  });
});

function change(fields: Partial<MonthChange> & Pick<MonthChange, 'kind' | 'organization'>): MonthChange {
  return {
    level: 'line',
    customerNumber: '',
    orgId: '',
    service: 'Azure plan',
    serviceId: null,
    subscription: null,
    subscriptionId: null,
    product: null,
    productId: null,
    currencyKey: 'SEK',
    before: null,
    after: null,
    effects: { price: '0', quantity: '0', newLost: '0', other: '0' },
    ...fields,
  };
}

describe('the changes table', () => {
  it('the effect is the sum of the split, exactly', () => {
    expect(effectOf({ effects: { price: '0.1', quantity: '0.2', newLost: '0', other: '-0.0000000001' } }).toFixed()).toBe('0.2999999999');
  });

  it('a new column sorts text A→Z and money biggest first; the same column flips', () => {
    expect(nextChangeSort({ sort: 'organization', direction: 'asc' }, 'effect')).toEqual({ sort: 'effect', direction: 'desc' });
    expect(nextChangeSort({ sort: 'effect', direction: 'desc' }, 'effect')).toEqual({ sort: 'effect', direction: 'asc' });
    expect(nextChangeSort({ sort: 'effect', direction: 'desc' }, 'kind')).toEqual({ sort: 'kind', direction: 'asc' });
  });

  it('a bridge adds up only when before + every effect is after, to the last decimal, for the sales and for the cost', () => {
    const bridge: CurrencyBridge = {
      currencyKey: 'USD→SEK',
      salesBefore: '100',
      salesAfter: '112.0001',
      change: '12.0001',
      effects: { price: '5', quantity: '10', newLost: '-3', other: '0.0001' },
      cost: { before: '80', after: '79.5', change: '-0.5', effects: { price: '-1', quantity: '0.5', newLost: '0', other: '0' } },
      margin: null,
    };
    const sales = bridgeSide(bridge, 'sales');
    expect(sales.currency).toBe('SEK');
    expect(bridgeAddsUp(sales)).toBe(true);
    expect(bridgeAddsUp({ ...sales, effects: { ...sales.effects, other: '0' } })).toBe(false);
    expect(bridgeAddsUp({ ...sales, change: '12' })).toBe(false);
    const cost = bridgeSide(bridge, 'cost');
    expect(cost).toMatchObject({ currency: 'USD', before: '80', after: '79.5' });
    expect(bridgeAddsUp(cost)).toBe(true);
    expect(bridgeAddsUp({ ...cost, effects: { ...cost.effects, quantity: '0' } })).toBe(false);
  });
});

describe("a comparison's changes, a window at a time", () => {
  const numbered = (from: number, count: number) => Array.from({ length: count }, (_, at) => change({ kind: 'quantity', organization: `org ${from + at}` }));
  const byOrganization: ChangeView = { sort: 'organization', direction: 'asc' };
  const byEffect: ChangeView = { sort: 'effect', direction: 'desc' };
  /** A reader of a view of `total` changes that answers when told (answer / fail), and what it was asked. */
  function reader(total: number) {
    const asked: { view: ChangeView; from: number; count: number; opening: boolean }[] = [];
    const waiting: { resolve(window: ChangeWindow): void; reject(error: Error): void; view: ChangeView; from: number; count: number }[] = [];
    const read = (view: ChangeView, from: number, count: number, opening: boolean) => {
      asked.push({ view, from, count, opening });
      return new Promise<ChangeWindow>((resolve, reject) => waiting.push({ resolve, reject, view, from, count }));
    };
    /** Answers the reads waiting (those `which` picks), each with its window. */
    const answer = (which: (view: ChangeView) => boolean = () => true) => {
      for (const { resolve, view, from, count } of waiting.filter(({ view }) => which(view))) {
        waiting.splice(
          waiting.findIndex((read) => read.view === view && read.from === from),
          1,
        );
        resolve({ total, changes: numbered(from, Math.max(0, Math.min(count, total - from))) });
      }
    };
    /** Fails every read waiting, with the bridge's code (RequestError's) when given. */
    const fail = (message: string, code?: string) => {
      for (const { reject } of waiting.splice(0)) reject(Object.assign(new Error(message), code ? { code } : {}));
    };
    return { read, asked, answer, fail };
  }
  const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('shows the first window the answer brought, and asks only for the windows of the rows in sight, once each', async () => {
    const service = reader(1_000);
    let changed = 0;
    const windows = new ChangeWindows(service.read, 10, () => (changed += 1), { view: byOrganization, changes: numbered(0, 10), total: 1_000 });
    expect(windows.total(byOrganization)).toBe(1_000);
    expect(windows.at(byOrganization, 9)?.organization).toBe('org 9');
    windows.need(byOrganization, 0, 9);
    expect(service.asked).toEqual([]);
    windows.need(byOrganization, 5, 24);
    windows.need(byOrganization, 12, 24); // asked already
    expect(service.asked.map(({ from, count }) => [from, count])).toEqual([
      [10, 10],
      [20, 10],
    ]);
    expect(windows.at(byOrganization, 15)).toBeUndefined();
    service.answer();
    await settled();
    expect(changed).toBe(2);
    expect(windows.at(byOrganization, 15)?.organization).toBe('org 15');
    expect(windows.at(byOrganization, 29)?.organization).toBe('org 29');
    // Nothing is asked past the end of what a view shows.
    windows.need(byOrganization, 990, 1_200);
    expect(service.asked.slice(2).map(({ from }) => from)).toEqual([990]);
  });

  it('reads another view from its top, knows it by its words however typed, and says how many it shows once it has answered', async () => {
    const service = reader(3);
    const windows = new ChangeWindows(service.read, 10, () => undefined);
    const searched: ChangeView = { ...byEffect, text: ' acme ' };
    expect(windows.total(searched)).toBeNull();
    windows.need(searched, 0, 0);
    windows.need({ ...byEffect, text: 'acme' }, 0, 0);
    expect(service.asked).toEqual([{ view: searched, from: 0, count: 10, opening: true }]);
    service.answer();
    await settled();
    expect(windows.total({ ...byEffect, text: 'acme' })).toBe(3);
    expect(windows.at(searched, 2)?.organization).toBe('org 2');
  });

  it('opens each view as it is asked for, in place of the one before: one passed over says nothing, and is asked for again when shown again', async () => {
    const service = reader(40);
    let changed = 0;
    const windows = new ChangeWindows(service.read, 10, () => (changed += 1), { view: byOrganization, changes: numbered(0, 10), total: 40 });
    const typed = ['s', 'st', 'sto', 'stor'].map((text): ChangeView => ({ ...byEffect, text }));
    for (const view of typed) windows.need(view, 0, 0);
    // Scrolling a view already answered is no opening: it takes no other's place.
    windows.need(byOrganization, 10, 10);
    expect(service.asked.map(({ view, from, opening }) => [view.text ?? null, from, opening])).toEqual([
      ['s', 0, true],
      ['st', 0, true],
      ['sto', 0, true],
      ['stor', 0, true],
      [null, 10, false],
    ]);
    // The main process answers the newest and the scroll, and stops the three it replaced.
    service.answer((view) => view.text === 'stor' || view.text === undefined);
    service.fail('A newer request took the place of this one before it started.', 'cancelled');
    await settled();
    expect(windows.total(typed[3]!)).toBe(40);
    expect(windows.at(byOrganization, 10)?.organization).toBe('org 10');
    expect(changed).toBe(2); // nothing redrawn for the three passed over
    for (const view of typed.slice(0, 3)) {
      expect(windows.total(view)).toBeNull();
      expect(windows.error(view)).toBeNull();
    }
    // A view passed over is asked for again when it is shown again; stopped while the screen still waits for it (the
    // main process had not yet let go of its stopped making, or took a later request first), it is asked again.
    windows.need(typed[1]!, 0, 0);
    expect(service.asked.at(-1)).toMatchObject({ view: typed[1], from: 0, opening: true });
    const asked = service.asked.length;
    service.fail('This read was stopped before it finished: a newer request took its place.', 'cancelled');
    await settled();
    expect(service.asked.slice(asked)).toEqual([{ view: typed[1], from: 0, count: 10, opening: true }]);
    expect(windows.error(typed[1]!)).toBeNull();
    // Any other failure of an opening is said.
    service.fail('The ledger is busy.', 'storage');
    await settled();
    expect(windows.error(typed[1]!)).toBe('The ledger is busy.');
  });

  it('says why a window failed and asks for it again only when told to; answers for a comparison no longer shown are dropped', async () => {
    const service = reader(50);
    let changed = 0;
    const windows = new ChangeWindows(service.read, 10, () => (changed += 1));
    windows.need(byEffect, 0, 0);
    service.fail('The ledger is busy.');
    await settled();
    expect(windows.error(byEffect)).toBe('The ledger is busy.');
    windows.need(byEffect, 0, 0);
    expect(service.asked).toHaveLength(1);
    windows.retry(byEffect);
    expect(windows.error(byEffect)).toBeNull();
    windows.need(byEffect, 0, 0);
    expect(service.asked).toHaveLength(2);
    windows.stop();
    const before = changed;
    service.answer();
    await settled();
    expect(windows.total(byEffect)).toBeNull();
    expect(changed).toBe(before);
  });
});

describe('the month', () => {
  it('is named when the period is a whole calendar month, else given as its days', () => {
    expect(monthLabel({ startDate: '2026-10-01', endDate: '2026-10-31' }, 'en-GB')).toBe('October 2026');
    expect(monthLabel({ startDate: '2028-02-01', endDate: '2028-02-29' }, 'en-GB')).toBe('February 2028');
    expect(monthLabel({ startDate: '2026-10-01', endDate: '2026-10-15' }, 'en-GB')).toBe('2026-10-01 – 2026-10-15');
    expect(monthLabel({ startDate: '2026-10-02', endDate: '2026-10-31' }, 'en-GB')).toBe('2026-10-02 – 2026-10-31');
  });
});

describe('exception texts', () => {
  const exception = {
    title: 'Sold below cost',
    currencyKey: 'USD→SEK',
    message: 'Sold below cost: sales 31006.08 SEK, cost 34451.34 USD (margin -3445.26 SEK); Plan 2 PRO 495 → 0 SEK, 12.5 %.',
  };
  it('writes each amount of its own currencies in the user’s locale, the figure before an arrow too, and leaves other digits alone', () => {
    expect(messageText(exception, 'en-US')).toBe(
      'Sold below cost: sales 31,006.08 SEK, cost 34,451.34 USD (margin -3,445.26 SEK); Plan 2 PRO 495.00 → 0.00 SEK, 12.5 %.',
    );
    expect(messageText(exception, 'sv-SE')).toBe(
      'Sold below cost: sales 31 006,08 SEK, cost 34 451,34 USD (margin −3 445,26 SEK); Plan 2 PRO 495,00 → 0,00 SEK, 12.5 %.',
    );
    expect(messageText({ ...exception, currencyKey: null }, 'sv-SE')).toBe(exception.message);
  });
  it('does not say the rule’s title twice when the words open with it', () => {
    expect(afterTitle(exception, 'en-US')).toMatch(/^sales 31,006\.08 SEK/);
    expect(afterTitle({ ...exception, title: 'Unit price changed' }, 'en-US')).toMatch(/^Sold below cost: sales/);
  });
});
