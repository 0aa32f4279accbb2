import type { ReportFilter } from '@shared/report-filter';
import type { Ledger, LedgerValue } from '@core/ledger/ledger';
import { type Row, rowShape } from '@core/ledger/rows';
import { BILLING_LINE_COLUMNS, type BillingLineColumn, FILE_COLUMNS } from '../billing-line-columns';
import { ORG_KEY } from '@core/ledger/keys';
import { reportLineFilter } from './lines';
import { csvCellSql } from '@core/formats/csv-sql';

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
 * report size. Two batches are in DuckDB at once (see linesInOrder). The xlsx of a million lines peaked at 770–830 MB
 * with batches of 25,000, 661–701 MiB with 12,500, and 661–678 MiB with 10,000 in the same time; with 8,000 at
 * 636–647 MiB, but 11 % slower (farm-bench, three pairs each against 12,500).
 */
export const LINE_WINDOW = 10_000;

/**
 * Streams the lines of a report that pass the filter, in the order of orderedLines, in batches. Two things keep a
 * million lines fast and flat: the organizations are put in order first (a small table), and the lines are read a
 * batch of consecutive organizations at a time (never a sort of the whole month; an organization is never split,
 * so its lines sort together); and each line crosses from DuckDB as one JSON text.
 */
export async function* exportLines(ledger: Ledger, reportId: string, filter: ReportFilter = {}, window = LINE_WINDOW): AsyncGenerator<ExportLine[]> {
  for await (const rows of linesInOrder(ledger, reportId, filter, window)) yield LINE_JSON.all(rows).map((row) => JSON.parse(row.line) as ExportLine);
}

/**
 * The rows of orderedLines for every batch of the filter's organizations, in DuckDB's chunks, one chunk ahead; and
 * each batch's query started while the batch before is read. A batch's first chunk waits for its whole sort (most
 * of its time) and the rest come quickly: asked for one chunk ahead only, DuckDB sorted while the caller wrote one
 * chunk, and the caller waited for the rest of the sort at every batch (14 s of a 1,000,000-line export).
 */
async function* linesInOrder(ledger: Ledger, reportId: string, filter: ReportFilter, window: number) {
  const { where, params } = await reportLineFilter(ledger, reportId, filter);
  const batches = organizationBatches(await rankedOrganizations(ledger, where, params), window);
  const sql = orderedLines(where, params.length);
  const start = (index: number) => {
    const batch = batches[index];
    return batch ? started(ledger.stream(sql, [...params, batch.numbers, batch.ranks])) : null;
  };
  async function* batched() {
    let next = start(0);
    try {
      for (let index = 1; next; index++) {
        const current = next;
        next = start(index);
        yield* current.rest();
      }
    } finally {
      await next?.close(); // the caller stopped early: the batch started ahead is let go, its connection closed
    }
  }
  yield* oneAhead(batched());
}

/** A stream already asked for its first item, so its work begins now; `rest` hands on that item and the rest. */
function started<T>(source: AsyncGenerator<T>) {
  const first = source.next();
  first.catch(() => undefined); // seen by rest or close
  return {
    async *rest(): AsyncGenerator<T> {
      try {
        for (let item = await first; !item.done; item = await source.next()) yield item.value;
      } finally {
        await source.return(undefined);
      }
    },
    async close(): Promise<void> {
      await first.catch(() => undefined);
      await source.return(undefined);
    },
  };
}

/**
 * Asks for the next item before handing out the current one, so DuckDB makes the next chunk (on its own threads)
 * while the caller writes this one.
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

/** A column of the line itself (`l.`), not of what it belongs to. */
const ownColumn = (column: { sql: string }) => /\bl\./.test(column.sql);

/**
 * A subscription's place in the one order every export has, among the subscriptions numbered (`r`: their organizations
 * with `org_rank`, `s`: services, `u`: subscriptions): by organization, service and subscription, names by their kept
 * ranks in the report's name order and ids keeping same-named ones apart. A line's place is its subscription's, then
 * its own number.
 */
const SUBSCRIPTION_PLACE = 'row_number() OVER (ORDER BY r.org_rank, s.name_rank, s.service_id, u.name_rank, u.subscription_id)';

/**
 * The lines of some organizations (bound after the filter's `paramCount` parameters: their numbers and their
 * ranks, as two lists) that pass the filter `where`, in the one order every export has (see fileLines), each as one
 * JSON text of every catalogue column: node-api reads every value separately, and 22 values a line cost more than
 * the whole workbook.
 *
 * Everything a line shows beside its own columns, and its place in the order, is looked up per subscription of
 * these organizations (a few thousand rows): the lines join this one small table, which DuckDB hashes (joined one
 * by one, it misjudged the filtered lines as the small side and hashed them at each join). Each subscription's place
 * is numbered there (SUBSCRIPTION_PLACE), so the lines sort on whole numbers.
 */
export function orderedLines(where: string, paramCount: number): string {
  const described = BILLING_LINE_COLUMNS.filter((column) => !ownColumn(column));
  const value = (column: { field: string; sql: string }) => (ownColumn(column) ? column.sql : `d.${column.field}`);
  const select = `to_json([${BILLING_LINE_COLUMNS.map((column) => (column.kind === 'number' ? `(${value(column)})::VARCHAR` : value(column))).join(', ')}]) AS line`;
  return `
    WITH r AS (SELECT unnest($${paramCount + 1}::INTEGER[]) AS org_no, unnest($${paramCount + 2}::INTEGER[]) AS org_rank),
      g AS (SELECT org_no, string_agg(group_name, ', ' ORDER BY group_name) AS names FROM organization_groups
            WHERE report_id = $1 AND org_no IN (SELECT org_no FROM r) GROUP BY org_no),
      s AS (SELECT service_no, service_name, service_id, currency, customer_currency, name_rank FROM services WHERE report_id = $1 AND org_no IN (SELECT org_no FROM r)),
      u AS (SELECT subscription_no, service_no, org_no, item_name, subscription_id, po_number, name_rank
            FROM subscriptions WHERE report_id = $1 AND org_no IN (SELECT org_no FROM r)),
      d AS (SELECT u.subscription_no, ${SUBSCRIPTION_PLACE} AS place, ${described.map((column) => `${column.sql} AS ${column.field}`).join(', ')}
            FROM u JOIN s ON s.service_no = u.service_no JOIN r ON r.org_no = u.org_no
            JOIN organizations o ON o.report_id = $1 AND o.org_no = u.org_no
            LEFT JOIN billing_entries e ON e.report_id = $1 AND e.entry_no = o.entry_no
            LEFT JOIN g ON g.org_no = u.org_no)
    SELECT ${select}
    FROM billing_lines l JOIN d ON d.subscription_no = l.subscription_no
    WHERE ${where}
    ORDER BY d.place, l.line_no`;
}

/**
 * Every line of a report that passes the filter `where` (its parameters first, then none), in the one order every
 * export has (SUBSCRIPTION_PLACE, then as the report lists them): the file columns typed and named by their headers
 * (`file`: Parquet), or one CSV line of them (`csv`: csvFileLines). Each subscription's place is numbered first (a
 * narrow table of whole numbers), so the lines sort on two integers, and DuckDB spills what does not fit its memory
 * to disk.
 *
 * What a line or a subscription belongs to is looked up with LEFT JOIN. Each lookup finds exactly one row (ingest
 * saves a month's organizations, services and subscriptions with its lines), so the rows are an inner join's; but
 * DuckDB orders inner joins by its estimates, and a ledger holding one month leaves it none to go by: `report_id`
 * then holds one value, of which DuckDB keeps no count, so it takes each `report_id = $1` for a fifth of its table
 * and each join for a few hundred rows, and it hashed the million lines against the services instead of the other
 * way. A LEFT JOIN keeps its left side, the lines, streamed. A first month's Parquet export at 1,000,000 lines took
 * 2.6–3.1 s against 4.7–5.3 s, the CSV 3.4–4.9 s against 5.0–6.1 s; with two months, the same within noise.
 */
export function fileLines(where: string, projection: { csvHeader: string } | 'file'): string {
  if (projection !== 'file') return csvFileLines(where, projection.csvHeader);
  const named = (column: (typeof FILE_COLUMNS)[number]) => `${column.sql} AS "${column.file}"`;
  return `
    WITH r AS (${ORGANIZATION_ORDER}),
      places AS MATERIALIZED (
        SELECT u.subscription_no, ${SUBSCRIPTION_PLACE} AS place
        FROM subscriptions u LEFT JOIN services s ON s.report_id = $1 AND s.service_no = u.service_no LEFT JOIN r ON r.org_no = u.org_no
        WHERE u.report_id = $1)
    SELECT ${FILE_COLUMNS.map(named).join(', ')}
    FROM billing_lines l LEFT JOIN places p ON p.subscription_no = l.subscription_no
      LEFT JOIN subscriptions u ON u.report_id = $1 AND u.subscription_no = l.subscription_no
      LEFT JOIN services s ON s.report_id = $1 AND s.service_no = l.service_no
      LEFT JOIN organizations o ON o.report_id = $1 AND o.org_no = l.org_no
      LEFT JOIN billing_entries e ON e.report_id = $1 AND e.entry_no = o.entry_no
    WHERE ${where}
    ORDER BY p.place, l.line_no`;
}

/**
 * The line's own text that its product number (`product_no`) stands for: ingest numbers each distinct (product,
 * id, item code, details) of a report once (report-ingest.ts), so one product's lines share these four exactly.
 */
const PRODUCT_TEXT = new Set(['l.product_name', 'l.product_id', 'l.item_code', 'l.item_details']);

/**
 * Where a file column's CSV cell is made: once per organization (`r`, with its billing entry), service (`s`) or
 * subscription (`u`) — all three in `places` — once per product (`d`), or on each line.
 */
function cellSource(column: (typeof FILE_COLUMNS)[number]): 'places' | 'products' | 'lines' {
  if (PRODUCT_TEXT.has(column.sql)) return 'products';
  return ownColumn(column) ? 'lines' : 'places';
}

/**
 * Cells joined by commas in one `concat`, which makes each line's text once: a chain of `||` made it anew at each
 * cell (at 1,000,000 lines, 2.8 s of DuckDB's time on its two threads against 1.7 s; the export 5.2 s against 6.2 s,
 * three runs each alternating). Every cell is already text (csvCellSql gives '' for NULL), and `concat` would keep
 * an empty cell where concat_ws would drop a column.
 */
const commaJoined = (cells: readonly string[]) => `concat(${cells.join(", ',', ")})`;

/**
 * fileLines' CSV: each line one text of the file columns' cells (csvCellSql) under a column named `header`. A
 * million lines belong to tens of thousands of organizations and services, hundreds of thousands of subscriptions
 * and a few thousand products: each cell is escaped at its own level, once, and the runs of consecutive cells from
 * one place are joined there (cells_0, cells_1, …), so a line escapes only its own numbers and currencies, joins two
 * tables and puts a handful of texts together. The subscriptions are numbered in a narrow table of their own
 * (`ranked`: a sort that carried their cells took four times as long), and their cells go straight into the join:
 * kept as a table (MATERIALIZED), 600,000 subscriptions' cells beside the sort ran a second export in one process
 * out of the ledger's memory.
 */
function csvFileLines(where: string, header: string): string {
  const cell = (column: BillingLineColumn) => {
    if (column.kind !== 'number') return csvCellSql(column.sql, 'text');
    if (!column.decimal) throw new Error(`The number column ${column.field} has no DECIMAL type.`);
    return csvCellSql(column.sql, { decimal: column.decimal });
  };
  const levelCells = { r: [] as string[], s: [] as string[] };
  const made = { places: [] as string[], products: [] as string[] };
  const parts: string[] = [];
  const runs: { source: ReturnType<typeof cellSource>; cells: string[] }[] = [];
  for (const column of FILE_COLUMNS) {
    const source = cellSource(column);
    // An organization's or a service's cell is made in its own table and only referred to in `places`.
    const level = /^[oe]\./.test(column.sql) ? 'r' : /^s\./.test(column.sql) ? 's' : null;
    let text = cell(column);
    if (level) {
      text = `${level}.c_${column.field}`;
      levelCells[level].push(`${cell(column)} AS c_${column.field}`);
    }
    const last = runs.at(-1);
    if (last?.source === source && source !== 'lines') last.cells.push(text);
    else runs.push({ source, cells: [text] });
  }
  for (const run of runs) {
    const joined = run.cells.length > 1 ? commaJoined(run.cells) : run.cells[0]!;
    if (run.source === 'lines') parts.push(joined);
    else {
      const name = `cells_${made.places.length + made.products.length}`;
      made[run.source].push(`${joined} AS ${name}`);
      parts.push(`${run.source === 'places' ? 'p' : 'd'}.${name}`);
    }
  }
  const productText = [...PRODUCT_TEXT].map((sql) => `any_value(${sql}) AS ${sql.slice(2)}`).join(', ');
  return `
    WITH r AS MATERIALIZED (
        SELECT r.org_no, r.org_rank, ${levelCells.r.join(', ')}
        FROM (${ORGANIZATION_ORDER}) r LEFT JOIN organizations o ON o.report_id = $1 AND o.org_no = r.org_no
          LEFT JOIN billing_entries e ON e.report_id = $1 AND e.entry_no = o.entry_no),
      s AS MATERIALIZED (SELECT s.service_no, s.name_rank, s.service_id, ${levelCells.s.join(', ')} FROM services s WHERE s.report_id = $1),
      ranked AS MATERIALIZED (
        SELECT u.subscription_no, ${SUBSCRIPTION_PLACE} AS place
        FROM subscriptions u LEFT JOIN s ON s.service_no = u.service_no LEFT JOIN r ON r.org_no = u.org_no
        WHERE u.report_id = $1),
      places AS NOT MATERIALIZED (
        SELECT u.subscription_no, p.place, ${made.places.join(', ')}
        FROM subscriptions u LEFT JOIN ranked p ON p.subscription_no = u.subscription_no LEFT JOIN s ON s.service_no = u.service_no LEFT JOIN r ON r.org_no = u.org_no
        WHERE u.report_id = $1),
      products AS NOT MATERIALIZED (
        SELECT l.product_no, ${made.products.join(', ')}
        FROM (SELECT product_no, ${productText} FROM billing_lines l WHERE l.report_id = $1 GROUP BY product_no) l)
    SELECT ${commaJoined(parts)} AS "${header.replaceAll('"', '""')}"
    FROM billing_lines l LEFT JOIN places p ON p.subscription_no = l.subscription_no LEFT JOIN products d ON d.product_no = l.product_no
    WHERE ${where}
    ORDER BY p.place, l.line_no`;
}
