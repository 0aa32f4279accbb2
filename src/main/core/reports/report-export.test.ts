import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Money } from '../../../shared/money';
import { Ledger } from '../ledger/ledger';
import { silentLogger } from '../platform/ports';
import { buildBillingReport, generateOrganizations, temporaryDir } from '../../testing/test-support';
import { exportReport, LINE_EXPORT_COLUMNS } from './report-export';
import { ingestReport } from './report-ingest';

const REPORT = '00000000-0000-4000-8000-000000000003';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function setup() {
  const dir = await temporaryDir();
  cleanups.push(() => dir.remove());
  const ledger = await Ledger.open(dir.path, silentLogger);
  cleanups.push(() => ledger.close());
  const entries = buildBillingReport(generateOrganizations({ seed: 4, organizations: 20, linesPerOrganization: 6 }), '2026-10-01', '2026-10-31', { seed: 4 });
  entries[0]!.organizations[0]!.name = '=HYPERLINK("http://evil.example","click")';
  const line = entries[0]!.organizations[1]!.services[0]!.items[0]!.products[0]!;
  line.totalCustomerPrice = '-12.50';
  line.productName = '-credit, "quoted"';
  async function* body() {
    yield JSON.stringify({ status: 5, data: entries });
  }
  await ingestReport(ledger, { reportId: REPORT, jobId: null, name: 'Billing 2026-10', profileId: 'p', profileName: 'P', host: 'h', resellerId: 'r', period: { startDate: '2026-10-01', endDate: '2026-10-31' }, fetchedAt: '2026-11-07T00:00:00Z', source: 'service', sourceFile: null }, body());
  const lines = entries.flatMap((entry) => entry.organizations.flatMap((organization) => organization.services.flatMap((service) => service.items.flatMap((item) => item.products.map((product) => ({ service, product }))))));
  return { dir: dir.path, ledger, lines };
}

const options = { appVersion: 't', exportedAt: new Date('2026-11-08T00:00:00Z') };

/** A minimal RFC 4180 reader for the test: quoted cells, doubled quotes, CRLF rows. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let at = 0; at < text.length; at++) {
    const char = text[at] as string;
    if (quoted && char === '"' && text[at + 1] === '"') {
      cell += '"';
      at++;
    } else if (char === '"') quoted = !quoted;
    else if (!quoted && char === ',') {
      row.push(cell);
      cell = '';
    } else if (!quoted && char === '\r' && text[at + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      at++;
    } else cell += char;
  }
  return rows;
}

describe('exports from the ledger', () => {
  it('writes CSV with a BOM, CRLF, fixed columns and exact point decimals; formula-leading text is escaped, negative amounts are not', async () => {
    const { dir, ledger, lines } = await setup();
    const path = join(dir, 'lines.csv');
    expect(await exportReport(async () => ledger, REPORT, 'csv', path, options)).toEqual({ lines: lines.length });
    const text = await readFile(path, 'utf8');
    expect(text.startsWith('\uFEFF')).toBe(true);
    const [header, ...rows] = parseCsv(text.slice(1));
    expect(header).toEqual(LINE_EXPORT_COLUMNS.map(([name]) => name));
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
    expect(await exportReport(async () => ledger, REPORT, 'parquet', path, { ...options, filter: { currency: 'SEK' } })).toMatchObject({ lines: expect.any(Number) });
    const [read] = await ledger.all(`SELECT count(*) AS n, sum("Sales")::VARCHAR AS sales, typeof(any_value("Sales")) AS type FROM read_parquet($1)`, [path]);
    const sek = lines.filter(({ service }) => service.currencyCode === 'SEK' && (service.customerCurrencyCode ?? 'SEK') === 'SEK');
    expect(Number(read?.n)).toBe(sek.length);
    expect(new Money(String(read?.sales)).equals(sek.reduce((sum, { product }) => sum.plus(String(product.totalCustomerPrice)), new Money(0)))).toBe(true);
    expect(String(read?.type)).toMatch(/^DECIMAL/);
  });
});
