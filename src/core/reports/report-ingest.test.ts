import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { Money } from '@shared/money';
import { silentLogger } from '../ports/ports';
import { Ledger } from '../ledger/ledger';
import { buildBillingReport, generateOrganizations, temporaryDir } from '@testing/test-support';
import { ingestReport } from './report-ingest';
import { deleteReport } from './queries/library';
import { ReportLibrary } from './report-library';
import { testIdentity } from '@testing/ledger-month';

const cleanups = cleanupsAfterEach();

async function openLedger(dir?: string) {
  let folder = dir;
  if (!folder) {
    const made = await temporaryDir();
    cleanups.push(made.remove); // after the ledger closes (cleanups run last first)
    folder = made.path;
  }
  const ledger = await Ledger.open(folder, silentLogger);
  cleanups.push(() => ledger.close());
  return { ledger, folder };
}

const identity = (reportId: string, jobId: string | null = null) => testIdentity(reportId, { jobId });

const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function served(organizations = 12, seed = 7) {
  return buildBillingReport(generateOrganizations({ seed, organizations, linesPerOrganization: 8 }), '2026-10-01', '2026-10-31', { seed });
}

/** The body in chunks of odd sizes, as a network delivers it. */
async function* chunks(text: string, size = 997): AsyncGenerator<string> {
  for (let at = 0; at < text.length; at += size) yield text.slice(at, at + size);
}

/** Exact per-currency-pair sums of the lines, computed independently with decimal.js. */
function exactSums(entries: ReturnType<typeof served>) {
  const sums = new Map<string, { cost: InstanceType<typeof Money>; sales: InstanceType<typeof Money>; lines: number }>();
  for (const entry of entries)
    for (const organization of entry.organizations)
      for (const service of organization.services)
        for (const item of service.items)
          for (const line of item.products) {
            const key = `${service.currencyCode}|${service.customerCurrencyCode ?? service.currencyCode}`;
            const sum = sums.get(key) ?? { cost: new Money(0), sales: new Money(0), lines: 0 };
            sums.set(key, {
              cost: sum.cost.plus(String(line.totalResellerPrice)),
              sales: sum.sales.plus(String(line.totalCustomerPrice)),
              lines: sum.lines + 1,
            });
          }
  return [...sums.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, sum]) => ({ key, lines: sum.lines, cost: sum.cost.toFixed(6), sales: sum.sales.toFixed(6) }));
}

async function ledgerSums(ledger: Ledger, reportId: string) {
  const rows = await ledger.all(
    `SELECT currency || '|' || customer_currency AS key, line_count AS lines, cost::VARCHAR AS cost, sales::VARCHAR AS sales FROM report_totals WHERE report_id = $1 ORDER BY key`,
    [reportId],
  );
  return rows.map((row) => ({ ...row, lines: Number(row.lines) }));
}

describe('report ingest into the ledger', () => {
  it('stores a complete report exactly: ledger sums equal the exact sums of the served lines, per currency pair', async () => {
    const { ledger } = await openLedger();
    const entries = served(40);
    const outcome = await ingestReport(ledger, identity(ID(1), ID(101)), chunks(JSON.stringify({ status: 5, data: entries })));
    expect(outcome).toMatchObject({ complete: true, status: 5 });
    expect(await ledgerSums(ledger, ID(1))).toEqual(exactSums(entries));
    const [report] = await ledger.all('SELECT line_count, organization_count FROM reports WHERE report_id = $1', [ID(1)]);
    expect(Number(report?.line_count)).toBe(exactSums(entries).reduce((total, sum) => total + sum.lines, 0));
  });

  it('saves a month with DuckDB held to part of its memory, and gives the whole back once saved, or refused', async () => {
    const { ledger } = await openLedger();
    const limit = async () => String((await ledger.all("SELECT current_setting('memory_limit') AS limit"))[0]?.limit);
    const whole = await limit();
    const during: string[] = [];
    async function* watched(text: string) {
      for await (const chunk of chunks(text, 4096)) {
        during.push(await limit());
        yield chunk;
      }
    }
    await ingestReport(ledger, identity(ID(1)), watched(JSON.stringify({ status: 5, data: served() })));
    expect(during.length).toBeGreaterThan(1);
    expect(new Set(during).size).toBe(1);
    expect(during[0]).not.toBe(whole);
    expect(await limit()).toBe(whole);
    await expect(ingestReport(ledger, identity(ID(2)), watched('{"status": 5, "data": [{"organizations": 7}]}'))).rejects.toThrow(/cannot read/);
    expect(await limit()).toBe(whole);
  });

  it("sums a saved month's product lines, which add up to its exact totals per currency pair, and deletes them with it", async () => {
    const { ledger } = await openLedger();
    const entries = served(40);
    await ingestReport(ledger, identity(ID(1), ID(101)), chunks(JSON.stringify({ status: 5, data: entries })));
    const productLineSums = await ledger.all(
      `SELECT currency || '|' || customer_currency AS key, sum(cost)::DECIMAL(38, 6)::VARCHAR AS cost, sum(sales)::DECIMAL(38, 6)::VARCHAR AS sales,
         count(*)::INTEGER AS product_lines
       FROM product_lines WHERE report_id = $1 GROUP BY ALL ORDER BY key`,
      [ID(1)],
    );
    expect(productLineSums.map(({ key, cost, sales }) => ({ key, cost, sales }))).toEqual(
      exactSums(entries).map(({ key, cost, sales }) => ({ key, cost, sales })),
    );
    // Several lines of one product of one subscription are one product line: fewer than the lines, never more.
    const productLines = productLineSums.reduce((total, row) => total + Number(row.product_lines), 0);
    expect(productLines).toBeGreaterThan(0);
    expect(productLines).toBeLessThanOrEqual(exactSums(entries).reduce((total, sum) => total + sum.lines, 0));

    await deleteReport(ledger, ID(1), async () => {});
    expect(await ledger.all('SELECT count(*)::INTEGER AS n FROM product_lines')).toEqual([{ n: 0 }]);
  });

  it('counts each organization once, though it appears in two billing runs of the month', async () => {
    const { ledger } = await openLedger();
    const entries = served(6); // two billing runs: the second bills the first one's organizations again, and three more
    const appearances = entries.flatMap((entry) => entry.organizations.map((organization) => organization.orgId));
    expect(appearances.length).toBeGreaterThan(new Set(appearances).size);
    await ingestReport(ledger, identity(ID(3)), chunks(JSON.stringify({ status: 5, data: entries })));
    const library = new ReportLibrary(async () => ledger);
    expect((await library.meta(ID(3))).counts.organizations).toBe(new Set(appearances).size);
    expect((await library.list()).find((listed) => listed.id === ID(3))?.counts.organizations).toBe(new Set(appearances).size);
  });

  it('accepts both shapes, a status sent as text, unknown fields, and a byte-order mark', async () => {
    const { ledger } = await openLedger();
    const entries = served(5);
    const odd = entries.map((entry) => ({
      ...entry,
      extra: { nested: [1, 2] },
      organizations: entry.organizations.map((o) => ({ ...o, somethingNew: true })),
    }));
    expect(await ingestReport(ledger, identity(ID(2)), chunks(`\uFEFF${JSON.stringify([{ data: odd, status: '5', more: null }])}`, 50))).toMatchObject({
      complete: true,
    });
    expect(await ledgerSums(ledger, ID(2))).toEqual(exactSums(entries));
  });

  it('stores nothing for a report still generating and says its status', async () => {
    const { ledger } = await openLedger();
    expect(await ingestReport(ledger, identity(ID(3)), chunks('{"status":0,"data":null}'))).toEqual({ complete: false, status: 0 });
    expect(await ledger.all('SELECT * FROM reports')).toEqual([]);
  });

  it('refuses a malformed field naming its path, and leaves nothing half-stored', async () => {
    const { ledger } = await openLedger();
    const entries = served(6);
    (entries.at(-1)!.organizations[3]!.services[0] as { totalResellerPrice: unknown }).totalResellerPrice = '12,50';
    await expect(ingestReport(ledger, identity(ID(4)), chunks(JSON.stringify({ status: 5, data: entries })))).rejects.toThrow(
      new RegExp(`at data\\.${entries.length - 1}\\.organizations\\.3\\.services\\.0\\.totalResellerPrice, must be a decimal number`),
    );
    for (const table of ['reports', 'organizations', 'services', 'billing_lines', 'report_totals'])
      expect(await ledger.all(`SELECT * FROM ${table}`)).toEqual([]);
  });

  it('refuses hostile decimals at once instead of rounding them: 100,000 decimal places, 400 digits, a JSON number past double precision', async () => {
    const { ledger } = await openLedger();
    const base = served(2);
    const line = (value: string) => JSON.stringify({ status: 5, data: base }).replace(/"totalCustomerPrice":"[^"]*"/, `"totalCustomerPrice":${value}`);
    const started = Date.now();
    await expect(ingestReport(ledger, identity(ID(5)), chunks(line(`"0.${'1'.repeat(100_000)}"`), 64 * 1024))).rejects.toThrow(/characters long/);
    expect(Date.now() - started).toBeLessThan(10_000);
    await expect(ingestReport(ledger, identity(ID(6)), chunks(line(`"${'9'.repeat(400)}"`)))).rejects.toThrow(/characters long|too large/);
    await expect(ingestReport(ledger, identity(ID(7)), chunks(line('1234567890.1234567')))).rejects.toThrow(/significant digits/);
    await expect(ingestReport(ledger, identity(ID(8)), chunks(line('"1.1234567"')))).rejects.toThrow(/7 decimal places/);
    expect(await ledger.all('SELECT * FROM reports')).toEqual([]);
  });

  it('keeps a JSON number as written (no float on the way): 0.1 + 0.2 sums to exactly 0.3', async () => {
    const { ledger } = await openLedger();
    const entries = served(1);
    const body = JSON.stringify({ status: 5, data: entries });
    const organization = entries[0]!.organizations[0]!;
    const lines = organization.services.flatMap((service) => service.items.flatMap((item) => item.products));
    expect(lines.length).toBeGreaterThan(1);
    let seen = 0;
    const patched = body.replace(/"totalCustomerPrice":"[^"]*"/g, (match) =>
      match && organization ? `"totalCustomerPrice":${seen++ % 2 ? '0.2' : '0.1'}` : match,
    );
    await ingestReport(ledger, identity(ID(9)), chunks(patched));
    const [pair] = await ledger.all(`SELECT sum(sales)::VARCHAR AS sales, count(*) AS n FROM billing_lines WHERE report_id = $1 AND line_no <= 2`, [ID(9)]);
    expect(pair?.sales).toBe('0.300000');
  });

  it('stores one report per request job', async () => {
    const { ledger } = await openLedger();
    const body = JSON.stringify({ status: 5, data: served(2) });
    await ingestReport(ledger, identity(ID(10), ID(110)), chunks(body));
    await expect(ingestReport(ledger, identity(ID(11), ID(110)), chunks(body))).rejects.toMatchObject({ code: 'conflict' });
    expect(await ledger.all('SELECT report_id FROM reports')).toEqual([{ report_id: ID(10) }]);
  });

  it('after a crash mid-ingest lists nothing of that report, and the ledger opens with earlier months intact', async () => {
    const { folder } = await (async () => {
      const dir = await temporaryDir();
      cleanups.push(() => dir.remove());
      return { folder: dir.path };
    })();
    const first = await Ledger.open(folder, silentLogger);
    await ingestReport(first, identity(ID(12)), chunks(JSON.stringify({ status: 5, data: served(3) })));
    await first.close();
    // A second process ingests a big month and is killed half-way through.
    const script = `
      const { Ledger } = require('./src/core/ledger/ledger');
      const { ingestReport } = require('./src/core/reports/report-ingest');
      const { buildBillingReport, generateOrganizations } = require('./src/testing/test-support');
      (async () => {
        const ledger = await Ledger.open(${JSON.stringify(folder)}, { info() {}, warn() {} });
        const data = buildBillingReport(generateOrganizations({ seed: 3, organizations: 400, linesPerOrganization: 10 }), '2026-11-01', '2026-11-30', { seed: 3 });
        const text = JSON.stringify({ status: 5, data });
        async function* body() { for (let at = 0; at < text.length; at += 4096) { if (at > text.length / 2) process.kill(process.pid, 'SIGKILL'); yield text.slice(at, at + 4096); } }
        await ingestReport(ledger, ${JSON.stringify(identity(ID(13)))}, body());
      })();`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: process.cwd(), encoding: 'utf8' });
    expect(child.signal, child.stderr).toBe('SIGKILL');
    const { ledger } = await openLedger(folder);
    expect((await ledger.all('SELECT report_id FROM reports')).map((row) => row.report_id)).toEqual([ID(12)]);
    expect(await ledger.all('SELECT DISTINCT report_id FROM billing_lines')).toEqual([{ report_id: ID(12) }]);
  });

  describe('reads every shape the service may send (spec §2.3)', () => {
    const line = {
      productName: 'P',
      productId: 'p1',
      itemCode: 'IC',
      quantity: 2,
      resellerPricePerUnit: '1.5',
      customerPricePerUnit: '2.0',
      totalResellerPrice: '3.00',
      totalCustomerPrice: '4.00',
      itemDetails: '',
    };
    const entry = () => ({
      billingDate: '2026-10-07T00:00:00',
      billingContentStartDate: '2026-10-01T00:00:00',
      billingContentEndDate: '2026-10-31T00:00:00',
      organizations: [
        {
          name: 'Org',
          customerNumber: 'C-1',
          orgId: 'o1',
          organizationGroups: ['G'],
          services: [
            {
              serviceName: 'S',
              serviceId: 's1',
              totalResellerPrice: '3.00',
              totalCustomerPrice: '4.00',
              currencyCode: 'SEK',
              customerCurrencyCode: 'SEK',
              items: [
                {
                  itemName: 'I',
                  subscriptionId: 'i1',
                  poNumber: '',
                  quantity: 2,
                  totalResellerPrice: '3.00',
                  totalCustomerPrice: '4.00',
                  resellerPricePerUnit: '1.5',
                  customerPricePerUnit: '2.0',
                  products: [{ ...line }],
                },
              ],
            },
          ],
        },
      ],
    });
    let n = 100;
    const ingest = async (ledger: Ledger, body: unknown) => ingestReport(ledger, identity(ID(++n)), chunks(JSON.stringify(body), 7));

    it('a running report: status 0 with null or no data, as number or string, bare or wrapped', async () => {
      const { ledger } = await openLedger();
      for (const body of [{ status: 0, data: null }, { status: '0', data: null }, [{ status: 0, data: null }], { status: 0 }])
        expect(await ingest(ledger, body)).toEqual({ complete: false, status: 0 });
    });

    it('a complete report in both shapes, money kept exactly as sent', async () => {
      const { ledger } = await openLedger();
      for (const body of [{ status: 5, data: [entry()] }, [{ status: '5', data: [entry()] }]])
        expect(await ingest(ledger, body)).toMatchObject({ complete: true, status: 5, lines: 1 });
      expect(await ledger.all('SELECT DISTINCT cost::VARCHAR AS cost, cost_per_unit::VARCHAR AS unit FROM billing_lines')).toEqual([
        { cost: '3.000000', unit: '1.50000000' },
      ]);
    });

    it('an unknown status passes through for the job to handle, storing nothing', async () => {
      const { ledger } = await openLedger();
      expect(await ingest(ledger, { status: 3, data: null })).toEqual({ complete: false, status: 3 });
    });

    it('a bad field fails with its path', async () => {
      const { ledger } = await openLedger();
      const bad = entry();
      (bad.organizations[0]!.services[0]!.items[0]!.products[0] as Record<string, unknown>).totalCustomerPrice = '12,50';
      await expect(ingest(ledger, { status: 5, data: [bad] })).rejects.toThrow(
        'at data.0.organizations.0.services.0.items.0.products.0.totalCustomerPrice, must be a decimal number',
      );
    });

    it('refuses a complete status with no data, a status that is not a number, and two results', async () => {
      const { ledger } = await openLedger();
      await expect(ingest(ledger, { status: 5, data: null })).rejects.toThrow(/data is empty/);
      await expect(ingest(ledger, { status: 'done', data: null })).rejects.toThrow(/at status, must be a whole number/);
      await expect(ingest(ledger, [{ status: 0 }, { status: 0 }])).rejects.toThrow(/more than one result/);
      await expect(ingest(ledger, { data: [entry()] })).rejects.toThrow(/without a status/);
    });

    it('reads a missing customer currency as the service currency', async () => {
      const { ledger } = await openLedger();
      const noCustomerCurrency = entry() as unknown as { organizations: { services: Record<string, unknown>[] }[] };
      delete noCustomerCurrency.organizations[0]!.services[0]!.customerCurrencyCode;
      await ingest(ledger, { status: 5, data: [noCustomerCurrency] });
      expect(await ledger.all('SELECT currency, customer_currency FROM services')).toEqual([{ currency: 'SEK', customer_currency: 'SEK' }]);
    });
  });

  describe('hands an organization over in parts, whatever the order of its fields', () => {
    const rows = async (ledger: Ledger, reportId: string) => ({
      organizations: await ledger.all('SELECT org_no, entry_no, org_id, name, customer_number FROM organizations WHERE report_id = $1 ORDER BY org_no', [
        reportId,
      ]),
      groups: await ledger.all('SELECT org_no, group_name FROM organization_groups WHERE report_id = $1 ORDER BY org_no, group_name', [reportId]),
      services: await ledger.all(
        'SELECT service_no, org_no, service_id, currency, customer_currency, stated_cost::VARCHAR AS cost, stated_sales::VARCHAR AS sales FROM services WHERE report_id = $1 ORDER BY service_no',
        [reportId],
      ),
      subscriptions: await ledger.all(
        'SELECT subscription_no, service_no, org_no, subscription_id, stated_cost::VARCHAR AS cost FROM subscriptions WHERE report_id = $1 ORDER BY subscription_no',
        [reportId],
      ),
      lines: await ledger.all(
        'SELECT line_no, subscription_no, service_no, org_no, product_id, cost::VARCHAR AS cost, currency, customer_currency, product_no FROM billing_lines WHERE report_id = $1 ORDER BY line_no',
        [reportId],
      ),
      totals: await ledgerSums(ledger, reportId),
    });
    /** Every object's list of children first, its own fields after (JSON's key order is free). */
    const childrenFirst = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(childrenFirst);
      if (!value || typeof value !== 'object') return value;
      const entries = Object.entries(value).map(([key, item]) => [key, childrenFirst(item)] as const);
      const lists = ['organizations', 'services', 'items', 'products'];
      return Object.fromEntries([...entries.filter(([key]) => lists.includes(key)), ...entries.filter(([key]) => !lists.includes(key))]);
    };

    it("stores the same rows when a service's currencies, and every part's own fields, come after its children", async () => {
      const { ledger } = await openLedger();
      const entries = served(8, 11);
      await ingestReport(ledger, identity(ID(201)), chunks(JSON.stringify({ status: 5, data: entries }), 500));
      await ingestReport(ledger, identity(ID(202)), chunks(JSON.stringify({ data: childrenFirst(entries), status: 5 }), 500));
      const [before, after] = [await rows(ledger, ID(201)), await rows(ledger, ID(202))];
      expect(after.lines.length).toBeGreaterThan(50);
      expect(after).toEqual(before);
      expect(after.totals).toEqual(exactSums(entries));
    });

    it('names the path of a bad own field that comes after the lines, and stores nothing', async () => {
      const { ledger } = await openLedger();
      const entries = childrenFirst(served(6)) as ReturnType<typeof served>;
      const entryNo = entries.length - 1;
      const orgNo = entries[entryNo]!.organizations.length - 1;
      (entries[entryNo]!.organizations[orgNo]!.services[0] as { currencyCode: string }).currencyCode = 'KRONOR';
      await expect(ingestReport(ledger, identity(ID(203)), chunks(JSON.stringify({ status: 5, data: entries })))).rejects.toThrow(
        `at data.${entryNo}.organizations.${orgNo}.services.0.currencyCode, `,
      );
      expect(await ledger.all('SELECT * FROM billing_lines')).toEqual([]);
    });

    it('refuses a report cut short between two organizations (it was saved half before)', async () => {
      const { ledger } = await openLedger();
      const body = JSON.stringify({ status: 5, data: served(4) });
      const cut = body.slice(0, body.indexOf(',{"name"', body.indexOf('"organizations"')));
      await expect(ingestReport(ledger, identity(ID(204)), chunks(cut))).rejects.toThrow(/ends too early, as if cut short/);
      expect(await ledger.all('SELECT * FROM reports')).toEqual([]);
    });
  });
});
