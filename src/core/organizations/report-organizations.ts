import type { OrganizationsInReport } from '@shared/schemas/organization';
import type { Ledger } from '@core/ledger/ledger';
import { ORG_KEY } from '@core/ledger/keys';
import { rowShape } from '@core/ledger/rows';

const NAMED = rowShape({ report_id: 'text', report_name: 'text', name: 'text', customer_number: 'text', org_id: 'text' });

/**
 * The organizations the newest saved month of a profile bills (each once, as the tree groups them), or null when the
 * profile has none. The service's own list can lag behind its billing: the Organizations screen says so, and a new
 * organization's customer number is checked against both.
 */
export async function organizationsInNewestReport(ledger: Ledger, profileId: string): Promise<OrganizationsInReport | null> {
  const rows = NAMED.all(
    await ledger.all(
      `WITH newest AS (SELECT report_id, name FROM reports WHERE profile_id = $1 ORDER BY period_start DESC, fetched_at DESC, report_id LIMIT 1)
       SELECT n.report_id, n.name AS report_name, min(o.name) AS name, coalesce(max(nullif(o.customer_number, '')), '') AS customer_number, min(o.org_id) AS org_id
       FROM newest n JOIN organizations o ON o.report_id = n.report_id
       GROUP BY n.report_id, n.name, ${ORG_KEY}
       ORDER BY lower(min(o.name))`,
      [profileId],
    ),
  );
  const [first] = rows;
  if (!first) return null;
  return {
    reportId: first.report_id,
    reportName: first.report_name,
    organizations: rows.map((row) => ({ name: row.name, customerNumber: row.customer_number, orgId: row.org_id })),
  };
}
