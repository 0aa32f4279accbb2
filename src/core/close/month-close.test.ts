import { afterEach, describe, expect, it } from 'vitest';
import { money } from '@shared/money';
import { ledgerWithMonth, type ServedEntries, testIdentity } from '@testing/ledger-month';
import type { Ledger } from '../ledger/ledger';
import { ingestReport } from '../reports/report-ingest';
import { MonthClose } from './month-close';

const OCTOBER = '11111111-1111-4111-8111-000000000010';
const NOVEMBER = '11111111-1111-4111-8111-000000000011';
const NOVEMBER_AGAIN = '11111111-1111-4111-8111-000000000012';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const actor = (name = 'Maria Lind', at = '2026-12-08T09:00:00.000Z') => ({ name, osUser: 'mlind', at });
const NOVEMBER_PERIOD = { startDate: '2026-11-01', endDate: '2026-11-30' };

async function save(ledger: Ledger, reportId: string, entries: ServedEntries, fetchedAt: string) {
  async function* body() {
    yield JSON.stringify({ status: 5, data: entries });
  }
  await ingestReport(ledger, testIdentity(reportId, { period: NOVEMBER_PERIOD, fetchedAt }), body());
}

/** October, and November with one organization without a customer number and one subscription sold below cost. */
async function months() {
  const october = await ledgerWithMonth({ reportId: OCTOBER, seed: 5, organizations: 10, linesPerOrganization: 6 });
  cleanups.push(october.close);
  const november = structuredClone(october.entries);
  const organization = november[0]!.organizations[0]!;
  for (const entry of november) for (const candidate of entry.organizations) if (candidate.orgId === organization.orgId) candidate.customerNumber = '';
  const item = november.flatMap((entry) =>
    entry.organizations.flatMap((o) => o.services.filter((s) => s.currencyCode === s.customerCurrencyCode).flatMap((s) => s.items)),
  )[3]!;
  for (const line of item.products) {
    line.customerPricePerUnit = money(line.resellerPricePerUnit).minus('0.5').toFixed();
    line.totalCustomerPrice = money(line.customerPricePerUnit).times(line.quantity).toFixed();
  }
  item.totalCustomerPrice = item.products.reduce((sum, line) => sum.plus(line.totalCustomerPrice), money(0)).toFixed();
  const service = november.flatMap((entry) => entry.organizations.flatMap((o) => o.services)).find((s) => s.items.includes(item))!;
  service.totalCustomerPrice = service.items.reduce((sum, candidate) => sum.plus(candidate.totalCustomerPrice), money(0)).toFixed();
  await save(october.ledger, NOVEMBER, november, '2026-12-07T08:00:00.000Z');
  return { ledger: october.ledger, november, close: new MonthClose(async () => october.ledger) };
}

describe('closing a month', () => {
  it('reviews each exception, signs off only when nothing is open, and locks the reviews until reopened with a reason', async () => {
    const { close } = await months();
    const state = await close.state(NOVEMBER);
    expect(state.previousReportId).toBe(OCTOBER);
    // The price cut is also a unit price change since October.
    expect(state.exceptions.map((exception) => exception.rule).sort()).toEqual(['missing-customer-number', 'negative-margin', 'unit-price-changed']);
    expect(state.open).toEqual({ high: 2, medium: 0, low: 1 });
    const [first, second, third] = state.exceptions as [
      (typeof state.exceptions)[number],
      (typeof state.exceptions)[number],
      (typeof state.exceptions)[number],
    ];
    await close.setReview(NOVEMBER, [third.id], 'accepted', 'Promotion.', actor());

    await expect(close.setReview(NOVEMBER, [first.id], 'accepted', ' ', actor())).rejects.toMatchObject({ code: 'validation' });
    await close.setReview(NOVEMBER, [first.id], 'accepted', 'Agreed promotional price until January.', actor());
    await expect(close.signOff(NOVEMBER, actor())).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/1 exception is still open/) });
    await close.setReview(NOVEMBER, [second.id], 'resolved', 'Customer number added in the service.', actor());

    const signed = await close.signOff(NOVEMBER, actor('Maria Lind', '2026-12-08T10:00:00.000Z'));
    expect(signed).toMatchObject({ reportId: NOVEMBER, signedBy: 'Maria Lind', osUser: 'mlind', contentHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const after = await close.state(NOVEMBER);
    expect(after.signOff).toEqual(signed);
    expect(after.exceptions.map((exception) => exception.review?.state).sort()).toEqual(['accepted', 'accepted', 'resolved']);
    await expect(close.setReview(NOVEMBER, [first.id], 'open', '', actor())).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/locked/),
    });

    await expect(close.reopen(NOVEMBER, '', actor())).rejects.toMatchObject({ code: 'validation' });
    await close.reopen(NOVEMBER, 'The vendor restated the month.', actor());
    expect((await close.state(NOVEMBER)).signOff).toBeNull();
    await close.setReview(NOVEMBER, [first.id], 'open', '', actor());
    expect((await close.state(NOVEMBER)).open.high).toBe(1);
    // Every change is in the append-only log, the reopening with its reason.
    expect((await close.log(NOVEMBER)).map((entry) => entry.action)).toEqual(['accepted', 'accepted', 'resolved', 'reopened', 'open']);
  });

  it('reviews a group in one transaction: each exception gets the review and a log line, or none does', async () => {
    const { close } = await months();
    const ids = (await close.state(NOVEMBER)).exceptions.map((exception) => exception.id);
    expect(ids.length).toBeGreaterThan(2);
    // A note is needed to accept: the whole group is refused, none is half-reviewed.
    await expect(close.setReview(NOVEMBER, ids, 'accepted', ' ', actor())).rejects.toMatchObject({ code: 'validation' });
    expect((await close.state(NOVEMBER)).exceptions.every((exception) => !exception.review)).toBe(true);

    const reviewed = await close.setReview(NOVEMBER, [...ids, ids[0]!], 'accepted', 'Price list of 1 November.', actor());
    expect(reviewed.map((review) => review.exceptionId)).toEqual(ids); // once each
    const state = await close.state(NOVEMBER);
    expect(state.exceptions.map((exception) => exception.review?.note)).toEqual(ids.map(() => 'Price list of 1 November.'));
    expect(state.open).toEqual({ high: 0, medium: 0, low: 0 });
    expect((await close.log(NOVEMBER)).map((line) => line.exceptionId)).toEqual(ids);
  });

  it('keeps reviews through a refetch of the month, and shows what the service changed since sign-off', async () => {
    const { ledger, november, close } = await months();
    for (const exception of (await close.state(NOVEMBER)).exceptions)
      await close.setReview(NOVEMBER, [exception.id], 'accepted', 'Checked with the account manager.', actor());
    const signed = await close.signOff(NOVEMBER, actor());

    const restated = structuredClone(november);
    // A small change of quantity (no new exception), in a line of its own.
    const line = restated
      .flatMap((entry) =>
        entry.organizations.flatMap((o) => o.services.flatMap((s) => s.items.filter((item) => item.products.length === 1).map((item) => item.products[0]!))),
      )
      .find((candidate) => candidate.quantity >= 20)!;
    line.quantity += 1;
    line.totalCustomerPrice = money(line.customerPricePerUnit).times(line.quantity).toFixed();
    line.totalResellerPrice = money(line.resellerPricePerUnit).times(line.quantity).toFixed();
    for (const service of restated.flatMap((entry) => entry.organizations.flatMap((o) => o.services))) {
      for (const item of service.items) {
        item.quantity = Number(item.products.reduce((sum, product) => sum.plus(product.quantity), money(0)).toString());
        item.totalCustomerPrice = item.products.reduce((sum, product) => sum.plus(product.totalCustomerPrice), money(0)).toFixed();
        item.totalResellerPrice = item.products.reduce((sum, product) => sum.plus(product.totalResellerPrice), money(0)).toFixed();
      }
      service.totalCustomerPrice = service.items.reduce((sum, item) => sum.plus(item.totalCustomerPrice), money(0)).toFixed();
      service.totalResellerPrice = service.items.reduce((sum, item) => sum.plus(item.totalResellerPrice), money(0)).toFixed();
    }
    await save(ledger, NOVEMBER_AGAIN, restated, '2026-12-09T08:00:00.000Z');

    const again = await close.state(NOVEMBER_AGAIN);
    expect(again.exceptions.map((exception) => [exception.rule, exception.review?.state])).toEqual(
      (await close.state(NOVEMBER)).exceptions.map((exception) => [exception.rule, 'accepted']),
    );
    expect(again.signOff).toEqual(signed);
    expect(again.restatement).toMatchObject({
      signedReportId: NOVEMBER,
      hashChanged: true,
      changes: [expect.objectContaining({ kind: 'quantity', productId: line.productId })],
    });
    expect((await close.state(NOVEMBER)).superseded).toBe(true);
    expect(again.superseded).toBe(false);
  });
});
