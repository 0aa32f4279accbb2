import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { Money } from '@shared/money';
import { ledgerWithMonth } from '@testing/ledger-month';
import { queryParquet } from '@testing/parquet';
import { parseCsv } from '@testing/csv';
import { FILE_COLUMNS, LINE_FIELDS } from './billing-line-columns';
import { type ExportFormat, exportReport } from './report-export';
import { ReportLibrary } from './report-library';
import type { Ledger } from '@core/ledger/ledger';
import type { WorkbookOptions } from './report-workbook';
import { exportLines, fileLines } from './queries/export-lines';
import { reportLineFilter } from './queries/lines';

const REPORT = '00000000-0000-4000-8000-000000000003';
const cleanups = cleanupsAfterEach();

async function setup() {
  const month = await ledgerWithMonth({
    reportId: REPORT,
    seed: 4,
    organizations: 20,
    linesPerOrganization: 6,
    change: (entries) => {
      entries[0]!.organizations[0]!.name = '=HYPERLINK("http://evil.example","click")';
      const line = entries[0]!.organizations[1]!.services[0]!.items[0]!.products[0]!;
      line.totalCustomerPrice = '-12.50';
      line.productName = '-credit, "quoted"';
    },
  });
  cleanups.push(month.close);
  return { dir: month.dir, ledger: month.ledger, lines: month.lines.map(({ service, line }) => ({ service, product: line })) };
}

const options = { appVersion: 't', exportedAt: new Date('2026-11-08T00:00:00Z') };

/** exportReport of REPORT with its summary read first, as the service's handlers do. */
async function exported(ledger: Ledger, format: ExportFormat, path: string, options: WorkbookOptions) {
  return exportReport(ledger, await new ReportLibrary(async () => ledger).meta(REPORT), format, path, options);
}

describe('exports from the ledger', () => {
  it('writes CSV with a BOM, CRLF, fixed columns and exact point decimals; formula-leading text is escaped, negative amounts are not', async () => {
    const { dir, ledger, lines } = await setup();
    const path = join(dir, 'lines.csv');
    expect(await exported(ledger, 'csv', path, options)).toEqual({ lines: lines.length });
    const text = await readFile(path, 'utf8');
    expect(text.startsWith('\uFEFF')).toBe(true);
    const [header, ...rows] = parseCsv(text.slice(1));
    expect(header).toEqual([
      'Organization',
      'Customer number',
      'Org ID',
      'Service',
      'Service ID',
      'Subscription',
      'Subscription ID',
      'PO number',
      'Product',
      'Product ID',
      'Item code',
      'Quantity',
      'Reseller price per unit',
      'Customer price per unit',
      'Cost',
      'Sales',
      'Currency',
      'Customer currency',
      'Billing date',
      'Item details',
    ]);
    expect(rows).toHaveLength(lines.length);
    const column = (name: string) => (header as string[]).indexOf(name);
    expect(rows.some((row) => row[column('Organization')] === `'=HYPERLINK("http://evil.example","click")`)).toBe(true);
    expect(rows.some((row) => row[column('Product')] === `'-credit, "quoted"`)).toBe(true);
    expect(rows.some((row) => row[column('Sales')] === '-12.5')).toBe(true);
    expect(rows.every((row) => row.every((cell) => !/^[=+@\t\r]/.test(cell) && !/^-[^\d]/.test(cell)))).toBe(true);
    const exact = lines.reduce((sum, { product }) => sum.plus(String(product.totalCustomerPrice)), new Money(0));
    expect(rows.reduce((sum, row) => sum.plus(row[column('Sales')] as string), new Money(0)).equals(exact)).toBe(true);
  });

  it('writes Parquet that DuckDB reads back with DECIMAL amounts and the same exact sums', async () => {
    const { dir, ledger, lines } = await setup();
    const path = join(dir, "month's lines.parquet");
    expect(await exported(ledger, 'parquet', path, { ...options, filter: { currency: 'SEK' } })).toMatchObject({
      lines: expect.any(Number),
    });
    const [read] = await queryParquet(path, `SELECT count(*) AS n, sum("Sales")::VARCHAR AS sales, typeof(any_value("Sales")) AS type FROM file`);
    const sek = lines.filter(({ service }) => service.currencyCode === 'SEK' && (service.customerCurrencyCode ?? 'SEK') === 'SEK');
    expect(Number(read?.n)).toBe(sek.length);
    expect(new Money(String(read?.sales)).equals(sek.reduce((sum, { product }) => sum.plus(String(product.totalCustomerPrice)), new Money(0)))).toBe(true);
    expect(String(read?.type)).toMatch(/^DECIMAL/);
  });

  it('writes a file with its header and no line when no line passes the filter', async () => {
    const { dir, ledger } = await setup();
    const none = { ...options, filter: { text: 'no line holds this' } };
    expect(await exported(ledger, 'csv', join(dir, 'none.csv'), none)).toEqual({ lines: 0 });
    const csv = await readFile(join(dir, 'none.csv'), 'utf8');
    expect(csv).toBe(`\uFEFF${FILE_COLUMNS.map((column) => column.file).join(',')}\r\n`);
    expect(await exported(ledger, 'parquet', join(dir, 'none.parquet'), none)).toEqual({ lines: 0 });
    expect(await queryParquet(join(dir, 'none.parquet'), 'SELECT count(*)::INTEGER AS n FROM file')).toEqual([{ n: 0 }]);
    const columns = await queryParquet(join(dir, 'none.parquet'), "SELECT string_agg(column_name, ',') AS names FROM (DESCRIBE SELECT * FROM file)");
    expect(columns).toEqual([{ names: FILE_COLUMNS.map((column) => column.file).join(',') }]);
  });

  it('writes CSV and Parquet lines in the order of the workbook: by organization, service and subscription', async () => {
    const { dir, ledger, lines } = await setup();
    const expected: string[] = [];
    for await (const batch of exportLines(ledger, REPORT))
      for (const line of batch)
        expected.push(
          ['org_name', 'subscription_id', 'product_id', 'sales'].map((field) => line[LINE_FIELDS.indexOf(field as (typeof LINE_FIELDS)[number])]).join('|'),
        );
    // (That order is checked in queries/export-lines.test.ts; here, that it is not simply the report's.)
    const products = (list: string[]) => list.map((line) => line.split('|')[2]);
    expect(products(expected)).not.toEqual(lines.map(({ product }) => product.productId));

    await exported(ledger, 'parquet', join(dir, 'lines.parquet'), options);
    const parquet = await queryParquet(
      join(dir, 'lines.parquet'),
      `SELECT concat_ws('|', "Organization", "Subscription ID", "Product ID", "Sales"::VARCHAR) AS line FROM file`,
    );
    expect(parquet.map((row) => String(row.line))).toEqual(expected);
    expect(await readdir(await ledger.outputs.folder())).toEqual([]);

    await exported(ledger, 'csv', join(dir, 'lines.csv'), options);
    const [header, ...rows] = parseCsv((await readFile(join(dir, 'lines.csv'), 'utf8')).slice(1));
    const column = (name: string) => (header as string[]).indexOf(name);
    const csv = rows.map((row) => [
      row[column('Organization')]!.replace(/^'/, ''),
      row[column('Subscription ID')],
      row[column('Product ID')],
      row[column('Sales')],
    ]);
    expect(csv.map(([organization, subscription, product]) => `${organization}|${subscription}|${product}`)).toEqual(
      expected.map((line) => line.split('|').slice(0, 3).join('|')),
    );
    expect(await readdir(await ledger.outputs.folder())).toEqual([]);
  });

  it('streams the lines past the smaller tables they are joined to, in a ledger of one month too (whose estimates DuckDB cannot go by)', async () => {
    const { ledger } = await setup();
    const { where, params } = await reportLineFilter(ledger, REPORT, {});
    for (const projection of [{ csvHeader: 'lines' }, 'file'] as const) {
      const [explained] = await ledger.all(`EXPLAIN (FORMAT JSON) ${fileLines(where, projection)}`, params);
      // Down the sorted lines' side of each join (a join's first child streams, its second is hashed): the month's lines.
      let node = (JSON.parse(String(explained?.explain_value)) as PlanNode[])[0]!;
      while (node.name !== 'ORDER_BY') node = node.children.at(-1)!;
      const hashed: string[] = [];
      while (node.children.length > 0) {
        if (node.name.trim() === 'HASH_JOIN') hashed.push(rowsOf(node.children[1]!));
        node = node.children[0]!;
      }
      expect([node.name.trim(), node.extra_info.Table], JSON.stringify(projection)).toEqual(['SEQ_SCAN', expect.stringMatching(/\.billing_lines$/)]);
      expect(hashed.length).toBeGreaterThanOrEqual(2);
      expect(hashed).not.toContain('billing_lines');
    }
  });

  it('writes every format readable by its owner only, under any file name (a path never reaches SQL: DuckDB writes into the staging folder)', async () => {
    const { dir, ledger, lines } = await setup();
    for (const format of ['xlsx', 'parquet', 'csv'] as const) {
      const path = join(dir, `month.${format}`);
      expect(await exported(ledger, format, path, options)).toEqual({ lines: lines.length });
      expect((await stat(path)).mode & 0o777).toBe(0o600);
    }
    expect(await exported(ledger, 'parquet', join(dir, "x'\n.parquet"), options)).toEqual({ lines: lines.length });
    expect((await readdir(dir)).filter((name) => name.startsWith('month.') || name.startsWith('x')).sort()).toEqual([
      'month.csv',
      'month.parquet',
      'month.xlsx',
      "x'\n.parquet",
    ]);
  });

  it('tells how far a workbook export got, batch by batch, up to every line', async () => {
    const { dir, ledger, lines } = await setup();
    const told: number[] = [];
    const written = await exported(ledger, 'xlsx', join(dir, 'progress.xlsx'), { ...options, onProgress: (count) => told.push(count) });
    expect(told.length).toBeGreaterThan(0);
    expect(told).toEqual([...told].sort((a, b) => a - b));
    expect(told.at(-1)).toBe(lines.length);
    expect(written.lines).toBe(lines.length);
  });
});

/** A node of DuckDB's plan as EXPLAIN (FORMAT JSON) gives it. */
interface PlanNode {
  name: string;
  children: PlanNode[];
  extra_info: Record<string, string | undefined>;
}

/** Whose rows a hashed side holds: the table first scanned down its streamed children ('' for a kept CTE's, 'grouped' for sums). */
function rowsOf(node: PlanNode): string {
  for (let at: PlanNode | undefined = node; at; at = at.children[0]) {
    if (at.name.includes('GROUP_BY')) return 'grouped';
    if (at.extra_info.Table) return at.extra_info.Table.split('.').at(-1)!;
  }
  return '';
}
