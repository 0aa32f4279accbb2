import { foldForSearch } from '@shared/search-fold';
import { collationOf, type NameOrder } from '@shared/model/name-order';
import type { OrganizationsInReport, OrganizationSummary } from '@shared/schemas/organization';

export type OrganizationSortKey = 'name' | 'customerNumber' | 'countryCode' | 'primaryDomain' | 'contactEmail';
export interface OrganizationSort {
  key: OrganizationSortKey;
  direction: 'asc' | 'desc';
}

/**
 * Search (name, customer number, domain, e-mail, city, groups) then sort, in the profile's name order (as its months'
 * lists are; numbers by value, C-9 before C-10); the UI shows "N of M".
 */
export function visibleOrganizations(organizations: OrganizationSummary[], query: string, sort: OrganizationSort, order: NameOrder): OrganizationSummary[] {
  const words = foldForSearch(query.trim()).split(/\s+/).filter(Boolean);
  const matches = words.length
    ? organizations.filter((organization) => {
        const haystack = foldForSearch(
          [
            organization.name,
            organization.customerNumber,
            organization.primaryDomain,
            organization.contactEmail,
            organization.city,
            ...(organization.organizationGroups ?? []),
          ]
            .filter(Boolean)
            .join(' '),
        );
        return words.every((word) => haystack.includes(word));
      })
    : organizations;
  const factor = sort.direction === 'asc' ? 1 : -1;
  const collator = new Intl.Collator(collationOf(order), { sensitivity: 'base' });
  return [...matches].sort((a, b) => factor * collator.compare(a[sort.key] ?? '', b[sort.key] ?? ''));
}

type BilledOrganization = OrganizationsInReport['organizations'][number];

/** The organizations a saved month bills that the service's list does not hold (by id; by customer number without one). */
export function missingFromList(listed: OrganizationSummary[], billed: BilledOrganization[]): BilledOrganization[] {
  const ids = new Set(listed.map((organization) => organization.orgId));
  const numbers = new Set(listed.flatMap((organization) => (organization.customerNumber ? [organization.customerNumber.trim().toLowerCase()] : [])));
  return billed.filter((organization) => (organization.orgId ? !ids.has(organization.orgId) : !numbers.has(organization.customerNumber.trim().toLowerCase())));
}

/** Who already has a customer number (in any case), and where it was seen: the service's list first, else the saved month. */
export function customerNumberHolder(
  customerNumber: string,
  listed: OrganizationSummary[],
  inReport: OrganizationsInReport | null,
): { name: string; where: string } | null {
  const wanted = customerNumber.trim().toLowerCase();
  if (!wanted) return null;
  const same = (number: string | undefined) => (number ?? '').trim().toLowerCase() === wanted;
  const onList = listed.find((organization) => same(organization.customerNumber));
  if (onList) return { name: onList.name, where: "in the service's list" };
  const billed = inReport?.organizations.find((organization) => same(organization.customerNumber));
  return billed && inReport ? { name: billed.name, where: `billed in ${inReport.reportName}` } : null;
}
