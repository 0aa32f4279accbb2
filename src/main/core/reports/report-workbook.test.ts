import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, describe, expect, it } from 'vitest';
import { Money } from '../../../shared/money';
import type { ReportFilter } from '../../../shared/report-filter';
import { BillingEntry } from '../../../shared/schemas/billing-report';
import type { SavedReport } from '../../../shared/schemas/saved-report';
import { Ledger } from '../ledger/ledger';
import { silentLogger } from '../platform/ports';
import { buildBillingReport, generateOrganizations, temporaryDir } from '../../testing/test-support';
import { ingestReport } from './report-ingest';
import { ReportLibrary } from './report-library';
import { BILLING_LINE_HEADERS, writeReportWorkbook } from './report-workbook';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function sampleReport(inconsistentEvery = 0): SavedReport {
  const organizations = generateOrganizations({ seed: 3, organizations: 30, linesPerOrganization: 8 });
  const entries = BillingEntry.array().parse(buildBillingReport(organizations, '2026-10-01', '2026-10-31', { seed: 3, inconsistentEvery }));
  return {
    meta: {
      id: '22222222-2222-4222-8222-222222222222',
      schemaVersion: 1,
      name: 'Billing 2026-10',
      profileId: 'p',
      profileName: 'Prod',
      host: 'billing.example.com',
      period: { startDate: '2026-10-01', endDate: '2026-10-31' },
      fetchedAt: '2026-11-08T09:00:00.000Z',
      counts: { billingEntries: 2, organizations: 30, services: 0, subscriptions: 0, lines: 0 },
      totals: [],
    },
    entries,
  };
}

/** The report saved in a ledger of its own, exported, and the workbook read back. */
async function load(report: SavedReport, filter?: ReportFilter, maxRows?: number) {
  const dir = await temporaryDir();
  cleanups.push(() => dir.remove());
  const ledger = await Ledger.open(dir.path, silentLogger);
  cleanups.push(() => ledger.close());
  const { meta } = report;
  async function* body() {
    yield JSON.stringify({ status: 5, data: report.entries });
  }
  await ingestReport(ledger, { reportId: meta.id, jobId: null, name: meta.name, profileId: meta.profileId, profileName: meta.profileName, host: meta.host, resellerId: 'r', period: meta.period, fetchedAt: meta.fetchedAt, source: 'service', sourceFile: null }, body());
  const path = join(dir.path, 'out.xlsx');
  await writeReportWorkbook(ledger, await new ReportLibrary(async () => ledger).meta(meta.id), path, { appVersion: '1.2.3', exportedAt: new Date('2026-11-08T10:00:00Z'), ...(filter ? { filter } : {}), ...(maxRows ? { maxRows } : {}) });
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  return workbook;
}

function rows(sheet: ExcelJS.Worksheet): ExcelJS.CellValue[][] {
  const result: ExcelJS.CellValue[][] = [];
  sheet.eachRow((row) => result.push((row.values as ExcelJS.CellValue[]).slice(1)));
  return result;
}

/** Exact sums of the report's own decimal strings, per "cost currency|sales currency". */
function exactLineTotals(report: SavedReport) {
  const totals = new Map<string, { cost: InstanceType<typeof Money>; sales: InstanceType<typeof Money> }>();
  for (const entry of report.entries)
    for (const organization of entry.organizations)
      for (const service of organization.services)
        for (const item of service.items)
          for (const line of item.products) {
            const key = `${service.currencyCode}|${service.customerCurrencyCode}`;
            const total = totals.get(key) ?? { cost: new Money(0), sales: new Money(0) };
            totals.set(key, { cost: total.cost.plus(line.totalResellerPrice), sales: total.sales.plus(line.totalCustomerPrice) });
          }
  return totals;
}

describe('the report workbook', () => {
  it('has Summary, Services, Billing lines and About, with the exact ERP headers in order', async () => {
    const workbook = await load(sampleReport());
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(['Summary', 'Services', 'Billing lines', 'About']);
    expect(rows(workbook.getWorksheet('Billing lines')!)[0]).toEqual([...BILLING_LINE_HEADERS]);
    expect(rows(workbook.getWorksheet('Summary')!)[0]).toEqual(['Organization', 'Customer number', 'Organization groups', 'Currency', 'Cost', 'Sales', 'Margin', 'Margin %']);
    expect(rows(workbook.getWorksheet('Services')!)[0]).toEqual(['Organization', 'Service', 'Service ID', 'Currency', 'Cost', 'Sales', 'Margin', 'Margin %']);
  });

  it('writes billing lines as numbers and dates whose per-currency sums equal the exact decimal sums', async () => {
    const report = sampleReport();
    const sheet = (await load(report)).getWorksheet('Billing lines')!;
    const body = rows(sheet).slice(1);
    expect(body.length).toBe(report.entries.reduce((n, e) => n + e.organizations.reduce((m, o) => m + o.services.reduce((k, s) => k + s.items.reduce((j, i) => j + i.products.length, 0), 0), 0), 0));
    const sums = new Map<string, { cost: InstanceType<typeof Money>; sales: InstanceType<typeof Money> }>();
    for (const row of body) {
      for (const column of [12, 13, 14, 15, 16]) expect(typeof row[column]).toBe('number');
      expect(row[20]).toBeInstanceOf(Date);
      const key = `${row[18]}|${row[19]}`;
      const sum = sums.get(key) ?? { cost: new Money(0), sales: new Money(0) };
      // String(number) is the shortest exact form of the decimal the cell was written from.
      sums.set(key, { cost: sum.cost.plus(String(row[15])), sales: sum.sales.plus(String(row[16])) });
    }
    const exact = exactLineTotals(report);
    expect([...sums.keys()].sort()).toEqual([...exact.keys()].sort());
    for (const [key, total] of exact) {
      expect(sums.get(key)?.cost.eq(total.cost)).toBe(true);
      expect(sums.get(key)?.sales.eq(total.sales)).toBe(true);
    }
    expect((body[0]?.[20] as Date).toISOString()).toMatch(/^2026-10-0[17]T00:00:00/);
  });

  it('gives a Summary total row per currency: formulas stored with results equal to the exact sums', async () => {
    const report = sampleReport();
    const summary = rows((await load(report)).getWorksheet('Summary')!);
    const totalRows = summary.filter((row) => String(row[0]).startsWith('Total '));
    const exact = exactLineTotals(report);
    expect(totalRows).toHaveLength(exact.size);
    for (const row of totalRows) {
      const currency = String(row[3]);
      const [cost, sales = cost] = currency.split('→');
      const expected = exact.get(`${cost}|${sales}`)!;
      const costCell = row[4] as { formula: string; result: number };
      expect(costCell.formula).toMatch(/^SUM\(E\d+:E\d+\)$/);
      expect(new Money(String(costCell.result)).eq(expected.cost)).toBe(true);
      expect(new Money(String((row[5] as { result: number }).result)).eq(expected.sales)).toBe(true);
      if (cost === sales) expect(new Money(String((row[6] as { result: number }).result)).eq(expected.sales.minus(expected.cost))).toBe(true);
      else expect(row[6] ?? null).toBeNull(); // never a margin across two currencies
    }
  });

  it('freezes the header row and sets an autofilter on the data sheets', async () => {
    const workbook = await load(sampleReport());
    for (const name of ['Summary', 'Services', 'Billing lines']) {
      const sheet = workbook.getWorksheet(name)!;
      expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
      expect(sheet.autoFilter).toBeTruthy();
    }
    const numFmt = workbook.getWorksheet('Billing lines')!.getRow(2).getCell(16).numFmt;
    expect(numFmt).toMatch(/^#,##0\.00 "[A-Z]{3}"$/);
  });

  it('exports only what the view shows, and says so in About', async () => {
    const report = sampleReport();
    const group = report.entries[0]!.organizations[0]!.organizationGroups[0]!;
    const workbook = await load(report, { group });
    const lines = rows(workbook.getWorksheet('Billing lines')!).slice(1);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((row) => String(row[3]).split(', ').includes(group))).toBe(true);
    const about = rows(workbook.getWorksheet('About')!);
    expect(about.find((row) => row[0] === 'Scope')?.[1]).toBe(`Filtered view: group "${group}"`);
    expect(about.find((row) => row[0] === 'How margin is computed')?.[1]).toMatch(/never added/);
    expect(about.find((row) => row[0] === 'Closebook version')?.[1]).toBe('1.2.3');
  });

  it('keeps the billing lines as they are when a stated total is off (it does not "fix" the data)', async () => {
    const report = sampleReport(3);
    const lines = rows((await load(report)).getWorksheet('Billing lines')!).slice(1);
    const exact = exactLineTotals(report);
    const cost = lines.reduce((sum, row) => (row[18] === 'SEK' && row[19] === 'SEK' ? sum.plus(String(row[15])) : sum), new Money(0));
    expect(cost.eq(exact.get('SEK|SEK')!.cost)).toBe(true);
  });

  it('continues the billing lines on a second sheet when one sheet is full, and says so in About', async () => {
    const report = sampleReport();
    const all = rows((await load(report)).getWorksheet('Billing lines')!).slice(1);
    const split = await load(report, undefined, 101); // a header row and 100 lines per sheet
    const sheets = split.worksheets.filter((sheet) => sheet.name.startsWith('Billing lines'));
    expect(sheets.map((sheet) => sheet.name)).toEqual(['Billing lines', 'Billing lines (2)', 'Billing lines (3)'].slice(0, Math.ceil(all.length / 100)));
    expect(sheets.flatMap((sheet) => rows(sheet).slice(1))).toEqual(all);
    expect(rows(sheets[1]!)[0]).toEqual([...BILLING_LINE_HEADERS]);
    expect(rows(split.getWorksheet('About')!).find((row) => row[0] === 'Billing lines sheets')?.[1]).toMatch(/continue on the next sheet/);
  });

  it('writes text exactly as text: formula-like, XML-special and padded names, never a formula; control characters dropped', async () => {
    const report = sampleReport();
    const organization = report.entries[0]!.organizations[0]!;
    // (Not "&amp;" in the name: exceljs's reader decodes entities twice in such cells — its own writer's too.)
    organization.name = `=HYPERLINK("http://evil.example","x") <b>R&D</b> 'quoted'\u0007`;
    const product = organization.services[0]!.items[0]!.products[0]!;
    product.productName = '  padded  ';
    product.itemDetails = 'line one\nline two';
    const lines = rows((await load(report)).getWorksheet('Billing lines')!).slice(1);
    const first = lines[0]!; // the report's first line is this organization's first product
    expect(first[0]).toBe(`=HYPERLINK("http://evil.example","x") <b>R&D</b> 'quoted'`);
    expect(first[9]).toBe('  padded  ');
    expect(first[21]).toBe('line one\nline two');
  });

  it('splits Summary too, and each total row sums exactly its own currency block across the split sheets', async () => {
    const report = sampleReport();
    const workbook = await load(report, undefined, 7); // a header row and 6 rows per sheet
    const summaries = workbook.worksheets.filter((sheet) => sheet.name === 'Summary' || sheet.name.startsWith('Summary ('));
    expect(summaries.length).toBeGreaterThan(2);
    const exact = exactLineTotals(report);
    let totals = 0;
    for (const sheet of summaries) {
      expect(rows(sheet)[0]?.[0]).toBe('Organization');
      sheet.eachRow((row) => {
        if (!String(row.getCell(1).value).startsWith('Total ')) return;
        totals++;
        const currency = String(row.getCell(4).value);
        for (const [column, which] of [[5, 'cost'], [6, 'sales']] as const) {
          const { formula, result } = row.getCell(column).value as { formula: string; result: number };
          // Evaluate the SUM independently over the cells it names, on this sheet or another.
          const ranges = /^SUM\((.*)\)$/.exec(formula)![1]!.split(',');
          const sum = ranges.reduce((total, range) => {
            const [, quoted, first, last] = /^(?:'(.+)'!)?[A-Z]+(\d+):[A-Z]+(\d+)$/.exec(range)!;
            const target = quoted ? workbook.getWorksheet(quoted.replaceAll("''", "'"))! : sheet;
            let cells = total;
            for (let at = Number(first); at <= Number(last); at++) {
              expect(target.getRow(at).getCell(4).value).toBe(currency);
              cells = cells.plus(String(target.getRow(at).getCell(column).value));
            }
            return cells;
          }, new Money(0));
          const [cost, sales = cost] = currency.split('→');
          expect(sum.eq(String(result))).toBe(true);
          expect(sum.eq(exact.get(`${cost}|${sales}`)![which])).toBe(true);
        }
      });
    }
    expect(totals).toBe(exact.size);
    expect(rows(workbook.getWorksheet('About')!).find((row) => row[0] === 'Summary sheets')?.[1]).toMatch(/^Summary, Summary \(2\)/);
  });
});
