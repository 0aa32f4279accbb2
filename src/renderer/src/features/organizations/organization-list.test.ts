import { describe, expect, it } from 'vitest';
import type { OrganizationSummary } from '@shared/schemas/organization';
import { customerNumberHolder, missingFromList } from './organization-list';

const listed: OrganizationSummary[] = [{ orgId: 'a', name: 'Aurora AB', customerNumber: 'C-1000' }];
const inReport = {
  reportId: 'r',
  reportName: 'Billing 2026-10 · Acme',
  organizations: [
    { orgId: 'a', name: 'Aurora AB', customerNumber: 'C-1000' },
    { orgId: 'b', name: 'Birch Oy', customerNumber: 'C-1001' },
    { orgId: '', name: 'No Id Ltd', customerNumber: 'C-1002' },
  ],
};

describe("the service's list beside the newest saved month", () => {
  it('finds what the month bills that the list lacks, by id, or by customer number without one', () => {
    expect(missingFromList(listed, inReport.organizations).map((organization) => organization.name)).toEqual(['Birch Oy', 'No Id Ltd']);
    expect(missingFromList([...listed, { orgId: 'x', name: 'No Id Ltd', customerNumber: 'c-1002' }], inReport.organizations)).toHaveLength(1);
  });

  it("names who has a customer number already, in any case and spacing: the list's first, then the month's", () => {
    expect(customerNumberHolder(' c-1000 ', listed, inReport)).toEqual({ name: 'Aurora AB', where: "in the service's list" });
    expect(customerNumberHolder('C-1001', listed, inReport)).toEqual({ name: 'Birch Oy', where: 'billed in Billing 2026-10 · Acme' });
    expect(customerNumberHolder('C-2000', listed, inReport)).toBeNull();
    expect(customerNumberHolder('', listed, inReport)).toBeNull();
  });
});
