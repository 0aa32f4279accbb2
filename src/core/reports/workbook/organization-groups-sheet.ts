import type { Ledger } from '@core/ledger/ledger';
import { rowShape } from '@core/ledger/rows';

const MEMBERSHIP_ROW = rowShape({ name: 'text?', customer_number: 'text?', org_id: 'text?', group_name: 'text?' });

/** The `Organization groups` table: each column's header, width and field (no group is an empty cell: a pivot's "(blank)"). */
const MEMBERSHIP_COLUMNS = [
  { header: 'Organization', width: 36, field: 'name' },
  { header: 'Customer number', width: 16, field: 'customer_number' },
  { header: 'Org ID', width: 38, field: 'org_id' },
  { header: 'Group', width: 30, field: 'group_name' },
] as const;
import { ORGANIZATION_ORDER } from '../queries/export-lines';
import { styleOf, TEXT_FORMAT } from '@core/xlsx/number-formats';
import { SheetSeries, type Sheets } from '@core/xlsx/sheet-series';
import type { Lines } from './lines';

/**
 * One row per organization per group (an organization in two groups has two rows), for pivots by group. An
 * organization in no group has one row with the group empty, so the sheet lists every exported organization and
 * a pivot's "(blank)" is the ungrouped ones — per-group figures then add up to the whole.
 */
export async function writeOrganizationGroups(sheets: Sheets, ledger: Ledger, lines: Lines): Promise<string[]> {
  const series = new SheetSeries(sheets, 'Organization groups', MEMBERSHIP_COLUMNS);
  series.ensureStarted();
  for await (const rows of ledger.stream(
    `WITH organization AS (${ORGANIZATION_ORDER}),
       exported AS (SELECT DISTINCT o.org_key, o.name, o.customer_number, o.org_id, o.org_rank
                    FROM (SELECT DISTINCT org_no FROM billing_lines l WHERE ${lines.where}) p JOIN organization o ON o.org_no = p.org_no),
       grouped AS (SELECT DISTINCT o.org_key, g.group_name FROM organization_groups g JOIN organization o ON o.org_no = g.org_no WHERE g.report_id = $1)
     SELECT e.name, e.customer_number, e.org_id, g.group_name
     FROM exported e LEFT JOIN grouped g ON g.org_key = e.org_key
     ORDER BY e.org_rank, g.group_name NULLS FIRST`,
    lines.params,
  )) {
    for (const found of MEMBERSHIP_ROW.all(rows)) {
      const { row } = series.next();
      MEMBERSHIP_COLUMNS.forEach((column, index) => (row.getCell(index + 1).value = found[column.field] || null));
      row.getCell(2).style = styleOf(TEXT_FORMAT);
      row.commit();
    }
    await series.caughtUp();
  }
  series.commit();
  return series.names;
}
