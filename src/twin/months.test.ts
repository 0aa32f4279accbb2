import { afterEach, describe, expect, it } from 'vitest';
import { Money } from '@shared/money';
import type { WireBillingEntry, WireOrganization, WireProduct } from './billing-report';
import { generateOrganizations } from './dataset';
import { plantedChanges, type PlantedTarget } from './planted';
import { startTwin, type Twin, type TwinOptions } from './server';

const twins: Twin[] = [];
afterEach(async () => {
  while (twins.length) await twins.pop()?.close();
});

async function twinOf(options: TwinOptions = {}): Promise<Twin> {
  const twin = await startTwin({ reportReadyAfterMs: 0, reportReadyAfterPolls: 0, reportShape: 'bare', statusType: 'number', organizations: 30, ...options });
  twins.push(twin);
  return twin;
}

/** A month's report as the twin serves it, through its HTTP interface. */
async function fetchMonth(twin: Twin, month: string): Promise<WireBillingEntry[]> {
  const c = twin.credentials;
  const signIn = await fetch(`${twin.baseUrl}/connect/token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`${c.clientId}:${c.apiSecret}`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: c.clientId, grant_type: 'password', username: c.username, password: c.password, scope: 'api' }).toString(),
  });
  const { access_token: token } = (await signIn.json()) as { access_token: string };
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  const [year, number] = month.split('-').map(Number) as [number, number];
  const endDate = new Date(Date.UTC(year, number, 0)).toISOString().slice(0, 10);
  const start = await fetch(`${twin.baseUrl}/api/resellers/${c.resellerId}/billing/reports/MonthlyBillingPerOrganizationAsync`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ startDate: `${month}-01`, endDate }),
  });
  const body = (await (await fetch(start.headers.get('location') ?? '', { headers })).json()) as { status: number; data: WireBillingEntry[] };
  expect(body.status).toBe(5);
  return body.data;
}

interface Line {
  organization: WireOrganization;
  subscriptionId: string;
  line: WireProduct;
}

/** Every billing line by subscription and product id. */
function linesOf(entries: WireBillingEntry[]): Map<string, Line> {
  const lines = new Map<string, Line>();
  for (const organization of entries.flatMap((entry) => entry.organizations))
    for (const service of organization.services)
      for (const item of service.items)
        for (const line of item.products) lines.set(`${item.subscriptionId}|${line.productId}`, { organization, subscriptionId: item.subscriptionId, line });
  return lines;
}

const keyOf = (target: PlantedTarget | null) => `${target?.subscriptionId}|${target?.productId}`;
const subscriptionsOf = (lines: Map<string, Line>) => new Set([...lines.values()].map((line) => line.subscriptionId));
const metered = (line: WireProduct) => line.itemDetails.startsWith('Usage ');

describe("the twin's months", () => {
  it('keeps the same subscriptions, licences and unit prices month to month, varying usage by at most ±10 %', async () => {
    const twin = await twinOf({ plant: false });
    const [october, november] = [linesOf(await fetchMonth(twin, '2026-10')), linesOf(await fetchMonth(twin, '2026-11'))];
    expect([...november.keys()].sort()).toEqual([...october.keys()].sort());
    let usageMoved = 0;
    for (const [key, before] of october) {
      const after = (november.get(key) as Line).line;
      expect([after.resellerPricePerUnit, after.customerPricePerUnit], key).toEqual([before.line.resellerPricePerUnit, before.line.customerPricePerUnit]);
      expect(after.totalCustomerPrice).toBe(
        new Money(after.customerPricePerUnit).times(after.quantity).toFixed(after.totalCustomerPrice.split('.')[1]?.length ?? 2),
      );
      if (!metered(before.line)) expect(after.quantity, key).toBe(before.line.quantity);
      else if (before.line.quantity > 0) {
        // Both months are within ±10 % of the usual usage, so one is within 0.9/1.1 … 1.1/0.9 of the other.
        const ratio = after.quantity / before.line.quantity;
        expect(ratio).toBeGreaterThanOrEqual(0.9 / 1.1 - 0.001);
        expect(ratio).toBeLessThanOrEqual(1.1 / 0.9 + 0.001);
        if (after.quantity !== before.line.quantity) usageMoved++;
      }
    }
    expect(usageMoved).toBeGreaterThan(10);
    const { period, restatement, unchanged, ...planted } = twin.plantedChanges('2026-11');
    expect([period, restatement?.subscriptionId, unchanged?.subscriptionId]).toEqual(['2026-11', expect.any(String), expect.any(String)]);
    expect(Object.values(planted).every((value) => value === null)).toBe(true);
  });

  it('plants in each month what plantedChanges says, and nothing else changes but usage and last month’s anomalies', async () => {
    const twin = await twinOf();
    const [october, november] = [linesOf(await fetchMonth(twin, '2026-10')), linesOf(await fetchMonth(twin, '2026-11'))];
    const planted = plantedChanges({ seed: 42, organizations: generateOrganizations({ seed: 42, organizations: 30, linesPerOrganization: 10 }) }, '2026-11');
    expect(planted).toEqual(twin.plantedChanges('2026-11')); // the same from the data set alone, as a test in another process needs
    const previous = twin.plantedChanges('2026-10');

    // Churn: exactly the planted subscriptions come and go.
    const [was, is] = [subscriptionsOf(october), subscriptionsOf(november)];
    expect([...is].filter((id) => !was.has(id))).toEqual([planted.newSubscription?.subscriptionId]);
    expect([...was].filter((id) => !is.has(id))).toEqual([planted.lostSubscription?.subscriptionId]);
    expect([...november.values()].filter((line) => line.subscriptionId === planted.newSubscription?.subscriptionId).map((line) => line.line.productId)).toEqual(
      [planted.newSubscription?.productId],
    );

    // Kept changes: a unit price raised 5 %, a quantity doubled.
    const price = [october.get(keyOf(planted.unitPriceChange))!.line, november.get(keyOf(planted.unitPriceChange))!.line] as const;
    expect(new Money(price[1].resellerPricePerUnit).dividedBy(price[0].resellerPricePerUnit).toDecimalPlaces(2).toFixed(2)).toBe('1.05');
    expect(price[1].quantity).toBe(price[0].quantity);
    const quantity = [october.get(keyOf(planted.quantityJump))!.line, november.get(keyOf(planted.quantityJump))!.line] as const;
    expect(quantity[1].quantity).toBe(quantity[0].quantity * 2);

    // Anomalies of this month.
    const subscriptionLines = (id: string | undefined) => [...november.values()].filter((line) => line.subscriptionId === id).map((line) => line.line);
    const sum = (lines: WireProduct[], field: 'totalCustomerPrice' | 'totalResellerPrice') =>
      lines.reduce((total, line) => total.plus(line[field]), new Money(0));
    const belowCost = subscriptionLines(planted.negativeMargin?.subscriptionId);
    expect(sum(belowCost, 'totalCustomerPrice').lt(sum(belowCost, 'totalResellerPrice'))).toBe(true);
    const unbilled = subscriptionLines(planted.costWithoutSales?.subscriptionId);
    expect([sum(unbilled, 'totalCustomerPrice').isZero(), sum(unbilled, 'totalResellerPrice').gt(0)]).toEqual([true, true]);
    const off = november.get(keyOf(planted.lineTotalMismatch))!.line;
    expect(new Money(off.customerPricePerUnit).times(off.quantity + 1).eq(off.totalCustomerPrice)).toBe(true);
    const noNumber = [...november.values()].filter((line) => line.organization.orgId === planted.missingCustomerNumber?.orgId);
    expect(noNumber.length).toBeGreaterThan(0);
    expect(noNumber.every((line) => line.organization.customerNumber === '')).toBe(true);
    expect(
      [...november.values()].every((line) => line.organization.customerNumber !== '' || line.organization.orgId === planted.missingCustomerNumber?.orgId),
    ).toBe(true);
    expect([...october.values()].find((line) => line.organization.orgId === planted.missingCustomerNumber?.orgId)?.organization.customerNumber).toMatch(
      /^C-\d+$/,
    );

    // Every other licence line is the same as last month, but where last month's anomalies were put right.
    const explained = new Set(
      [
        planted.unitPriceChange,
        planted.quantityJump,
        planted.negativeMargin,
        planted.costWithoutSales,
        planted.lineTotalMismatch,
        previous.negativeMargin,
        previous.costWithoutSales,
        previous.lineTotalMismatch,
      ].map((target) => target?.subscriptionId),
    );
    const moved = [...november].filter(([key, after]) => {
      const before = october.get(key)?.line;
      return (
        before &&
        !metered(after.line) &&
        (before.quantity !== after.line.quantity ||
          before.totalCustomerPrice !== after.line.totalCustomerPrice ||
          before.totalResellerPrice !== after.line.totalResellerPrice)
      );
    });
    expect(moved.filter(([, line]) => !explained.has(line.subscriptionId))).toEqual([]);
    expect(moved.length).toBeGreaterThanOrEqual(5);
    const control = planted.unchanged!;
    expect(november.get(keyOf(control))?.line).toEqual(october.get(keyOf(control))?.line);
  });

  it('restates a month on request: one line gets 3 more licences and totals to match; every other line and earlier reports stay', async () => {
    const twin = await twinOf();
    const first = linesOf(await fetchMonth(twin, '2026-11'));
    twin.restate('2026-11');
    const again = linesOf(await fetchMonth(twin, '2026-11'));
    const target = twin.plantedChanges('2026-11').restatement!;
    const [before, after] = [first.get(keyOf(target))!.line, again.get(keyOf(target))!.line];
    expect(after.quantity).toBe(before.quantity + 3);
    expect(after.totalResellerPrice).toBe(new Money(after.resellerPricePerUnit).times(after.quantity).toFixed(2));
    expect(after.totalCustomerPrice).toBe(new Money(after.customerPricePerUnit).times(after.quantity).toFixed(2));
    expect([...again].filter(([key, line]) => JSON.stringify(line.line) !== JSON.stringify(first.get(key)?.line)).map(([key]) => key)).toEqual([keyOf(target)]);
    expect(linesOf(await fetchMonth(twin, '2026-10'))).toEqual(linesOf(await fetchMonth(await twinOf(), '2026-10'))); // other months are not restated
  });
});
