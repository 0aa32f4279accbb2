import { describe, expect, it } from 'vitest';
import { fromUnits, toUnits } from './fixed-decimal';
import { Money } from './money';
import { buildReportModel, buildTree, currencyTotals, filterLines, marginPercentOf, sortTree } from './report-model';
import type { BillingEntry } from './schemas/billing-report';

function product(cost: string, sales: string, name = 'Line') {
  return { productName: name, productId: `p-${name}`, itemCode: `IC-${name}`, quantity: 1, resellerPricePerUnit: cost, customerPricePerUnit: sales, totalResellerPrice: cost, totalCustomerPrice: sales, itemDetails: '' };
}

function service(name: string, currency: string, customerCurrency: string, products: ReturnType<typeof product>[], statedCost?: string) {
  const cost = products.reduce((sum, p) => sum.plus(p.totalResellerPrice), new Money(0)).toFixed();
  const sales = products.reduce((sum, p) => sum.plus(p.totalCustomerPrice), new Money(0)).toFixed();
  return {
    serviceName: name,
    serviceId: `s-${name}`,
    totalResellerPrice: statedCost ?? cost,
    totalCustomerPrice: sales,
    currencyCode: currency,
    customerCurrencyCode: customerCurrency,
    items: [{ itemName: `${name} sub`, subscriptionId: `sub-${name}`, poNumber: 'PO-1', quantity: products.length, totalResellerPrice: cost, totalCustomerPrice: sales, resellerPricePerUnit: null, customerPricePerUnit: null, products }],
  };
}

const entries: BillingEntry[] = [
  {
    billingDate: '2026-10-07T00:00:00',
    billingContentStartDate: '',
    billingContentEndDate: '',
    organizations: [
      { name: 'Alpha AB', customerNumber: 'C-1', orgId: 'a', organizationGroups: ['CC-1', 'AM Anna'], services: [service('M365', 'SEK', 'SEK', [product('0.1', '0.2', 'x'), product('0.2', '0.3', 'y')]), service('Backup', 'USD', 'SEK', [product('10.0001', '120.50')])] },
      { name: 'Beta AS', customerNumber: 'C-2', orgId: 'b', organizationGroups: ['CC-2', 'AM Anna'], services: [service('M365', 'NOK', 'NOK', [product('1.005', '1.115')], '1.01')] },
    ],
  },
];

describe('fixed decimals', () => {
  it('round-trips exactly at a scale, including negatives', () => {
    expect(fromUnits(toUnits('0.1', 4) + toUnits('0.2', 4), 4)).toBe('0.30');
    expect(fromUnits(toUnits('-12.3456', 4), 4)).toBe('-12.3456');
    expect(fromUnits(toUnits('7', 3), 3)).toBe('7.00');
    expect(() => toUnits('1.23456', 4)).toThrow();
  });
});

describe('report model', () => {
  const model = buildReportModel(entries);

  it('sums exactly per currency and never adds two currencies', () => {
    expect(currencyTotals(model.lines, model.scale)).toEqual([
      { currency: 'NOK', cost: '1.005', sales: '1.115', margin: '0.11' },
      { currency: 'SEK', cost: '0.30', sales: '0.50', margin: '0.20' },
      { currency: 'USD→SEK', cost: '10.0001', sales: '120.50', margin: '' },
    ]);
  });

  it('flags a stated total that differs from the sum of its parts, with both figures', () => {
    const beta = model.lines.find((line) => line.organization.name === 'Beta AS');
    expect(beta?.service.mismatch).toEqual({ statedCost: '1.01', statedSales: '1.115', sumCost: '1.005', sumSales: '1.115' });
    expect(model.lines.find((line) => line.organization.name === 'Alpha AB')?.service.mismatch).toBeNull();
  });

  it('filters by group, organization, service, currency and free text', () => {
    expect(filterLines(model, { group: 'CC-2' }).map((line) => line.organization.name)).toEqual(['Beta AS']);
    expect(filterLines(model, { group: 'AM Anna' })).toHaveLength(4);
    expect(filterLines(model, { organization: 'c-1' })).toHaveLength(3);
    expect(filterLines(model, { service: 'Backup' })).toHaveLength(1);
    expect(filterLines(model, { currency: 'USD→SEK' })).toHaveLength(1);
    expect(filterLines(model, { text: 'ic-y po-1' }).map((line) => line.productName)).toEqual(['y']);
    expect(filterLines(model, {})).toBe(model.lines);
  });

  it('builds organization (per currency) › service › subscription › line with totals at every level', () => {
    const tree = buildTree(model.lines);
    expect(tree.map((node) => `${node.label} ${node.currencyKey}`)).toEqual(['Alpha AB SEK', 'Alpha AB USD→SEK', 'Beta AS NOK']);
    const alpha = tree[0]!;
    expect(fromUnits(alpha.cost, model.scale)).toBe('0.30');
    expect(alpha.children[0]?.level).toBe('service');
    expect(alpha.children[0]?.children[0]?.level).toBe('subscription');
    expect(alpha.children[0]?.children[0]?.children.map((leaf) => leaf.label)).toEqual(['x', 'y']);
    expect(alpha.lines).toBe(2);
  });

  it('sorts every level by a column', () => {
    const tree = sortTree(buildTree(model.lines), { key: 'sales', direction: 'desc' });
    expect(tree[0]?.label).toBe('Alpha AB');
    expect(tree[0]?.currencyKey).toBe('USD→SEK');
    const byCost = sortTree(buildTree(model.lines), { key: 'cost', direction: 'desc' });
    expect(byCost.map((node) => node.currencyKey)).toEqual(['USD→SEK', 'NOK', 'SEK']);
    const leaves = byCost.find((node) => node.currencyKey === 'SEK')?.children[0]?.children[0]?.children;
    expect(leaves?.map((leaf) => leaf.label)).toEqual(['y', 'x']);
  });

  it('gives margin % only for one currency and when there are sales', () => {
    expect(marginPercentOf({ cost: toUnits('75', 4), sales: toUnits('100', 4) }, 'SEK', 4)).toBe('25.00');
    expect(marginPercentOf({ cost: 1n, sales: 0n }, 'SEK', 4)).toBe('');
    expect(marginPercentOf({ cost: 1n, sales: 2n }, 'USD→SEK', 4)).toBe('');
  });
});
