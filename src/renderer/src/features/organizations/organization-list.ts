import type { OrganizationSummary } from '@shared/schemas/organization';

export type OrganizationSortKey = 'name' | 'customerNumber' | 'countryCode' | 'primaryDomain' | 'contactEmail';
export interface OrganizationSort {
  key: OrganizationSortKey;
  direction: 'asc' | 'desc';
}

const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });

/** Search (name, customer number, domain, e-mail, city, groups) then sort; the UI shows "N of M". */
export function visibleOrganizations(organizations: OrganizationSummary[], query: string, sort: OrganizationSort): OrganizationSummary[] {
  const words = query.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const matches = words.length
    ? organizations.filter((organization) => {
        const haystack = [
          organization.name,
          organization.customerNumber,
          organization.primaryDomain,
          organization.contactEmail,
          organization.city,
          ...(organization.organizationGroups ?? []),
        ]
          .filter(Boolean)
          .join(' ')
          .toLowerCase();
        return words.every((word) => haystack.includes(word));
      })
    : organizations;
  const factor = sort.direction === 'asc' ? 1 : -1;
  return [...matches].sort((a, b) => factor * collator.compare(a[sort.key] ?? '', b[sort.key] ?? ''));
}
