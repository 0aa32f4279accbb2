import { describe, expect, it } from 'vitest';
import type { BillingException, CurrencyBridge, MonthChange } from '@shared/schemas/month-close';
import { afterTitle, messageText } from './exception-list';
import { bridgeAddsUp, bridgeSide, effectOf, filterChanges, kindCounts, nextChangeSort, sortChanges } from './change-list';
import { filterExceptions, groupByRule, placeOf, reviewCounts } from './exception-list';
import { monthLabel } from './month-label';
import { readRestOfChanges } from './changes-reading';

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
    review: null,
    ...fields,
  };
}

const review = (state: 'accepted' | 'resolved') => ({ exceptionId: 'x', state, note: 'ok', reviewedBy: 'anna', reviewedAt: '2026-11-05T09:00:00.000Z' });

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

const values = (sales: string) => ({ quantity: '1', unitPrice: sales, unitCost: null, cost: '0', sales });

describe('the changes table', () => {
  const changes = [
    change({
      kind: 'price',
      organization: 'Beta',
      before: values('10'),
      after: values('12.5'),
      effects: { price: '2.5', quantity: '0', newLost: '0', other: '0' },
    }),
    change({
      kind: 'new',
      organization: 'alpha',
      level: 'organization',
      after: values('100'),
      effects: { price: '0', quantity: '0', newLost: '100', other: '0' },
    }),
    change({ kind: 'lost', organization: 'Gamma', currencyKey: 'EUR', before: values('7'), effects: { price: '0', quantity: '0', newLost: '-7', other: '0' } }),
    change({
      kind: 'quantity',
      organization: 'Delta',
      product: 'Seats',
      before: values('3'),
      after: values('3.0000001'),
      effects: { price: '0', quantity: '0.0000001', newLost: '0', other: '0' },
    }),
  ];

  it('the effect is the sum of the split, exactly', () => {
    expect(effectOf({ effects: { price: '0.1', quantity: '0.2', newLost: '0', other: '-0.0000000001' } }).toFixed()).toBe('0.2999999999');
  });

  it('filters by kind and text, counts the kinds', () => {
    expect(filterChanges(changes, { kind: 'new' }).map((item) => item.organization)).toEqual(['alpha']);
    expect(filterChanges(changes, { text: 'seats' }).map((item) => item.organization)).toEqual(['Delta']);
    expect(filterChanges([change({ kind: 'new', organization: 'Ærø Café' })], { text: 'aero cafe' })).toHaveLength(1);
    expect(kindCounts(changes)).toEqual({ new: 1, lost: 1, quantity: 1, price: 1, amount: 0 });
  });

  it('sorts money within its currency pair (never across) and a missing side last', () => {
    const byEffect = sortChanges(changes, { key: 'effect', direction: 'desc' });
    expect(byEffect.map((item) => item.organization)).toEqual(['Gamma', 'alpha', 'Beta', 'Delta']);
    const byBefore = sortChanges(changes, { key: 'before', direction: 'asc' });
    expect(byBefore.map((item) => item.organization)).toEqual(['Gamma', 'Delta', 'Beta', 'alpha']);
    const byBeforeDesc = sortChanges(changes, { key: 'before', direction: 'desc' });
    expect(byBeforeDesc.map((item) => item.organization)).toEqual(['Gamma', 'Beta', 'Delta', 'alpha']);
    // Organizations in the order the comparison lists them (the month's name order), either way round.
    expect(sortChanges(changes, { key: 'organization', direction: 'asc' }).map((item) => item.organization)).toEqual(changes.map((item) => item.organization));
    expect(sortChanges(changes, { key: 'organization', direction: 'desc' }).map((item) => item.organization)).toEqual(
      changes.map((item) => item.organization).reverse(),
    );
    expect(sortChanges(changes, { key: 'kind', direction: 'asc' }).map((item) => item.kind)).toEqual(['new', 'lost', 'quantity', 'price']);
  });

  it('a new column sorts text A→Z and money biggest first; the same column flips', () => {
    expect(nextChangeSort({ key: 'organization', direction: 'asc' }, 'effect')).toEqual({ key: 'effect', direction: 'desc' });
    expect(nextChangeSort({ key: 'effect', direction: 'desc' }, 'effect')).toEqual({ key: 'effect', direction: 'asc' });
    expect(nextChangeSort({ key: 'effect', direction: 'desc' }, 'kind')).toEqual({ key: 'kind', direction: 'asc' });
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

describe("the rest of a comparison's changes", () => {
  const numbered = (from: number, count: number) => Array.from({ length: count }, (_, at) => change({ kind: 'quantity', organization: `org ${from + at}` }));
  const names = (changes: MonthChange[]) => changes.map((item) => item.organization);

  it('are read after the first part, a part at a time, each part joined in order until all wanted are read', async () => {
    const asked: [number, number][] = [];
    const seen: number[] = [];
    let all: MonthChange[] = [];
    await readRestOfChanges(
      numbered(0, 10),
      63,
      async (from, count) => {
        asked.push([from, count]);
        return numbered(from, count);
      },
      (changes) => {
        seen.push(changes.length);
        all = changes;
      },
      () => false,
      25,
    );
    expect(asked).toEqual([
      [10, 25],
      [35, 25],
      [60, 3],
    ]);
    expect(seen).toEqual([35, 60, 63]);
    expect(names(all)).toEqual(names(numbered(0, 63)));
  });

  it('read nothing when the first part is all, stop handing on once stopped, and fail in words when a part comes empty', async () => {
    const never = async () => {
      throw new Error('asked');
    };
    await readRestOfChanges(
      numbered(0, 3),
      3,
      never,
      () => expect.fail('nothing to join'),
      () => false,
    );
    let stopped = false;
    const joined: number[] = [];
    await readRestOfChanges(
      numbered(0, 2),
      20,
      async (from, count) => {
        stopped = from > 2;
        return numbered(from, Math.min(count, 4));
      },
      (changes) => joined.push(changes.length),
      () => stopped,
    );
    expect(joined).toEqual([6]);
    const kept: number[] = [];
    await expect(
      readRestOfChanges(
        numbered(0, 2),
        9,
        async (from) => (from < 5 ? numbered(from, 3) : []),
        (changes) => kept.push(changes.length),
        () => false,
      ),
    ).rejects.toThrow(/fewer changes than it said/);
    expect(kept).toEqual([5]);
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
