import type { ReportFilter } from '@shared/report-filter';
import type { Ledger, LedgerValue } from '@core/ledger/ledger';
import { type Row, rowShape } from '@core/ledger/rows';
import { BILLING_LINE_COLUMNS, FILE_COLUMNS } from '../billing-line-columns';
import { ORG_KEY } from '@core/ledger/keys';
import { lineFilter } from './lines';
import { csvCellSql } from '@core/formats/csv-sql';
import { keptNameOrder, nameKeySql } from '@core/ledger/name-ranks';
import type { NameOrder } from '@shared/model/name-order';

/** Values by position in LINE_FIELDS (the catalogue's order): text as sent, amounts and quantities as exact decimal text. */
export type ExportLine = (string | null)[];

/**
 * Each organization number of a report ($1) with its organization (ORG_KEY: one organization may appear in several
 * billing entries), the name, number and id it is shown under (those of its first appearance; the first customer
 * number given), and its place in the one order every sheet, list and export uses: by its name's rank in the
 * report's name order (ledger/name-ranks.ts), then key.
 */
export const ORGANIZATION_ORDER = `
  SELECT org_no, org_key, first_name AS name, first_number AS customer_number, first_id AS org_id,
    dense_rank() OVER (ORDER BY first_rank, org_key) AS org_rank
  FROM (
    SELECT org_no, org_key,
      first_value(name) OVER keyed AS first_name, first_value(name_rank) OVER keyed AS first_rank, first_value(org_id) OVER keyed AS first_id,
      coalesce(first_value(CASE WHEN trim(customer_number) <> '' THEN customer_number END IGNORE NULLS) OVER (keyed ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), '') AS first_number
    FROM (SELECT org_no, name, name_rank, org_id, customer_number, ${ORG_KEY} AS org_key FROM organizations o WHERE o.report_id = $1)
    WINDOW keyed AS (PARTITION BY org_key ORDER BY org_no))`;

/**
 * About this many lines per query: each batch is sorted on its own, so DuckDB's memory stays the same for any
 * report size. A batch's organizations are spread through the lines table, so each batch scans all of it: larger
 * batches are faster and hold more (at a million lines, 25,000 was the balance measured).
 */
export const LINE_WINDOW = 25_000;

/**
 * Streams the lines of a report that pass the filter, in the order of orderedLines, in batches. Two things keep a
 * million lines fast and flat: the organizations are put in order first (a small table), and the lines are read a
 * batch of consecutive organizations at a time (never a sort of the whole month; an organization is never split,
 * so its lines sort together); and each line crosses from DuckDB as one JSON text.
 */
export async function* exportLines(ledger: Ledger, reportId: string, filter: ReportFilter = {}, window = LINE_WINDOW): AsyncGenerator<ExportLine[]> {
  for await (const rows of linesInOrder(ledger, reportId, filter, window)) yield LINE_JSON.all(rows).map((row) => JSON.parse(row.line) as ExportLine);
}

/** The rows of orderedLines for every batch of the filter's organizations, one batch ahead. */
async function* linesInOrder(ledger: Ledger, reportId: string, filter: ReportFilter, window: number) {
  const { where, params } = lineFilter(reportId, filter);
  const batches = organizationBatches(await rankedOrganizations(ledger, where, params), window);
  const sql = orderedLines(where, params.length, 'json', await keptNameOrder(ledger, reportId));
  async function* batched() {
    for (const { numbers, ranks } of batches) for await (const rows of ledger.stream(sql, [...params, numbers, ranks])) yield rows;
  }
  yield* oneAhead(batched());
}

/**
 * Asks for the next item before handing out the current one, so DuckDB works on the next batch (on its own
 * threads) while the caller writes this one.
 */
async function* oneAhead<T>(source: AsyncGenerator<T>): AsyncGenerator<T> {
  let next = source.next();
  try {
    for (;;) {
      const current = await next;
      if (current.done) return;
      next = source.next();
      next.catch(() => undefined); // seen by the await above; a caller that stops early must not leave it unhandled
      yield current.value;
    }
  } finally {
    // The caller stopped early (or failed): let the pending read settle, then close the source and its connection.
    await next.catch(() => undefined);
    await source.return(undefined);
  }
}

/**
 * Consecutive organizations (every number of one organization together, so its lines sort together) in batches of
 * about `window` lines: their numbers and ranks, as orderedLines takes them.
 */
export function organizationBatches(organizations: RankedOrganization[], window: number): { numbers: string[]; ranks: string[] }[] {
  const batches: { numbers: string[]; ranks: string[] }[] = [];
  let lines = 0;
  let previousRank = '';
  for (const organization of organizations) {
    const rank = organization.org_rank;
    let batch = batches.at(-1);
    if (!batch || (lines >= Math.max(1, window) && rank !== previousRank)) {
      batches.push((batch = { numbers: [], ranks: [] }));
      lines = 0;
    }
    batch.numbers.push(organization.org_no);
    batch.ranks.push(rank);
    lines += organization.lines;
    previousRank = rank;
  }
  return batches;
}

/** The organizations that have lines passing the filter, in their order, with how many lines each. */
export async function rankedOrganizations(ledger: Ledger, where: string, params: LedgerValue[]): Promise<RankedOrganization[]> {
  return RANKED.all(
    await ledger.all(
      `SELECT r.org_no, r.org_rank, a.lines
     FROM (SELECT org_no, count(*) AS lines FROM billing_lines l WHERE ${where} GROUP BY org_no) a
     JOIN (${ORGANIZATION_ORDER}) r ON r.org_no = a.org_no
     ORDER BY r.org_rank, r.org_no`,
      params,
    ),
  );
}

/** An organization's number and rank (bound back into the next query as text lists) and how many lines it has. */
const RANKED = rowShape({ org_no: 'text', org_rank: 'text', lines: 'int' });
export type RankedOrganization = Row<typeof RANKED.columns>;
/** An exported line as DuckDB gives it: one text, JSON or a CSV line (see orderedLines). */
const LINE_JSON = rowShape({ line: 'text' });

/**
 * The lines of some organizations (bound after the filter's `paramCount` parameters: their numbers and their
 * ranks, as two lists) that pass the filter `where`, in the one order every export has: by organization, service
 * and subscription (names in the report's name order, `order`; ids keeping same-named ones apart), then as the
 * report lists them. Each line
 * is one JSON text of every catalogue column (`json`: node-api reads every value separately, and 22 values a line
 * cost more than the whole workbook), one CSV line of the file columns (`csv`), or the file columns typed, named by
 * their headers (`file`: Parquet).
 *
 * Everything a line shows beside its own columns, and its place in the order, is looked up per subscription of
 * these organizations (a few thousand rows): the lines join this one small table, which DuckDB hashes (joined one
 * by one, it misjudged the filtered lines as the small side and hashed them at each join). Services and
 * subscriptions are ranked there, so the lines sort on whole numbers (a third faster than on names).
 */
export function orderedLines(where: string, paramCount: number, projection: 'json' | 'csv' | 'file', order: NameOrder): string {
  const ownColumn = (column: { sql: string }) => /\bl\./.test(column.sql);
  const described = BILLING_LINE_COLUMNS.filter((column) => !ownColumn(column));
  const value = (column: { field: string; sql: string }) => (ownColumn(column) ? column.sql : `d.${column.field}`);
  const select =
    projection === 'json'
      ? `to_json([${BILLING_LINE_COLUMNS.map((column) => (column.kind === 'number' ? `(${value(column)})::VARCHAR` : value(column))).join(', ')}]) AS line`
      : projection === 'csv'
        ? `${FILE_COLUMNS.map((column) => csvCellSql(value(column), column.kind === 'number' ? 'number' : 'text')).join(" || ',' || ")} AS line`
        : FILE_COLUMNS.map((column) => `${value(column)} AS "${column.file}"`).join(', ');
  return `
    WITH r AS (SELECT unnest($${paramCount + 1}::INTEGER[]) AS org_no, unnest($${paramCount + 2}::INTEGER[]) AS org_rank),
      g AS (SELECT org_no, string_agg(group_name, ', ' ORDER BY group_name) AS names FROM organization_groups
            WHERE report_id = $1 AND org_no IN (SELECT org_no FROM r) GROUP BY org_no),
      s AS (SELECT service_no, service_name, service_id, dense_rank() OVER (ORDER BY name_rank, service_id) AS service_rank
            FROM services WHERE report_id = $1 AND org_no IN (SELECT org_no FROM r)),
      u AS (SELECT subscription_no, service_no, org_no, item_name, subscription_id, po_number,
              dense_rank() OVER (ORDER BY ${nameKeySql('item_name', order)}, item_name, subscription_id) AS subscription_rank
            FROM subscriptions WHERE report_id = $1 AND org_no IN (SELECT org_no FROM r)),
      d AS (SELECT u.subscription_no, r.org_rank, s.service_rank, u.subscription_rank, ${described.map((column) => `${column.sql} AS ${column.field}`).join(', ')}
            FROM u JOIN s ON s.service_no = u.service_no JOIN r ON r.org_no = u.org_no
            JOIN organizations o ON o.report_id = $1 AND o.org_no = u.org_no
            LEFT JOIN billing_entries e ON e.report_id = $1 AND e.entry_no = o.entry_no
            LEFT JOIN g ON g.org_no = u.org_no)
    SELECT ${select}
    FROM billing_lines l JOIN d ON d.subscription_no = l.subscription_no
    WHERE ${where}
    ORDER BY d.org_rank, d.service_rank, d.subscription_rank, l.line_no`;
}
