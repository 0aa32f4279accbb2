import type { ReportFilter } from '@shared/report-filter';
import type { Ledger } from '@core/ledger/ledger';
import { ORG_KEY } from '@core/ledger/keys';
import { rowShape } from '@core/ledger/rows';
import { reportLineFilter } from './lines';
import { keptNameOrder, nameKeySql } from '@core/ledger/name-ranks';

const GROUP_COUNT = rowShape({ group_name: 'text', organizations: 'int' });
const GROUPING_COUNTS = rowShape({ ungrouped: 'int', several: 'int' });

/**
 * Of the organizations with lines the filter keeps: how many are in each group (in the report's name order), in none,
 * and in several.
 * Kept organizations first (one pass over the lines); groups and names then come from their small tables.
 */
export async function groupMembership(
  ledger: Ledger,
  reportId: string,
  filter: ReportFilter,
): Promise<{ groups: { group_name: string; organizations: number }[]; ungrouped: number; several: number }> {
  const { where, params } = await reportLineFilter(ledger, reportId, filter);
  const kept = `WITH kept AS (SELECT DISTINCT l.org_no FROM billing_lines l WHERE ${where}),
    orgs AS (SELECT k.org_no, ${ORG_KEY} AS org_key FROM kept k JOIN organizations o ON o.report_id = $1 AND o.org_no = k.org_no)`;
  const groups = GROUP_COUNT.all(
    await ledger.all(
      `${kept} SELECT g.group_name, count(DISTINCT orgs.org_key) AS organizations FROM orgs
     JOIN organization_groups g ON g.report_id = $1 AND g.org_no = orgs.org_no
     GROUP BY g.group_name ORDER BY ${nameKeySql('g.group_name', await keptNameOrder(ledger, reportId))}, g.group_name`,
      params,
    ),
  );
  if (groups.length === 0) return { groups, ungrouped: 0, several: 0 };
  const [counts] = GROUPING_COUNTS.all(
    await ledger.all(
      `${kept}, grouping AS (SELECT orgs.org_key, count(DISTINCT g.group_name) AS groups FROM orgs
       LEFT JOIN organization_groups g ON g.report_id = $1 AND g.org_no = orgs.org_no GROUP BY orgs.org_key)
     SELECT count(*) FILTER (WHERE groups = 0) AS ungrouped, count(*) FILTER (WHERE groups > 1) AS several FROM grouping`,
      params,
    ),
  );
  return { groups, ungrouped: counts?.ungrouped ?? 0, several: counts?.several ?? 0 };
}
