/** The ledger's organization key (ledger/keys.ts ORG_KEY): its id, or its name and customer number when it has none. */
export function organizationKey(row: { orgId: string; organization: string; customerNumber: string }): string {
  return row.orgId !== '' ? row.orgId : `${row.organization}|${row.customerNumber}`;
}
