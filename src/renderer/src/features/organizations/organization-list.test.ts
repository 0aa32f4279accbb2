import { describe, expect, it } from 'vitest';
import type { OrganizationSummary } from '@shared/schemas/organization';
import { customerNumberHolder, missingFromList, visibleOrganizations } from './organization-list';

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

describe('the organizations list', () => {
  const organizations: OrganizationSummary[] = [
    { orgId: '1', name: 'Åkerberg AB', customerNumber: 'C-10', city: 'Umeå' },
    { orgId: '2', name: 'Zeta Oy', customerNumber: 'C-9' },
    { orgId: '3', name: 'Alpha AS', customerNumber: 'C-100' },
  ];
  const names = (order: 'sv' | 'en', direction: 'asc' | 'desc' = 'asc') =>
    visibleOrganizations(organizations, '', { key: 'name', direction }, order).map((organization) => organization.name);

  it('sorts names in the profile’s order: Å after Z in Swedish, among the A’s in English; numbers by value', () => {
    expect(names('sv')).toEqual(['Alpha AS', 'Zeta Oy', 'Åkerberg AB']);
    expect(names('sv', 'desc')).toEqual(['Åkerberg AB', 'Zeta Oy', 'Alpha AS']);
    expect(names('en')).toEqual(['Åkerberg AB', 'Alpha AS', 'Zeta Oy']);
    const numbers = visibleOrganizations(organizations, '', { key: 'customerNumber', direction: 'asc' }, 'sv').map(
      (organization) => organization.customerNumber,
    );
    expect(numbers).toEqual(['C-9', 'C-10', 'C-100']);
  });

  it('finds without diacritics, in any field it searches', () => {
    expect(visibleOrganizations(organizations, 'umea', { key: 'name', direction: 'asc' }, 'sv').map((organization) => organization.orgId)).toEqual(['1']);
  });
});
