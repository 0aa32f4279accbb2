import type { Ledger } from '@core/ledger/ledger';
import { type Row, rowShape } from '@core/ledger/rows';
import { compareAsLedger } from '@core/ledger/text-order';
import type { ItemMatch } from '@shared/schemas/invoices';
import { ORGANIZATION_ORDER } from '@core/reports';

/** The item keys of a mapping, by what they match: bound as lists and joined as small tables. */
export interface ItemKeys {
  product: string[];
  itemCode: string[];
  service: string[];
}

/** A month's invoice line before rounding (invoiceLineRows): amounts and quantities as exact decimal text. */
export interface InvoiceLineRow {
  org_key: string;
  org_id: string;
  organization: string;
  customer_number: string;
  currency: string;
  po: string;
  item_match: ItemMatch | null;
  item_id: string | null;
  description: string;
  products: number;
  quantity: string;
  unit_price: string | null;
  sales: string;
  lines: number;
  first_line: number;
  line_key: string;
  adjustment?: string;
}

const LINE_TEXT = rowShape({ line: 'text' });

/**
 * An invoice line from its columns as one JSON list of texts (InvoiceLineRow's order; then, for inInvoiceOrder, the
 * organization's place in the list order), made as one object literal: a million-line month's 601,268 invoice lines
 * took 11 s to read as row objects of 16 columns, 3 s as one text each.
 */
function invoiceLine(v: (string | null)[]): InvoiceLineRow {
  return {
    org_key: v[0] as string,
    org_id: v[1] as string,
    organization: v[2] as string,
    customer_number: v[3] as string,
    currency: v[4] as string,
    po: v[5] as string,
    item_match: v[6] as ItemMatch | null,
    item_id: v[7] ?? null,
    description: v[8] as string,
    products: Number(v[9]),
    quantity: v[10] as string,
    unit_price: v[11] ?? null,
    sales: v[12] as string,
    lines: Number(v[13]),
    first_line: Number(v[14]),
    line_key: v[15] as string,
  };
}

const UNMAPPED_CUSTOMER = rowShape({
  org_key: 'text',
  org_id: 'text',
  organization: 'text',
  customer_number: 'text',
  currency: 'text',
  lines: 'int',
  sales: 'decimal',
});
export type UnmappedCustomerRow = Row<typeof UNMAPPED_CUSTOMER.columns>;

const UNMAPPED_ITEM = rowShape({
  product_id: 'text',
  product_name: 'text',
  item_code: 'text',
  service_id: 'text',
  service_name: 'text',
  currency: 'text',
  lines: 'int',
  sales: 'decimal',
});
export type UnmappedItemRow = Row<typeof UNMAPPED_ITEM.columns>;

/** A list of ids bound as JSON and read as a one-column table (a hash join, whatever its length). */
const idList = (parameter: string) => `(SELECT DISTINCT unnest(from_json(${parameter}, '["VARCHAR"]')) AS id)`;

/** Whether an organization (its `orgId` column) is a mapped customer, the ids bound as `parameter`: one without an id never is. */
const mappedCustomer = (orgId: string, parameter: string) => `(coalesce(${orgId}, '') <> '' AND ${orgId} IN (SELECT id FROM ${idList(parameter)}))`;

/**
 * The item mapping each line takes, most specific first: its product id, else its item code, else its service's id
 * (the service's default). Hash joins on three small lists, so a million lines are matched in one pass.
 */
function resolvedLines(): string {
  return `
    SELECT l.*, o.org_id, o.org_key AS org_key, o.name AS organization, o.customer_number, o.org_rank, u.po_number, u.item_name, u.subscription_id, s.service_id, s.service_name,
      CASE WHEN p.id IS NOT NULL THEN 'product' WHEN c.id IS NOT NULL THEN 'item-code' WHEN v.id IS NOT NULL THEN 'service' END AS item_match,
      CASE WHEN p.id IS NOT NULL THEN p.id WHEN c.id IS NOT NULL THEN c.id WHEN v.id IS NOT NULL THEN v.id END AS item_id
    FROM billing_lines l
    JOIN organization o ON o.org_no = l.org_no
    JOIN subscriptions u ON u.report_id = $1 AND u.subscription_no = l.subscription_no
    JOIN services s ON s.report_id = $1 AND s.service_no = l.service_no
    LEFT JOIN ${idList('$2')} p ON p.id = l.product_id
    LEFT JOIN ${idList('$3')} c ON c.id = l.item_code AND l.item_code <> ''
    LEFT JOIN ${idList('$4')} v ON v.id = s.service_id AND s.service_id <> ''
    WHERE l.report_id = $1`;
}

/**
 * The share of the ledger's memory limit DuckDB is held to while a month's invoice lines are summed and read
 * (Ledger.holdingMemoryIfItFits): the blocks it keeps stay beside the rows JavaScript builds the invoices from. A
 * 1,000,000-line month's 601,268 lines, handed on unsorted (inInvoiceOrder), fitted in 150 MB and not in 100. Sorted
 * by DuckDB they had needed 200–340 MB, more than this share on a ledger fetched anew, so the read was made again at
 * the whole limit: `invoices run` peaked at 0.98–1.24 GB there, 0.88–0.89 GB with the lines sorted in JavaScript.
 */
const INVOICE_LINES_MEMORY_SHARE = 0.5;

/**
 * A month's invoice lines before rounding, of the customers mapped (`customers`, their org ids) only: per
 * organization (as the Invoicing view knows it), customer currency, PO number (when `splitByPo`), the item mapping
 * it takes and either its subscription or its product and unit price — with the exact sum of sales, the quantity,
 * and how many products it covers. Ordered as every list orders organizations, then by the first billing line of
 * each (the report's own order). The customers not mapped are summed apart (unmappedCustomerRows): at a million
 * lines, their lines alone were 600,000 rows brought into JavaScript to be added up.
 */
export async function invoiceLineRows(
  ledger: Ledger,
  reportId: string,
  items: ItemKeys,
  customers: readonly string[],
  options: { linesPer: 'subscription' | 'product'; splitByPo: boolean },
): Promise<InvoiceLineRow[]> {
  const po = options.splitByPo ? 'po_number' : "''";
  const perSubscription = options.linesPer === 'subscription';
  const by = perSubscription ? 'subscription_no' : 'product_id, sales_per_unit';
  // A line's names are joined to it once summed: its subscription's, or its product's on its first billing line.
  const [named, description, unitPrice, key] = perSubscription
    ? ['JOIN subscriptions u ON u.report_id = $1 AND u.subscription_no = g.subscription_no', 'u.item_name', 'NULL', "'subscription:' || u.subscription_id"]
    : [
        'JOIN billing_lines f ON f.report_id = $1 AND f.line_no = g.first_line',
        'f.product_name',
        'g.sales_per_unit::VARCHAR',
        "'product:' || g.product_id || '@' || g.sales_per_unit::VARCHAR",
      ];
  // Summed on numbers and short keys alone, first per product (so a line counts its products without a DISTINCT),
  // then per invoice line, and read a chunk at a time: carrying names through the sums, counting distinct products,
  // or holding the result whole inside DuckDB each took its memory limit at a million lines (none of those spills).
  return ledger.holdingMemoryIfItFits(INVOICE_LINES_MEMORY_SHARE, async () => {
    const rows: InvoiceLineRow[] = [];
    const ranks: number[] = [];
    const once = sharedText();
    for await (const chunk of ledger.stream(
      `WITH organization AS MATERIALIZED (${ORGANIZATION_ORDER}),
       resolved AS (${resolvedLines()}),
       per_product AS (
         SELECT org_rank, customer_currency, ${po} AS po, item_match, item_id, ${perSubscription ? 'subscription_no, product_id' : by},
           sum(quantity) AS quantity, sum(sales) AS sales, count(*) AS lines, min(line_no) AS first_line
         FROM resolved WHERE ${mappedCustomer('org_id', '$5')}
         GROUP BY ALL),
       g AS (
         SELECT org_rank, customer_currency, po, item_match, item_id, ${by}, count(*) AS products,
           sum(quantity) AS quantity, sum(sales) AS sales, sum(lines) AS lines, min(first_line) AS first_line
         FROM per_product GROUP BY ALL),
       customer AS (
         SELECT org_rank, any_value(org_key) AS org_key, any_value(org_id) AS org_id, any_value(name) AS organization, any_value(customer_number) AS customer_number
         FROM organization GROUP BY org_rank)
     SELECT to_json([c.org_key, c.org_id, c.organization, c.customer_number, g.customer_currency, g.po, g.item_match, g.item_id,
       ${description}, g.products::VARCHAR, g.quantity::VARCHAR, ${unitPrice}, g.sales::VARCHAR, g.lines::VARCHAR, g.first_line::VARCHAR,
       ${key} || '|' || coalesce(g.item_match || ':' || g.item_id, ''), g.org_rank::VARCHAR])::VARCHAR AS line
     FROM g JOIN customer c ON c.org_rank = g.org_rank ${named}`,
      [reportId, JSON.stringify(items.product), JSON.stringify(items.itemCode), JSON.stringify(items.service), JSON.stringify(customers)],
    ))
      for (const { line } of LINE_TEXT.all(chunk)) {
        const values = JSON.parse(line) as (string | null)[];
        rows.push(sharingText(invoiceLine(values), once));
        ranks.push(Number(values[16]));
      }
    return inInvoiceOrder(rows, ranks);
  });
}

/**
 * The lines in the order of the invoices — organization (its place in the list order, `ranks`: 1, 2, … as
 * ORGANIZATION_ORDER numbers them), customer currency, PO number — and, within an invoice, of their first billing
 * lines (the report's order; every billing line is in one invoice line, so no two share a first one). Sorted here,
 * not by DuckDB, which held every line whole to sort it (INVOICE_LINES_MEMORY_SHARE). The lines are counted into
 * their organizations' places, then each organization's few are sorted: 0.4 s at a million lines, where one sort of
 * them all took 1.4 s.
 */
function inInvoiceOrder(rows: InvoiceLineRow[], ranks: number[]): InvoiceLineRow[] {
  const starts = new Uint32Array(ranks.reduce((most, rank) => Math.max(most, rank), 0) + 2);
  for (const rank of ranks) starts[rank + 1] = (starts[rank + 1] as number) + 1;
  for (let rank = 1; rank < starts.length; rank += 1) starts[rank] = (starts[rank] as number) + (starts[rank - 1] as number);
  const order = new Uint32Array(rows.length);
  const next = starts.slice();
  ranks.forEach((rank, index) => {
    order[next[rank] as number] = index;
    next[rank] = (next[rank] as number) + 1;
  });
  const inOrganization = (a: number, b: number) => {
    const left = rows[a] as InvoiceLineRow;
    const right = rows[b] as InvoiceLineRow;
    return compareAsLedger(left.currency, right.currency) || compareAsLedger(left.po, right.po) || left.first_line - right.first_line;
  };
  for (let rank = 0; rank + 1 < starts.length; rank += 1) order.subarray(starts[rank], starts[rank + 1]).sort(inOrganization);
  return Array.from(order, (index) => rows[index] as InvoiceLineRow);
}

/** Each text once: the first string seen with a value, handed out again for every later copy of it. */
function sharedText(): <T extends string | null>(text: T) => T {
  const kept = new Map<string, string>();
  return (text) => {
    if (text === null) return text;
    const first = kept.get(text);
    if (first !== undefined) return first as typeof text;
    kept.set(text, text);
    return text;
  };
}

/**
 * The row with the text that repeats on every line of its customer (and item) as one string per value (`once`):
 * each row read from the ledger brings its own copies, and a million-line month's 601,268 invoice lines held 431 MB
 * of JavaScript's heap so, 289 MB with them shared.
 */
function sharingText(row: InvoiceLineRow, once: ReturnType<typeof sharedText>): InvoiceLineRow {
  row.org_key = once(row.org_key);
  row.org_id = once(row.org_id);
  row.organization = once(row.organization);
  row.customer_number = once(row.customer_number);
  row.currency = once(row.currency);
  row.po = once(row.po);
  row.item_match = once(row.item_match);
  row.item_id = once(row.item_id);
  return row;
}

/** The products no item mapping reaches, with their lines and sales per customer currency: what to map first. */
export async function unmappedItemRows(ledger: Ledger, reportId: string, items: ItemKeys): Promise<UnmappedItemRow[]> {
  return UNMAPPED_ITEM.all(
    await ledger.all(
      `WITH organization AS MATERIALIZED (${ORGANIZATION_ORDER}),
       resolved AS (${resolvedLines()})
       SELECT product_id, any_value(product_name) AS product_name, item_code, service_id, any_value(service_name) AS service_name,
         customer_currency AS currency, count(*)::INTEGER AS lines, sum(sales)::VARCHAR AS sales
       FROM resolved WHERE item_match IS NULL
       GROUP BY product_id, item_code, service_id, customer_currency
       ORDER BY lower(any_value(service_name)), lower(any_value(product_name)), product_id, currency`,
      [reportId, JSON.stringify(items.product), JSON.stringify(items.itemCode), JSON.stringify(items.service)],
    ),
  );
}

/**
 * The organizations no customer mapping reaches (not among `customers`, or without an id), with their lines and
 * sales per customer currency, in the order every list puts organizations: what to map, summed in SQL.
 */
export async function unmappedCustomerRows(ledger: Ledger, reportId: string, customers: readonly string[]): Promise<UnmappedCustomerRow[]> {
  return UNMAPPED_CUSTOMER.all(
    await ledger.all(
      `WITH organization AS MATERIALIZED (${ORGANIZATION_ORDER})
       SELECT o.org_key, any_value(o.org_id) AS org_id, any_value(o.name) AS organization, any_value(o.customer_number) AS customer_number,
         l.customer_currency AS currency, count(*)::INTEGER AS lines, sum(l.sales)::VARCHAR AS sales
       FROM billing_lines l JOIN organization o ON o.org_no = l.org_no
       WHERE l.report_id = $1 AND NOT ${mappedCustomer('o.org_id', '$2')}
       GROUP BY o.org_key, l.customer_currency
       ORDER BY any_value(o.org_rank), currency`,
      [reportId, JSON.stringify(customers)],
    ),
  );
}
