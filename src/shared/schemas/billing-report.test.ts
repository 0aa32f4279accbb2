import { describe, expect, it } from 'vitest';
import { ReportPoll } from './billing-report';

const line = { productName: 'P', productId: 'p1', itemCode: 'IC', quantity: 2, resellerPricePerUnit: '1.5', customerPricePerUnit: '2.0', totalResellerPrice: '3.00', totalCustomerPrice: '4.00', itemDetails: '' };
const entry = {
  billingDate: '2026-10-07T00:00:00',
  billingContentStartDate: '2026-10-01T00:00:00',
  billingContentEndDate: '2026-10-31T00:00:00',
  organizations: [
    {
      name: 'Org',
      customerNumber: 'C-1',
      orgId: 'o1',
      organizationGroups: ['G'],
      services: [{ serviceName: 'S', serviceId: 's1', totalResellerPrice: '3.00', totalCustomerPrice: '4.00', currencyCode: 'SEK', customerCurrencyCode: 'SEK', items: [{ itemName: 'I', subscriptionId: 'i1', poNumber: '', quantity: 2, totalResellerPrice: '3.00', totalCustomerPrice: '4.00', resellerPricePerUnit: '1.5', customerPricePerUnit: '2.0', products: [line] }] }],
    },
  ],
};

describe('ReportPoll', () => {
  it('reads a running report: status 0 with null data, as number or string, bare or wrapped', () => {
    for (const body of [{ status: 0, data: null }, { status: '0', data: null }, [{ status: 0, data: null }], { status: 0 }]) {
      expect(ReportPoll.parse(body)).toEqual({ status: 0, entries: null });
    }
  });

  it('reads a complete report in both shapes and keeps money as exact strings', () => {
    for (const body of [{ status: 5, data: [entry] }, [{ status: '5', data: [entry] }]]) {
      const poll = ReportPoll.parse(body);
      expect(poll.status).toBe(5);
      expect(poll.entries?.[0]?.organizations[0]?.services[0]?.items[0]?.products[0]?.totalResellerPrice).toBe('3.00');
    }
  });

  it('passes an unknown status through for the job to handle', () => {
    expect(ReportPoll.parse({ status: 3, data: null })).toEqual({ status: 3, entries: null });
  });

  it('fails a bad payload with the path of the bad field', () => {
    const bad = structuredClone(entry);
    (bad.organizations[0]!.services[0]!.items[0]!.products[0] as Record<string, unknown>).totalCustomerPrice = '12,50';
    const result = ReportPoll.safeParse({ status: 5, data: [bad] });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path.join('.')).toBe('data.0.organizations.0.services.0.items.0.products.0.totalCustomerPrice');
  });

  it('refuses a complete status with no data, and a status that is not a number', () => {
    expect(ReportPoll.safeParse({ status: 5, data: null }).success).toBe(false);
    expect(ReportPoll.safeParse({ status: 'done', data: null }).success).toBe(false);
    expect(ReportPoll.safeParse([{ status: 0 }, { status: 0 }]).success).toBe(false);
  });

  it('reads a missing customer currency as the service currency', () => {
    const noCustomerCurrency = structuredClone(entry) as unknown as { organizations: { services: Record<string, unknown>[] }[] };
    delete noCustomerCurrency.organizations[0]!.services[0]!.customerCurrencyCode;
    const poll = ReportPoll.parse({ status: 5, data: [noCustomerCurrency] });
    expect(poll.entries?.[0]?.organizations[0]?.services[0]?.customerCurrencyCode).toBe('SEK');
  });
});
