import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { money } from '@shared/money';
import { ledgerWithMonth, restateTotals, type ServedEntries, testIdentity } from '@testing/ledger-month';
import { ingestReport } from '../reports/report-ingest';
import type { Submission } from '@shared/schemas/consumption';
import { summarize } from '../consumption/history-store';
import { type BillingException, type ConsumptionHistory, marginPointsText, runBillingChecks } from './billing-checks';
import { MonthClose } from './month-close';

type WireBillingEntry = ServedEntries[number];
type WireOrganization = WireBillingEntry['organizations'][number];
type WireItem = WireOrganization['services'][number]['items'][number];

const OCTOBER = '11111111-1111-4111-8111-000000000010';
const NOVEMBER = '11111111-1111-4111-8111-000000000011';
const cleanups = cleanupsAfterEach();

async function month(plant: (entries: WireBillingEntry[]) => void = () => {}, organizations = 14) {
  const october = await ledgerWithMonth({ reportId: OCTOBER, seed: 11, organizations, linesPerOrganization: 8 });
  cleanups.push(october.close);
  const november = structuredClone(october.entries);
  plant(november);
  async function* body() {
    yield JSON.stringify({ status: 5, data: november });
  }
  await ingestReport(october.ledger, testIdentity(NOVEMBER, { period: { startDate: '2026-11-01', endDate: '2026-11-30' } }), body());
  return { ledger: october.ledger, november };
}

/** Items with one product, sold in their own currency, of organizations in order: room to plant one anomaly each. */
function plainItems(entries: WireBillingEntry[]): { organization: WireOrganization; item: WireItem }[] {
  const seen = new Set<string>();
  const found: { organization: WireOrganization; item: WireItem }[] = [];
  for (const organization of entries.flatMap((entry) => entry.organizations)) {
    if (seen.has(organization.orgId)) continue;
    const service = organization.services.find(
      (candidate) => candidate.currencyCode === candidate.customerCurrencyCode && candidate.items.some((item) => item.products.length === 1),
    );
    const item = service?.items.find((candidate) => candidate.products.length === 1);
    if (!item) continue;
    seen.add(organization.orgId);
    found.push({ organization, item });
  }
  return found;
}

const rulesOf = (exceptions: BillingException[], subscriptionId: string) =>
  exceptions.filter((exception) => exception.subscriptionId === subscriptionId).map((exception) => exception.rule);

describe('billing checks', () => {
  it('words a margin % to one place, a margin just below zero as 0.0 rather than -0.0', () => {
    expect([-0.04, -0.05, 0.04, 12.345, -7.25].map(marginPointsText)).toEqual(['0.0', '-0.1', '0.0', '12.3', '-7.3']);
  });

  it('find nothing in a month that follows the spec and matches the month before', async () => {
    const { ledger } = await month();
    expect(await runBillingChecks(ledger, NOVEMBER, OCTOBER)).toEqual([]);
  });

  it('write amounts in a message to the minor unit of their currency: 3 places for KWD, none for JPY', async () => {
    let planted: WireItem[] = [];
    const { ledger } = await month((entries) => {
      const [kwd, jpy] = plainItems(entries);
      planted = [kwd!.item, jpy!.item];
      for (const [{ organization, item }, currency] of [
        [kwd!, 'KWD'],
        [jpy!, 'JPY'],
      ] as const) {
        const service = organization.services.find((candidate) => candidate.items.includes(item))!;
        service.currencyCode = currency;
        service.customerCurrencyCode = currency;
        const product = item.products[0]!;
        product.resellerPricePerUnit = '10.1234';
        product.customerPricePerUnit = '9.5';
        product.quantity = 1;
        product.totalResellerPrice = '10.1234';
        product.totalCustomerPrice = '9.5';
      }
      restateTotals(entries);
    });
    const exceptions = await runBillingChecks(ledger, NOVEMBER, OCTOBER);
    const message = (item: WireItem) =>
      exceptions.find((exception) => exception.rule === 'negative-margin' && exception.subscriptionId === item.subscriptionId)?.message;
    expect(message(planted[0]!)).toBe('Sold below cost: sales 9.500 KWD, cost 10.123 KWD (margin -0.623 KWD).');
    expect(message(planted[1]!)).toBe('Sold below cost: sales 10 JPY, cost 10 JPY (margin -1 JPY).');
  });

  it('report each planted anomaly: below cost, cost with no sales, no customer number, a line total that is not quantity × unit price', async () => {
    let planted: Record<string, { organization: WireOrganization; item: WireItem }> = {};
    const { ledger } = await month((november) => {
      const [belowCost, unbilled, mismatch, duplicate, noNumber] = plainItems(november) as { organization: WireOrganization; item: WireItem }[];
      const line = (item: WireItem) => item.products[0] as WireItem['products'][number];
      line(belowCost!.item).customerPricePerUnit = money(line(belowCost!.item).resellerPricePerUnit).minus('1').toFixed(2);
      line(belowCost!.item).totalCustomerPrice = money(line(belowCost!.item).customerPricePerUnit).times(line(belowCost!.item).quantity).toFixed(2);
      line(unbilled!.item).customerPricePerUnit = '0.00';
      line(unbilled!.item).totalCustomerPrice = '0.00';
      line(mismatch!.item).totalCustomerPrice = money(line(mismatch!.item).totalCustomerPrice).plus('0.01').toFixed(2);
      duplicate!.item.products.push(structuredClone(line(duplicate!.item)));
      for (const organization of november.flatMap((entry) => entry.organizations))
        if (organization.orgId === noNumber!.organization.orgId) organization.customerNumber = '';
      restateTotals(november);
      planted = { belowCost: belowCost!, unbilled: unbilled!, mismatch: mismatch!, duplicate: duplicate!, noNumber: noNumber! };
    });
    const exceptions = await runBillingChecks(ledger, NOVEMBER, null);
    expect(rulesOf(exceptions, planted.belowCost!.item.subscriptionId)).toEqual(['negative-margin']);
    expect(rulesOf(exceptions, planted.unbilled!.item.subscriptionId)).toEqual(['unbilled']);
    expect(rulesOf(exceptions, planted.mismatch!.item.subscriptionId)).toEqual(['line-total-mismatch']);
    expect(rulesOf(exceptions, planted.duplicate!.item.subscriptionId)).toEqual(['duplicate-line']);
    const noNumber = exceptions.filter((exception) => exception.rule === 'missing-customer-number');
    expect(noNumber.map((exception) => exception.orgId)).toEqual([planted.noNumber!.organization.orgId]);
    expect(exceptions.map((exception) => exception.rule).sort()).toEqual([
      'duplicate-line',
      'line-total-mismatch',
      'missing-customer-number',
      'negative-margin',
      'unbilled',
    ]);
    // Exceptions first by severity, each with words, and a path the viewer can open to its row.
    expect(exceptions.map((exception) => exception.severity)).toEqual(['high', 'high', 'high', 'high', 'low']);
    const belowCost = exceptions.find((exception) => exception.rule === 'negative-margin')!;
    expect(belowCost.message).toMatch(/^Sold below cost: sales [\d.]+ \w{3}, cost [\d.]+ \w{3} \(margin -[\d.]+ \w{3}\)\.$/);
    expect(belowCost.path).toEqual([expect.stringMatching(/^o:/), expect.stringMatching(/^s:\d+$/), expect.stringMatching(/^u:\d+$/)]);
  });

  it('compare with last month: a unit price change, a quantity jump and a subscription that is missing now', async () => {
    let planted: { price: WireItem; jump: WireItem; missing: WireItem } | undefined;
    const { ledger } = await month((november) => {
      const [price, jump, missing] = plainItems(november).map(({ item }) => item) as [WireItem, WireItem, WireItem];
      const line = (item: WireItem) => item.products[0] as WireItem['products'][number];
      line(price).resellerPricePerUnit = money(line(price).resellerPricePerUnit).plus('0.5').toFixed();
      line(price).totalResellerPrice = money(line(price).resellerPricePerUnit).times(line(price).quantity).toFixed();
      line(jump).quantity = line(jump).quantity * 3;
      line(jump).totalCustomerPrice = money(line(jump).customerPricePerUnit).times(line(jump).quantity).toFixed();
      line(jump).totalResellerPrice = money(line(jump).resellerPricePerUnit).times(line(jump).quantity).toFixed();
      for (const service of november.flatMap((entry) => entry.organizations.flatMap((organization) => organization.services)))
        service.items = service.items.filter((item) => item !== missing);
      restateTotals(november);
      planted = { price, jump, missing };
    });
    const exceptions = await runBillingChecks(ledger, NOVEMBER, OCTOBER);
    expect(rulesOf(exceptions, planted!.price.subscriptionId)).toEqual(['unit-price-changed']);
    expect(rulesOf(exceptions, planted!.jump.subscriptionId)).toEqual(['quantity-jump']);
    expect(rulesOf(exceptions, planted!.missing.subscriptionId)).toEqual(['missing-subscription']);
    expect(exceptions).toHaveLength(3);
    expect(exceptions.find((exception) => exception.rule === 'quantity-jump')?.message).toMatch(/\+200 %/);
  });

  it('flags a margin far from the service’s usual one, and a stated total that differs from its lines', async () => {
    let planted: { outlier: WireItem; stated: WireItem } | undefined;
    const { ledger } = await month((november) => {
      // A service sold in one currency to at least 5 organizations has a usual margin; one of them sells at 3× cost.
      const users = new Map<string, { organization: WireOrganization; item: WireItem }[]>();
      for (const organization of november.flatMap((entry) => entry.organizations)) {
        for (const service of organization.services.filter((candidate) => candidate.currencyCode === candidate.customerCurrencyCode)) {
          const key = `${service.serviceName}|${service.currencyCode}`;
          if (!users.get(key)?.some((user) => user.organization.orgId === organization.orgId))
            users.set(key, [...(users.get(key) ?? []), { organization, item: service.items[0]! }]);
        }
      }
      const [[, common = []] = []] = [...users.entries()].filter(([, list]) => list.length >= 6);
      const outlier = common[0]!.item;
      for (const line of outlier.products) {
        line.customerPricePerUnit = money(line.resellerPricePerUnit).times('3').toFixed(4);
        line.totalCustomerPrice = money(line.customerPricePerUnit).times(line.quantity).toFixed(4);
      }
      restateTotals(november);
      const stated = common[1]!.item;
      stated.totalCustomerPrice = money(stated.totalCustomerPrice).plus('5').toFixed();
      planted = { outlier, stated };
    }, 40);
    const exceptions = await runBillingChecks(ledger, NOVEMBER, null);
    const outliers = exceptions.filter((exception) => exception.rule === 'margin-outlier');
    expect(outliers).toHaveLength(1);
    expect(outliers[0]!.message).toMatch(/^Margin \d+\.\d % on .*, where its usual margin this month is [\d.]+ % \(median of \d+ organizations in \w{3}\)\.$/);
    const statedRules = exceptions.filter((exception) => exception.rule === 'stated-total-differs');
    // The subscription's own stated total, and its service's (which no longer equals the sum of its subscriptions).
    expect(statedRules.map((exception) => exception.subscriptionId)).toEqual(
      [null, planted!.stated.subscriptionId].filter((id) => statedRules.length === 2 || id !== null),
    );
    expect(statedRules.every((exception) => /sales stated [\d.]+ \w{3}, lines sum to [\d.]+ \w{3}/.test(exception.message))).toBe(true);
    expect(exceptions.map((exception) => exception.rule).filter((rule) => rule !== 'stated-total-differs')).toEqual(['margin-outlier']);
  });

  it('flag a metered subscription billed for another quantity than Closebook submitted for the period, and not one billed as submitted', async () => {
    let planted: { differs: WireItem; equal: WireItem; addon: WireItem; otherBatches: WireItem } | undefined;
    const { ledger } = await month((november) => {
      const [differs, equal, addon, otherBatches] = plainItems(november).map(({ item }) => item) as [WireItem, WireItem, WireItem, WireItem];
      planted = { differs, equal, addon, otherBatches };
    });
    const billed = (item: WireItem) => (item.products[0] as WireItem['products'][number]).quantity;
    const { differs, equal, addon, otherBatches } = planted!;
    const history = consumptionHistory([
      // Counted: Successful, this profile, a period within November; the quantities of one subscription add up.
      batch('a.csv', 'Successful', NOVEMBER_PERIOD, [record(differs, billed(differs)), record(differs, 1.5), record(equal, billed(equal))]),
      batch('b.csv', 'Successful', { startDate: '2026-11-01', endDate: '2026-11-15' }, [record(equal, 0)]),
      // Not counted: an add-on, a batch that failed, one for October, one without a period, one of another profile.
      batch('c.csv', 'Successful', NOVEMBER_PERIOD, [{ ...record(addon, billed(addon) + 7), isAddon: true, addonId: '77777777-7777-4777-8777-777777777777' }]),
      batch('d.csv', 'Failed', NOVEMBER_PERIOD, [record(otherBatches, billed(otherBatches) + 1)]),
      batch('e.csv', 'Successful', { startDate: '2026-10-01', endDate: '2026-10-31' }, [record(otherBatches, billed(otherBatches) + 1)]),
      batch('f.csv', 'Successful', undefined, [record(otherBatches, billed(otherBatches) + 1)]),
      { ...batch('g.csv', 'Successful', NOVEMBER_PERIOD, [record(otherBatches, billed(otherBatches) + 1)]), profileId: 'another' },
    ]);
    const exceptions = await runBillingChecks(ledger, NOVEMBER, OCTOBER, undefined, history);
    expect(exceptions.map((exception) => [exception.rule, exception.subscriptionId])).toEqual([['consumption-differs', differs.subscriptionId]]);

    // A colleague's batch from the team ledger counts by the service it went to, whatever profile it was sent with.
    const colleague = (reseller: string, item: WireItem) => ({
      submission: { ...batch('team.csv', 'Successful', NOVEMBER_PERIOD, [record(item, billed(item) + 2)]), profileId: 'a-colleague' },
      host: 'billing.example.com',
      resellerId: reseller,
    });
    const withTeam = consumptionHistory([], [colleague('r', equal), colleague('another-reseller', otherBatches)]);
    const fromTeam = await runBillingChecks(ledger, NOVEMBER, OCTOBER, undefined, withTeam);
    expect(fromTeam.map((exception) => [exception.rule, exception.subscriptionId])).toEqual([['consumption-differs', equal.subscriptionId]]);
    const [found] = exceptions as [BillingException];
    expect(found.severity).toBe('medium');
    expect(found.message).toBe(
      `${(differs.products[0] as WireItem['products'][number]).productName}: billed quantity ${billed(differs)}, but Closebook submitted ${money(billed(differs)).plus('1.5').toFixed()} for 2026-11-01 – 2026-11-30 (batch a.csv).`,
    );
    expect(found.path).toEqual([
      expect.stringMatching(/^o:/),
      expect.stringMatching(/^s:\d+$/),
      expect.stringMatching(/^u:\d+$/),
      expect.stringMatching(/^l:\d+$/),
    ]);
    expect(await runBillingChecks(ledger, NOVEMBER, OCTOBER)).toEqual([]); // without the history, nothing
  });

  it('check consumption again when a batch succeeds after the month was checked', async () => {
    const { ledger, november } = await month();
    const { item } = plainItems(november)[0]!;
    const sent = batch('late.csv', 'Processing', NOVEMBER_PERIOD, [record(item, (item.products[0] as WireItem['products'][number]).quantity + 1)]);
    const batches = [sent];
    const close = new MonthClose(async () => ledger, consumptionHistory(batches));
    expect((await close.state(NOVEMBER)).exceptions).toEqual([]);
    batches[0] = { ...sent, state: 'Successful', updatedAt: '2026-12-02T10:00:00.000Z' };
    expect((await close.state(NOVEMBER)).exceptions.map((exception) => exception.rule)).toEqual(['consumption-differs']);
  });
});

const NOVEMBER_PERIOD = { startDate: '2026-11-01', endDate: '2026-11-30' };
let batches = 0;

function record(item: WireItem, quantity: number): Submission['records'][number] {
  return { subscriptionId: item.subscriptionId, isAddon: false, quantity };
}

function batch(fileName: string, state: Submission['state'], period: Submission['period'], records: Submission['records']): Submission {
  const id = `33333333-3333-4333-8333-${String(++batches).padStart(12, '0')}`;
  return {
    id,
    profileId: 'p',
    profileName: 'Prod',
    fileName,
    contentHash: id,
    ...(period ? { period } : {}),
    rows: [],
    records,
    taskId: id,
    statusUrl: null,
    state,
    message: null,
    failures: [],
    createdAt: '2026-12-01T09:00:00.000Z',
    updatedAt: '2026-12-01T09:05:00.000Z',
    polls: 1,
    nextPollAt: null,
  };
}

/** The consumption history as the consumption module gives it: an index of summaries, and each batch whole. */
/** `shared`: colleagues' batches from the team ledger, each with the service (host, reseller) it went to. */
function consumptionHistory(submissions: Submission[], shared: { submission: Submission; host: string; resellerId: string }[] = []): ConsumptionHistory {
  const all = [...submissions, ...shared.map((batch) => batch.submission)];
  return {
    history: async () => [
      ...submissions.map(summarize),
      ...shared.map(({ submission, host, resellerId }) => ({ ...summarize(submission), service: { host, resellerId } })),
    ],
    get: async (id) => all.find((submission) => submission.id === id)!,
  };
}
