import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { OrganizationsInReport, OrganizationSummary } from '@shared/schemas/organization';
import { call } from '@renderer/bridge';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { countOf, formatCount } from '@renderer/components/format-number';
import { useAction } from '@renderer/hooks/use-action';
import { ifNewest, newestOnly } from '@renderer/hooks/latest-answer';
import { useActiveProfile, useAppStore } from '@renderer/stores/app-store';
import { FALLBACK_NAME_ORDER } from '@shared/model/name-order';
import { OrganizationForm } from './OrganizationForm';
import { customerNumberHolder, missingFromList, type OrganizationSort, type OrganizationSortKey, visibleOrganizations } from './organization-list';

/** The first few names (with their customer numbers), and how many more. */
function namesOf(organizations: { name: string; customerNumber: string }[]): string {
  const shown = organizations
    .slice(0, 5)
    .map((organization) => (organization.customerNumber ? `${organization.name} (${organization.customerNumber})` : organization.name));
  return organizations.length > shown.length ? `${shown.join(', ')} and ${formatCount(organizations.length - shown.length)} more` : shown.join(', ');
}

const COLUMNS: { key: OrganizationSortKey; label: string }[] = [
  { key: 'name', label: 'Name' },
  { key: 'customerNumber', label: 'Customer number' },
  { key: 'countryCode', label: 'Country' },
  { key: 'primaryDomain', label: 'Domain' },
  { key: 'contactEmail', label: 'Contact' },
];

/** The Broker's organizations: search, sort, count, and create. */
export function OrganizationsScreen(): React.JSX.Element {
  const profile = useActiveProfile();
  const go = useAppStore((state) => state.go);
  const [organizations, setOrganizations] = useState<OrganizationSummary[] | null>(null);
  const { run, busy: loading, error: failure } = useAction();
  const [query, setQuery] = useState('');
  const [sort, setSort] = useState<OrganizationSort>({ key: 'name', direction: 'asc' });
  const [creating, setCreating] = useState(false);
  // The form and the notice close into the button that opened them, not the top of the page.
  const newOrganization = useRef<HTMLButtonElement>(null);
  const [created, setCreated] = useState<OrganizationSummary | null>(null);
  const createdRow = useRef<HTMLTableRowElement>(null);

  const [inReport, setInReport] = useState<OrganizationsInReport | null>(null);

  // The profile asked about last is the one shown: a slower answer for the one before it is dropped.
  const listings = useRef(newestOnly());
  const refresh = useCallback(async () => {
    if (!profile) return;
    const request = listings.current.begin();
    // The saved month is read offline: it stands beside the list, whether or not the service answers.
    void ifNewest(request, call('organizations:in-report', { profileId: profile.id })).then(
      (month) => request.latest() && setInReport(month ?? null),
      () => request.latest() && setInReport(null),
    );
    await run(async () => {
      const listed = await ifNewest(request, call('organizations:list', { profileId: profile.id }));
      if (request.latest()) setOrganizations(listed ?? null);
    });
  }, [profile, run]);

  useEffect(() => {
    setOrganizations(null);
    void refresh();
  }, [refresh]);

  const nameOrder = profile?.namesSortedAs ?? FALLBACK_NAME_ORDER;
  const rows = useMemo(() => visibleOrganizations(organizations ?? [], query, sort, nameOrder), [organizations, query, sort, nameOrder]);
  const missing = useMemo(() => (organizations && inReport ? missingFromList(organizations, inReport.organizations) : []), [organizations, inReport]);
  const createdListed = Boolean(created && rows.some((organization) => organization.orgId === created.orgId));

  // Once the list has the new organization, bring its row into view and give it focus (it is the selected row).
  useEffect(() => {
    if (!createdListed) return;
    createdRow.current?.scrollIntoView({ block: 'center' });
    createdRow.current?.focus({ preventScroll: true });
  }, [createdListed]);

  if (!profile) {
    return (
      <section className="screen">
        <h1>Organizations</h1>
        <p>
          Choose or create a profile first.{' '}
          <button type="button" className="link" onClick={() => go('profiles')}>
            Go to Settings
          </button>
        </p>
      </section>
    );
  }

  const toggleSort = (key: OrganizationSortKey) =>
    setSort((current) => ({ key, direction: current.key === key && current.direction === 'asc' ? 'desc' : 'asc' }));

  return (
    <section className="screen organizations" aria-labelledby="organizations-title">
      <div className="screen__header">
        <h1 id="organizations-title">Organizations</h1>
        <div className="toolbar">
          <input
            type="search"
            placeholder="Search name, customer number, domain…"
            value={query}
            onChange={(event) => setQuery(event.target.value)}
            aria-label="Search organizations"
          />
          <span className="count" data-testid="organization-count">
            {organizations ? `${formatCount(rows.length)} of ${countOf(organizations.length, 'organization')}` : loading ? 'Loading…' : ''}
          </span>
          <button type="button" onClick={() => void refresh()} disabled={loading}>
            Refresh
          </button>
          <button type="button" className="primary" onClick={() => setCreating(true)} ref={newOrganization}>
            New organization
          </button>
        </div>
      </div>
      <ErrorNote message={failure} />
      {missing.length && inReport && organizations ? (
        <p className="warn-text" data-testid="organizations-missing">
          The service lists {countOf(organizations.length, 'organization')}; {inReport.reportName} bills{' '}
          {countOf(inReport.organizations.length, 'organization')}.{' '}
          {missing.length === inReport.organizations.length
            ? 'None of them is'
            : `${formatCount(missing.length)} of them ${missing.length === 1 ? 'is' : 'are'}`}{' '}
          not in its list: {namesOf(missing)}. The service's list can lag behind its billing: Refresh later, or ask the service.
        </p>
      ) : null}
      {creating ? (
        <OrganizationForm
          profileId={profile.id}
          holderOf={(customerNumber) => customerNumberHolder(customerNumber, organizations ?? [], inReport)}
          onCancel={() => {
            setCreating(false);
            newOrganization.current?.focus();
          }}
          onCreated={(organization) => {
            setCreating(false);
            setCreated(organization);
            setQuery('');
            void refresh();
          }}
        />
      ) : null}
      {created ? (
        <p className="notice notice--ok" role="status">
          Created “{created.name}”{created.customerNumber ? ` (customer number ${created.customerNumber})` : ''}.
          {organizations && !loading && !createdListed ? ' The service does not list it yet; Refresh in a moment.' : ''}
          <button
            type="button"
            className="link"
            onClick={() => {
              setCreated(null);
              newOrganization.current?.focus();
            }}
            aria-label="Dismiss"
          >
            ✕
          </button>
        </p>
      ) : null}
      {organizations ? (
        <div className="table-scroll">
          <table className="grid" aria-label="Organizations">
            <colgroup>
              <col className="col-name" />
              <col className="col-customer-number" />
              <col className="col-country" />
              <col className="col-domain" />
              <col className="col-contact" />
              <col className="col-groups" />
            </colgroup>
            <thead>
              <tr>
                {COLUMNS.map((column) => (
                  <th key={column.key} aria-sort={sort.key === column.key ? (sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'}>
                    <button type="button" className="sort" onClick={() => toggleSort(column.key)}>
                      {column.label}
                      {sort.key === column.key ? (sort.direction === 'asc' ? ' ▲' : ' ▼') : ''}
                    </button>
                  </th>
                ))}
                <th>Groups</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((organization) => (
                <tr
                  key={organization.orgId}
                  ref={organization.orgId === created?.orgId ? createdRow : undefined}
                  className={organization.orgId === created?.orgId ? 'row--new' : undefined}
                  aria-selected={organization.orgId === created?.orgId ? true : undefined}
                  tabIndex={organization.orgId === created?.orgId ? -1 : undefined}
                >
                  <td title={organization.name}>{organization.name}</td>
                  <td className="mono">{organization.customerNumber ?? ''}</td>
                  <td>{organization.countryCode ?? ''}</td>
                  <td title={organization.primaryDomain}>{organization.primaryDomain ?? ''}</td>
                  <td title={organization.contactEmail}>{organization.contactEmail ?? ''}</td>
                  <td title={(organization.organizationGroups ?? []).join('\n') || undefined}>{(organization.organizationGroups ?? []).join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {rows.length === 0 ? <p className="empty">No organization matches “{query}”.</p> : null}
        </div>
      ) : null}
    </section>
  );
}
