import { createRequire } from 'node:module';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { Money } from '@shared/money';
import type { ReportFilter } from '@shared/report-filter';
import { Ledger } from '../ledger/ledger';
import { silentLogger } from '../ports/ports';
import { buildBillingReport, generateOrganizations, type SavedReportFile, temporaryDir } from '@testing/test-support';
import { cellLocalTime, moneyFormat, rowXml, SheetSeries } from '../xlsx';
import { ingestReport } from './report-ingest';
import { ReportLibrary } from './report-library';
import { type WorkbookOptions, writeReportWorkbook } from './report-workbook';
import { INVOICING_COLUMNS, INVOICING_EXPLANATION } from './workbook/invoicing-sheet';
import { byNames } from '@testing/name-order';

/** The `Billing lines` headers an ERP import expects, exactly and in this order (the catalogue must give these). */
const BILLING_LINE_HEADERS = [
  'Organization',
  'Customer number',
  'Org ID',
  'Organization groups',
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
  'Total reseller price',
  'Total customer price',
  'Margin',
  'Currency',
  'Customer currency',
  'Billing date',
  'Item details',
];

const cleanups = cleanupsAfterEach();

type Entries = SavedReportFile['entries'];

function sampleReport(inconsistentEvery = 0, change?: (entries: Entries) => void): SavedReportFile {
  const organizations = generateOrganizations({ seed: 3, organizations: 30, linesPerOrganization: 8 });
  const entries = buildBillingReport(organizations, '2026-10-01', '2026-10-31', { seed: 3, inconsistentEvery });
  change?.(entries);
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

/** The report saved in a ledger of its own; `write` exports it (as often as asked) and reads the workbook back. */
async function saved(report: SavedReportFile) {
  const dir = await temporaryDir();
  cleanups.push(() => dir.remove());
  const ledger = await Ledger.open(dir.path, silentLogger);
  cleanups.push(() => ledger.close());
  const { meta } = report;
  async function* body() {
    yield JSON.stringify({ status: 5, data: report.entries });
  }
  await ingestReport(
    ledger,
    {
      reportId: meta.id,
      jobId: null,
      name: meta.name,
      profileId: meta.profileId,
      profileName: meta.profileName,
      host: meta.host,
      resellerId: 'r',
      period: meta.period,
      fetchedAt: meta.fetchedAt,
      source: 'service',
      sourceFile: null,
    },
    body(),
  );
  let exports = 0;
  return async (filter?: ReportFilter, maxRows?: number, more: Partial<WorkbookOptions> = {}) => {
    const path = join(dir.path, `out-${++exports}.xlsx`);
    await writeReportWorkbook(ledger, await new ReportLibrary(async () => ledger).meta(meta.id), path, {
      appVersion: '1.2.3',
      exportedAt: new Date('2026-11-08T10:00:00Z'),
      timeZone: 'Europe/Stockholm',
      ...(filter ? { filter } : {}),
      ...(maxRows ? { maxRows } : {}),
      ...more,
    });
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(path);
    return workbook;
  };
}

async function load(report: SavedReportFile, filter?: ReportFilter, maxRows?: number) {
  return (await saved(report))(filter, maxRows);
}

function rows(sheet: ExcelJS.Worksheet): ExcelJS.CellValue[][] {
  const result: ExcelJS.CellValue[][] = [];
  sheet.eachRow((row) => result.push((row.values as ExcelJS.CellValue[]).slice(1)));
  return result;
}

/** The last row of the autofilter range ("A1:H79" → 79). */
function filterEnd(sheet: ExcelJS.Worksheet): number {
  return Number(/^[A-Z]+1:[A-Z]+(\d+)$/.exec(String(sheet.autoFilter))![1]);
}

/** Rows whose first cell starts with "Total " (the grand totals), with their row numbers. */
function totalRows(sheet: ExcelJS.Worksheet): ExcelJS.Row[] {
  const found: ExcelJS.Row[] = [];
  sheet.eachRow((row) => String(row.getCell(1).value).startsWith('Total ') && found.push(row));
  return found;
}

const exactOf = (value: ExcelJS.CellValue) => new Money(String(typeof value === 'object' && value !== null && 'result' in value ? value.result : value));

/**
 * Evaluates the formulas the workbook writes — SUMIFS/COUNTIFS over ranges (on this sheet or another) against a
 * criteria cell, SUBTOTAL(9, …) skipping nested subtotals, and their sums — over the cells as read back, so a
 * formula is checked independently of the result stored beside it.
 */
function evaluate(workbook: ExcelJS.Workbook, sheet: ExcelJS.Worksheet, formula: string): Money {
  const cellsOf = (range: string) => {
    const [, quoted, column, first, , last] = /^(?:'(.+)'!)?([A-Z]+)(\d+):([A-Z]+)(\d+)$/.exec(range)!;
    const target = quoted ? workbook.getWorksheet(quoted.replaceAll("''", "'"))! : sheet;
    return Array.from({ length: Number(last) - Number(first) + 1 }, (_, index) => target.getCell(`${column}${Number(first) + index}`));
  };
  return formula.split('+').reduce((sum, term) => {
    const [, name, inner] = /^([A-Z]+)\((.*)\)$/.exec(term)!;
    const args = inner!.split(',');
    if (name === 'SUBTOTAL') {
      expect(args[0]).toBe('9');
      const cells = args.slice(1).flatMap(cellsOf);
      const nested = cells.filter(
        (cell) => typeof cell.value === 'object' && cell.value !== null && 'formula' in cell.value && /SUBTOTAL/.test(String(cell.value.formula)),
      );
      expect(nested).toEqual([]); // a customer subtotal never sums another
      return cells.reduce((total, cell) => (cell.value === null ? total : total.plus(exactOf(cell.value))), sum);
    }
    const criterion = sheet.getCell(args.at(-1)!).value;
    if (name === 'COUNTIFS') return sum.plus(cellsOf(args[0]!).filter((cell) => cell.value === criterion).length);
    expect(name).toBe('SUMIFS');
    const [values, criteria] = [cellsOf(args[0]!), cellsOf(args[1]!)];
    return values.reduce((total, cell, index) => (criteria[index]!.value === criterion && cell.value !== null ? total.plus(exactOf(cell.value)) : total), sum);
  }, new Money(0));
}

type Served = {
  organization: Entries[number]['organizations'][number];
  service: Entries[number]['organizations'][number]['services'][number];
  line: Entries[number]['organizations'][number]['services'][number]['items'][number]['products'][number];
};
const servedLines = (report: SavedReportFile): Served[] =>
  report.entries.flatMap((entry) =>
    entry.organizations.flatMap((organization) =>
      organization.services.flatMap((service) => service.items.flatMap((item) => item.products.map((line) => ({ organization, service, line })))),
    ),
  );

/** Exact sums of the report's own decimal strings, per "cost currency|sales currency". */
function exactLineTotals(report: SavedReportFile) {
  const totals = new Map<string, { cost: InstanceType<typeof Money>; sales: InstanceType<typeof Money> }>();
  for (const { service, line } of servedLines(report)) {
    const key = `${service.currencyCode}|${service.customerCurrencyCode}`;
    const total = totals.get(key) ?? { cost: new Money(0), sales: new Money(0) };
    totals.set(key, { cost: total.cost.plus(line.totalResellerPrice), sales: total.sales.plus(line.totalCustomerPrice) });
  }
  return totals;
}

const pairKey = (currency: string) => {
  const [cost, sales = cost] = currency.split('→');
  return `${cost}|${sales}`;
};

describe('the report workbook', () => {
  it('has Invoicing first, then Summary, Services, Organization groups, Billing lines and About, with the exact headers in order', async () => {
    const workbook = await load(sampleReport());
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(['Invoicing', 'Summary', 'Services', 'Organization groups', 'Billing lines', 'About']);
    expect(rows(workbook.getWorksheet('Invoicing')!)[0]).toEqual([
      'Customer number',
      'Organization',
      'Currency',
      'Amount to invoice',
      'Billing lines',
      'Flags',
    ]);
    expect(INVOICING_COLUMNS.map((column) => column.header)).toEqual([
      'Customer number',
      'Organization',
      'Currency',
      'Amount to invoice',
      'Billing lines',
      'Flags',
    ]);
    expect(rows(workbook.getWorksheet('Billing lines')!)[0]).toEqual([...BILLING_LINE_HEADERS]);
    expect(rows(workbook.getWorksheet('Summary')!)[0]).toEqual([
      'Organization',
      'Customer number',
      'Organization groups',
      'Currency',
      'Cost',
      'Sales',
      'Margin',
      'Margin %',
    ]);
    expect(rows(workbook.getWorksheet('Services')!)[0]).toEqual([
      'Organization',
      'Customer number',
      'Organization groups',
      'Service',
      'Service ID',
      'Currency',
      'Cost',
      'Sales',
      'Margin',
      'Margin %',
    ]);
    expect(rows(workbook.getWorksheet('Organization groups')!)[0]).toEqual(['Organization', 'Customer number', 'Org ID', 'Group']);
  });

  it('writes billing lines as numbers and dates whose per-currency sums equal the exact decimal sums, by organization, service and subscription', async () => {
    const report = sampleReport();
    const sheet = (await load(report)).getWorksheet('Billing lines')!;
    const body = rows(sheet).slice(1);
    expect(body.length).toBe(servedLines(report).length);
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
    const order = body.map((row) => [String(row[0]), String(row[4]), String(row[6])]);
    expect(order).toEqual([...order].sort(byNames()));
    expect((body[0]?.[20] as Date).toISOString()).toMatch(/^2026-10-0[17]T00:00:00/);
  });

  it('gives Summary and Services a grand total per currency pair below a blank row, outside the filter, styled as totals: formulas whose values are the exact sums', async () => {
    const report = sampleReport();
    const workbook = await load(report);
    const exact = exactLineTotals(report);
    for (const [name, currencyColumn] of [
      ['Summary', 4],
      ['Services', 6],
    ] as const) {
      const sheet = workbook.getWorksheet(name)!;
      const totals = totalRows(sheet);
      expect(totals).toHaveLength(exact.size);
      const end = filterEnd(sheet);
      expect(totals[0]!.number).toBe(end + 2); // one blank row between
      expect(sheet.getRow(end + 1).values).toEqual([]);
      expect(sheet.getRow(end).getCell(currencyColumn).value ?? sheet.getRow(end).getCell(1).value).toBeTruthy(); // the filter ends on the last data row
      for (const row of totals) {
        const currency = String(row.getCell(currencyColumn).value);
        const expected = exact.get(pairKey(currency))!;
        const [cost, sales, margin] = [1, 2, 3].map((offset) => row.getCell(currencyColumn + offset));
        for (const [cell, want] of [
          [cost!, expected.cost],
          [sales!, expected.sales],
        ] as const) {
          const { formula, result } = cell.value as { formula: string; result: number };
          expect(formula).toMatch(/^SUMIFS\(/);
          expect(new Money(String(result)).eq(want)).toBe(true);
          expect(evaluate(workbook, sheet, formula).eq(want)).toBe(true);
          expect(cell.font?.bold).toBe(true);
          expect(cell.border?.top?.style).toBe('thin');
        }
        expect(row.getCell(1).font?.bold).toBe(true);
        if (currency.includes('→'))
          expect(margin!.value ?? null).toBeNull(); // never a margin across two currencies
        else expect(exactOf(margin!.value).eq(expected.sales.minus(expected.cost))).toBe(true);
      }
    }
  });

  it('subtotals each customer per customer currency as an outline group: sales always, cost and margin only in one currency', async () => {
    const report = sampleReport(0, (entries) => {
      // One organization also buys a service sold in another currency: its SEK and its other sales are never added.
      const service = entries[0]!.organizations[1]!.services[0]!;
      service.customerCurrencyCode = service.customerCurrencyCode === 'NOK' ? 'DKK' : 'NOK';
    });
    const workbook = await load(report);
    const sheet = workbook.getWorksheet('Summary')!;
    const end = filterEnd(sheet);
    let block: ExcelJS.Row[] = [];
    let subtotals = 0;
    let mixed = 0;
    for (let at = 2; at <= end; at++) {
      const row = sheet.getRow(at);
      if (row.getCell(4).value !== null) {
        expect(row.outlineLevel).toBe(1);
        block.push(row);
        continue;
      }
      // A subtotal row: after its customer's rows of one customer currency, at the outline's top level.
      subtotals++;
      expect(row.outlineLevel).toBe(0);
      expect(block.length).toBeGreaterThan(0);
      const name = String(block[0]!.getCell(1).value);
      expect(block.every((data) => data.getCell(1).value === name)).toBe(true);
      const salesCurrencies = new Set(block.map((data) => String(data.getCell(4).value).split('→').at(-1)));
      expect(salesCurrencies.size).toBe(1);
      const [salesCurrency] = [...salesCurrencies];
      expect(row.getCell(1).value).toBe(`${name} — ${salesCurrency} total`);
      expect(row.getCell(6).font?.bold).toBe(true);
      const sales = row.getCell(6).value as { formula: string; result: number };
      expect(sales.formula).toMatch(/^SUBTOTAL\(9,/);
      const exactSales = block.reduce((sum, data) => sum.plus(exactOf(data.getCell(6).value)), new Money(0));
      expect(evaluate(workbook, sheet, sales.formula).eq(exactSales)).toBe(true);
      expect(new Money(String(sales.result)).eq(exactSales)).toBe(true);
      const costCurrencies = new Set(block.map((data) => String(data.getCell(4).value).split('→')[0]));
      if (costCurrencies.size === 1) {
        const cost = row.getCell(5).value as { formula: string; result: number };
        expect(evaluate(workbook, sheet, cost.formula).eq(block.reduce((sum, data) => sum.plus(exactOf(data.getCell(5).value)), new Money(0)))).toBe(true);
      } else {
        mixed++;
        expect(row.getCell(5).value ?? null).toBeNull();
      }
      const oneCurrency = costCurrencies.size === 1 && costCurrencies.has(salesCurrency);
      if (oneCurrency) expect(exactOf(row.getCell(7).value).eq(exactSales.minus(exactOf(row.getCell(5).value)))).toBe(true);
      else expect(row.getCell(7).value ?? null).toBeNull();
      block = [];
    }
    expect(block).toEqual([]); // every group is closed by its subtotal
    expect(mixed).toBeGreaterThan(0); // a customer bought in USD and in its own currency and sold in one
    const customersByCurrency = new Set(servedLines(report).map(({ organization, service }) => `${organization.orgId}|${service.customerCurrencyCode}`));
    expect(subtotals).toBe(customersByCurrency.size);
  });

  it('has an Invoicing sheet: one row per organization and customer currency whose amount is the exact sum of its lines, rounded once, with flags in words', async () => {
    // Planted by hand where the twin has none: a credit note, an organization without a customer number, a number with leading zeros.
    const report = sampleReport(0, (entries) => {
      const [credit, noNumber, zeros, twoCurrencies] = entries[0]!.organizations;
      for (const entry of entries) {
        for (const organization of entry.organizations) {
          if (organization.orgId === credit!.orgId) {
            for (const service of organization.services) {
              for (const item of service.items)
                for (const line of item.products) line.totalCustomerPrice = new Money(line.totalCustomerPrice).negated().toFixed();
              for (const item of service.items) item.totalCustomerPrice = new Money(item.totalCustomerPrice).negated().toFixed();
              service.totalCustomerPrice = new Money(service.totalCustomerPrice).negated().toFixed();
            }
          }
          if (organization.orgId === noNumber!.orgId) organization.customerNumber = '';
          if (organization.orgId === zeros!.orgId) organization.customerNumber = '000123';
        }
      }
      const service = twoCurrencies!.services[0]!;
      service.customerCurrencyCode = service.customerCurrencyCode === 'NOK' ? 'DKK' : 'NOK';
    });
    const workbook = await load(report);
    const sheet = workbook.getWorksheet('Invoicing')!;
    const end = filterEnd(sheet);
    const body = Array.from({ length: end - 1 }, (_, index) => sheet.getRow(index + 2));

    // Worked out here from the served report with decimal arithmetic.
    const expected = new Map<string, InstanceType<typeof Money>>();
    const lineCounts = new Map<string, number>();
    for (const { organization, service, line } of servedLines(report)) {
      const key = `${organization.name}|${service.customerCurrencyCode}`;
      expected.set(key, (expected.get(key) ?? new Money(0)).plus(line.totalCustomerPrice));
      lineCounts.set(key, (lineCounts.get(key) ?? 0) + 1);
    }
    expect(body.map((row) => `${String(row.getCell(2).value)}|${String(row.getCell(3).value)}`).sort()).toEqual([...expected.keys()].sort());
    let rounded = 0;
    for (const row of body) {
      const key = `${String(row.getCell(2).value)}|${String(row.getCell(3).value)}`;
      const want = expected.get(key)!.toDecimalPlaces(2, Money.ROUND_HALF_UP);
      const amount = row.getCell(4);
      expect(typeof amount.value).toBe('number');
      expect(new Money(String(amount.value)).eq(want)).toBe(true);
      if (!want.eq(expected.get(key)!)) rounded++;
      expect(amount.numFmt).toBe(moneyFormat(String(row.getCell(3).value)));
      expect(row.getCell(5).value).toBe(lineCounts.get(key));
    }
    expect(rounded).toBeGreaterThan(0); // four-decimal metered lines: the sum was rounded

    const [credit, noNumber, zeros] = report.entries[0]!.organizations;
    const flagsOf = (name: string) => body.filter((row) => row.getCell(2).value === name).map((row) => row.getCell(6).value);
    expect(flagsOf(credit!.name)).toEqual(['Credit note']); // the screen's words (shared/model/invoice-flags.ts)
    expect(new Money(String(body.find((row) => row.getCell(2).value === credit!.name)!.getCell(4).value)).isNegative()).toBe(true);
    expect(flagsOf(noNumber!.name)).toEqual(['No customer number']);
    const zeroRow = body.find((row) => row.getCell(2).value === zeros!.name)!;
    expect(zeroRow.getCell(1).value).toBe('000123'); // text, leading zeros kept
    expect(zeroRow.getCell(1).numFmt).toBe('@');
    expect(body.filter((row) => row.getCell(6).value !== null && row.getCell(6).value !== '')).toHaveLength(2);

    // Totals per currency below a blank row, outside the filter: customers, the sum of the rounded amounts, lines.
    const totals = totalRows(sheet);
    expect(totals[0]!.number).toBe(end + 2);
    const currencies = [...new Set(body.map((row) => String(row.getCell(3).value)))].sort();
    expect(totals.map((row) => row.getCell(3).value)).toEqual(currencies);
    for (const row of totals) {
      const mine = body.filter((data) => data.getCell(3).value === row.getCell(3).value);
      const sum = mine.reduce((total, data) => total.plus(String(data.getCell(4).value)), new Money(0));
      const [customers, amount, lines] = [2, 4, 5].map((column) => row.getCell(column).value as { formula: string; result: number });
      expect(customers!.result).toBe(mine.length);
      expect(evaluate(workbook, sheet, customers!.formula).toNumber()).toBe(mine.length);
      expect(new Money(String(amount!.result)).eq(sum)).toBe(true);
      expect(evaluate(workbook, sheet, amount!.formula).eq(sum)).toBe(true);
      expect(evaluate(workbook, sheet, lines!.formula).toNumber()).toBe(lines!.result);
      expect(row.getCell(4).font?.bold).toBe(true);
      expect(row.getCell(4).border?.top?.style).toBe('thin');
    }
  });

  it('lists each organization once per group on Organization groups, and an organization in no group once with the group empty', async () => {
    const report = sampleReport(0, (entries) => {
      const [none, two] = entries[0]!.organizations;
      for (const entry of entries) {
        for (const organization of entry.organizations) {
          if (organization.orgId === none!.orgId) organization.organizationGroups = [];
          if (organization.orgId === two!.orgId) organization.organizationGroups = ['Zeta', 'Alpha'];
        }
      }
    });
    const sheet = (await load(report)).getWorksheet('Organization groups')!;
    const body = rows(sheet).slice(1);
    const [none, two] = report.entries[0]!.organizations;
    const of = (orgId: string) => body.filter((row) => row[2] === orgId).map((row) => row[3] ?? null);
    expect(of(none!.orgId)).toEqual([null]);
    expect(of(two!.orgId)).toEqual(['Alpha', 'Zeta']);
    const organizations = new Set(servedLines(report).map(({ organization }) => organization.orgId));
    expect(new Set(body.map((row) => row[2])).size).toBe(organizations.size);
    const expectedRows = [...organizations].reduce((count, orgId) => {
      const groups = new Set(report.entries.flatMap((entry) => entry.organizations.filter((o) => o.orgId === orgId).flatMap((o) => o.organizationGroups)));
      return count + Math.max(1, groups.size);
    }, 0);
    expect(body).toHaveLength(expectedRows);
  });

  it('keeps shared cell styles unchanged: a second export in one process has the same plain amounts and bold totals', async () => {
    const write = await saved(sampleReport());
    const styles = (workbook: ExcelJS.Workbook) =>
      ['Summary', 'Services', 'Invoicing'].map((name) => {
        const sheet = workbook.getWorksheet(name)!;
        const end = filterEnd(sheet);
        const looks: string[] = [];
        sheet.eachRow((row) => {
          if (row.number === 1) return;
          const kind = row.number > end ? 'total' : row.getCell(1).font?.bold ? 'subtotal' : 'data';
          row.eachCell((cell) =>
            looks.push(`${kind} ${cell.address} ${cell.numFmt ?? ''} bold=${cell.font?.bold === true} top=${cell.border?.top?.style ?? ''}`),
          );
        });
        return looks;
      });
    const first = styles(await write());
    const second = styles(await write());
    expect(second).toEqual(first);
    for (const looks of first) {
      expect(looks.filter((look) => look.startsWith('data ')).every((look) => look.includes('bold=false'))).toBe(true);
      expect(looks.filter((look) => look.startsWith('total ')).every((look) => look.includes('bold=true') && look.includes('top=thin'))).toBe(true);
    }
  });

  it('sets up every sheet to print: landscape, one page wide, the header row on every page, the report name and page numbers in the footer', async () => {
    const report = sampleReport();
    report.meta.name = 'R&D billing 2026-10';
    const workbook = await load(report);
    for (const sheet of workbook.worksheets) {
      expect(sheet.pageSetup).toMatchObject({ orientation: 'landscape', fitToPage: false, scale: 100, printTitlesRow: '1:1', printTitlesColumn: 'A:A' });
      expect(sheet.pageSetup.margins).toMatchObject({ left: 0.4, right: 0.4 });
      expect(sheet.headerFooter.oddFooter).toBe('&LR&&D billing 2026-10&C&A&RPage &P of &N');
    }
    for (const name of ['Invoicing', 'Summary', 'Services', 'Organization groups', 'Billing lines']) {
      const sheet = workbook.getWorksheet(name)!;
      expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
      expect(sheet.autoFilter).toBeTruthy();
    }
    const numFmt = workbook.getWorksheet('Billing lines')!.getRow(2).getCell(16).numFmt;
    expect(numFmt).toMatch(/^#,##0\.00 "[A-Z]{3}"$/);
  });

  it('exports only what the view shows, and says so in About, with its own times in local time and the zone named', async () => {
    const report = sampleReport();
    const group = report.entries[0]!.organizations[0]!.organizationGroups[0]!;
    const workbook = await load(report, { group });
    const lines = rows(workbook.getWorksheet('Billing lines')!).slice(1);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((row) => String(row[3]).split(', ').includes(group))).toBe(true);
    const invoiced = rows(workbook.getWorksheet('Invoicing')!)
      .slice(1)
      .filter((row) => !String(row[0]).startsWith('Total '));
    expect(new Set(invoiced.map((row) => row[1]))).toEqual(new Set(lines.map((row) => row[0])));
    const about = rows(workbook.getWorksheet('About')!);
    expect(about.find((row) => row[0] === 'Scope')?.[1]).toBe(`Filtered view: group "${group}"`);
    expect(about.find((row) => row[0] === 'How margin is computed')?.[1]).toMatch(/never added/);
    expect(about.find((row) => row[0] === 'How the amount to invoice is computed')?.[1]).toBe(INVOICING_EXPLANATION);
    expect(INVOICING_EXPLANATION).toBe(
      "Amount to invoice = exact sum of sales in the customer currency, rounded once to the currency's minor unit; amounts are net of tax; negative totals are credit notes.",
    );
    expect(about.find((row) => row[0] === 'Closebook version')?.[1]).toBe('1.2.3');
    // 10:00 UTC on 8 November is 11:00 in Stockholm (UTC+01:00 in winter); the cell is that wall-clock time.
    const exported = about.find((row) => String(row[0]).startsWith('Exported at'))!;
    expect(exported[0]).toBe('Exported at (Europe/Stockholm, UTC+01:00)');
    expect((exported[1] as Date).toISOString()).toBe('2026-11-08T11:00:00.000Z');
    const fetched = about.find((row) => String(row[0]).startsWith('Fetched at'))!;
    expect(fetched[0]).toBe('Fetched at (Europe/Stockholm, UTC+01:00)');
    expect((fetched[1] as Date).toISOString()).toBe('2026-11-08T10:00:00.000Z');
    expect(about.find((row) => row[0] === 'Partial')).toBeUndefined(); // fetched after October was over
  });

  it('says in About when the month was fetched before it was over', async () => {
    const report = sampleReport();
    report.meta.fetchedAt = '2026-10-31T22:30:00.000Z';
    const about = rows((await load(report)).getWorksheet('About')!);
    expect(about.find((row) => row[0] === 'Partial')?.[1]).toBe(
      'This fetch was made on 2026-10-31, before its period ended on 2026-10-31: it holds what was billed so far, not the whole period.',
    );
  });

  it('names a zone with its offset at that instant (summer time, west of UTC)', () => {
    expect(cellLocalTime(new Date('2026-07-01T10:00:00Z'), 'Europe/Stockholm')).toEqual({
      value: new Date('2026-07-01T12:00:00Z'),
      zone: 'Europe/Stockholm, UTC+02:00',
    });
    expect(cellLocalTime(new Date('2026-11-08T10:00:00Z'), 'America/New_York')).toEqual({
      value: new Date('2026-11-08T05:00:00Z'),
      zone: 'America/New_York, UTC-05:00',
    });
    expect(cellLocalTime(new Date('2026-11-08T10:00:00Z'), 'Asia/Kolkata').zone).toBe('Asia/Kolkata, UTC+05:30');
  });

  it('formats amounts to the minor unit of their currency', () => {
    expect(moneyFormat('SEK')).toBe('#,##0.00 "SEK"');
    expect(moneyFormat('JPY')).toBe('#,##0 "JPY"');
    expect(moneyFormat('KWD')).toBe('#,##0.000 "KWD"');
    expect(moneyFormat('CLF')).toBe('#,##0.0000 "CLF"');
  });

  it('keeps the billing lines as they are when a stated total is off (it does not "fix" the data)', async () => {
    const report = sampleReport(3);
    const lines = rows((await load(report)).getWorksheet('Billing lines')!).slice(1);
    const exact = exactLineTotals(report);
    const cost = lines.reduce((sum, row) => (row[18] === 'SEK' && row[19] === 'SEK' ? sum.plus(String(row[15])) : sum), new Money(0));
    expect(cost.eq(exact.get('SEK|SEK')!.cost)).toBe(true);
  });

  it('continues the billing lines on a second sheet when one sheet is full, and says so in About', async () => {
    const write = await saved(sampleReport());
    const all = rows((await write()).getWorksheet('Billing lines')!).slice(1);
    const split = await write(undefined, 101); // a header row and 100 lines per sheet
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
    const first = lines.find((row) => row[9] === '  padded  ')!;
    expect(first[0]).toBe(`=HYPERLINK("http://evil.example","x") <b>R&D</b> 'quoted'`);
    expect(first[21]).toBe('line one\nline two');
  });

  it('splits Summary too: subtotals and grand totals still sum exactly their own rows across the split sheets', async () => {
    const report = sampleReport();
    const workbook = await load(report, undefined, 7); // a header row and 6 rows per sheet
    const summaries = workbook.worksheets.filter((sheet) => sheet.name === 'Summary' || sheet.name.startsWith('Summary ('));
    expect(summaries.length).toBeGreaterThan(2);
    const exact = exactLineTotals(report);
    let totals = 0;
    let subtotals = 0;
    for (const sheet of summaries) {
      expect(rows(sheet)[0]?.[0]).toBe('Organization');
      sheet.eachRow((row) => {
        if (row.number === 1) return;
        const sales = row.getCell(6).value;
        if (typeof sales !== 'object' || sales === null || !('formula' in sales)) return;
        const result = new Money(String(sales.result));
        expect(evaluate(workbook, sheet, String(sales.formula)).eq(result)).toBe(true);
        if (String(row.getCell(1).value).startsWith('Total ')) {
          totals++;
          expect(result.eq(exact.get(pairKey(String(row.getCell(4).value)))!.sales)).toBe(true);
        } else subtotals++;
      });
    }
    expect(totals).toBe(exact.size);
    expect(subtotals).toBeGreaterThan(0);
    expect(rows(workbook.getWorksheet('About')!).find((row) => row[0] === 'Summary sheets')?.[1]).toMatch(/^Summary, Summary \(2\)/);
  });

  it("adds another feature's sheets after Billing lines, its rows to About below the period, and names its sheets that continue", async () => {
    const write = await saved(sampleReport());
    const workbook = await write(undefined, 101, {
      addSheets: async (sheets, meta) => {
        const series = new SheetSeries(sheets, 'Extra', [{ header: 'Row', width: 10 }]);
        for (let index = 1; index <= 150; index++) series.next().row.getCell(1).value = `${meta.name} ${index}`;
        series.commit();
        return { split: [series.names], about: [{ values: ['Month close', 'DRAFT — not signed off (2 exceptions open)'], look: 'header' }] };
      },
    });
    const names = workbook.worksheets.map((sheet) => sheet.name);
    expect(names.slice(names.indexOf('Extra') - 1)).toEqual([names[names.indexOf('Extra') - 1], 'Extra', 'Extra (2)', 'About']);
    expect(names[names.indexOf('Extra') - 1]).toMatch(/^Billing lines/);
    expect(rows(workbook.getWorksheet('Extra (2)')!).at(-1)).toEqual(['Billing 2026-10 150']);
    const about = rows(workbook.getWorksheet('About')!);
    expect(about.slice(1, 3)).toEqual([
      ['Period', '2026-10-01 – 2026-10-31'],
      ['Month close', 'DRAFT — not signed off (2 exceptions open)'],
    ]);
    expect(workbook.getWorksheet('About')!.getCell('B3').font?.bold).toBe(true);
    expect(about.find((row) => row[0] === 'Extra sheets')?.[1]).toMatch(/^Extra, Extra \(2\): more rows than one Excel sheet holds/);
  });
  it('hands rows given as XML to the sheet stream in pieces of about 16 KB (turning a longer text into bytes costs far more)', async () => {
    const { prototype: streamBuf } = createRequire(__filename)('exceljs/lib/utils/stream-buf') as { prototype: { write(data: unknown): unknown } };
    const originalWrite = streamBuf.write;
    const pieces: number[] = [];
    streamBuf.write = function (this: unknown, data: unknown, ...rest: unknown[]) {
      if (typeof data === 'string' && data.startsWith('<row')) pieces.push(data.length);
      return (originalWrite as (...args: unknown[]) => unknown).call(this, data, ...rest);
    };
    cleanups.push(() => void (streamBuf.write = originalWrite));
    const write = await saved(sampleReport());
    const workbook = await write(undefined, undefined, {
      addSheets: async (sheets) => {
        const series = new SheetSeries(sheets, 'Changes', [{ header: 'Row', width: 10 }]);
        series.ensureStarted();
        for (let index = 1; index <= 5_000; index++) series.nextXml((rowNumber) => rowXml(rowNumber, [`Åkerberg change ${index}`], ['text'], [0], new Map()));
        series.commit();
        return { split: [series.names], about: [] };
      },
    });
    expect(workbook.getWorksheet('Changes')!.getCell('A5001').value).toBe('Åkerberg change 5000');
    expect(pieces.length).toBeGreaterThan(10);
    expect(Math.max(...pieces)).toBeLessThan(20 * 1024);
  });
  it('writes a total row below 30,000 rows given as XML at once (exceljs is told where its own rows resume)', async () => {
    const write = await saved(sampleReport());
    let took = 0;
    const workbook = await write(undefined, undefined, {
      addSheets: async (sheets) => {
        const started = performance.now();
        const series = new SheetSeries(sheets, 'Changes', [{ header: 'Row', width: 10 }]);
        series.ensureStarted();
        for (let index = 1; index <= 30_000; index++) {
          series.nextXml((rowNumber) => rowXml(rowNumber, [`change ${index}`], ['text'], [0], new Map()));
          if (index % 5_000 === 0) await series.caughtUp();
        }
        series.startTotals(1);
        const { row } = series.next();
        row.getCell(1).value = 'Total';
        row.commit();
        series.commit();
        took = performance.now() - started;
        return { split: [series.names], about: [] };
      },
    });
    // Committing the total row once emptied a 30,000-slot sparse array one shift at a time: half a minute.
    expect(took).toBeLessThan(5_000);
    const sheet = workbook.getWorksheet('Changes')!;
    expect([sheet.getCell('A30001').value, sheet.getCell('A30002').value, sheet.getCell('A30003').value]).toEqual(['change 30000', null, 'Total']);
  });
});
