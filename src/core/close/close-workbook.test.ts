import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { type Money, money } from '@shared/money';
import { ledgerWithMonth, restateTotals, type ServedEntries, testIdentity } from '@testing/ledger-month';
import { testPorts } from '@testing/test-support';
import { FileSubmissionStore } from '../consumption/history-store';
import { createService } from '../service';
import { Ledger } from '../ledger/ledger';
import { silentLogger } from '../ports/ports';
import { ingestReport } from '../reports/report-ingest';
import { ReportLibrary } from '../reports/report-library';
import { writeReportWorkbook, type WorkbookOptions } from '../reports/report-workbook';
import { RULES } from './billing-checks';
import { exportComparisonWorkbook, monthCloseSheets } from './close-workbook';
import { monthLog } from './close-log';
import { MonthClose } from './month-close';
import { compareMonths } from './month-compare';
import { contentHashOf } from '../reports';

type WireBillingEntry = ServedEntries[number];
type WireOrganization = WireBillingEntry['organizations'][number];
type WireService = WireOrganization['services'][number];
type WireItem = WireService['items'][number];
type WireProduct = WireItem['products'][number];

/** The sheets' headers, written out rather than imported from columns.ts, so that a changed header fails here. */
const CHANGES_HEADERS = [
  'Kind',
  'Level',
  'Organization',
  'Customer number',
  'Org ID',
  'Service',
  'Subscription',
  'Subscription ID',
  'Product',
  'Product ID',
  'Currency',
  'Quantity before',
  'Unit price before',
  'Sales before',
  'Quantity after',
  'Unit price after',
  'Sales after',
  'Change in sales',
  'Price effect',
  'Quantity effect',
  'New/lost effect',
  'Other effect',
  'Cost before',
  'Cost after',
];
const CHECKS_HEADERS = [
  'Rule',
  'Severity',
  'Title',
  'Message',
  'Organization',
  'Customer number',
  'Org ID',
  'Service',
  'Service ID',
  'Subscription',
  'Subscription ID',
  'Product',
  'Product ID',
  'Currency',
  'Review state',
  'Note',
  'Reviewed by',
  'Reviewed at (Europe/Stockholm)',
  'Exception ID',
];

const OCTOBER = '11111111-1111-4111-8111-000000000010';
const NOVEMBER = '11111111-1111-4111-8111-000000000011';
const FORMULA_NAME = '=HYPERLINK("http://evil.example","x") Acme';
const cleanups = cleanupsAfterEach();

/** Sets a line's quantity or unit price and its totals (restateTotals then restates the totals above it). */
function reprice(product: WireProduct, change: { quantity?: number; customerPricePerUnit?: string }) {
  const places = product.customerPricePerUnit.split('.')[1]?.length ?? 2;
  if (change.quantity !== undefined) product.quantity = change.quantity;
  if (change.customerPricePerUnit !== undefined) product.customerPricePerUnit = change.customerPricePerUnit;
  product.totalCustomerPrice = money(product.customerPricePerUnit).times(product.quantity).toFixed(places);
  product.totalResellerPrice = money(product.resellerPricePerUnit).times(product.quantity).toFixed(places);
}

const pairOf = (service: WireService) =>
  service.currencyCode === (service.customerCurrencyCode ?? service.currencyCode)
    ? service.currencyCode
    : `${service.currencyCode}→${service.customerCurrencyCode}`;

/** Exact sales per currency pair of a month as served, summed from its lines (independently of the ledger). */
/** One amount of each currency pair's lines, summed here from the served lines: the sales or the cost. */
function sumByPair(entries: WireBillingEntry[], amount: 'totalCustomerPrice' | 'totalResellerPrice'): Map<string, Money> {
  const sums = new Map<string, Money>();
  for (const service of entries.flatMap((entry) => entry.organizations.flatMap((organization) => organization.services))) {
    for (const line of service.items.flatMap((item) => item.products)) sums.set(pairOf(service), (sums.get(pairOf(service)) ?? money(0)).plus(line[amount]));
  }
  return sums;
}
const salesByPair = (entries: WireBillingEntry[]) => sumByPair(entries, 'totalCustomerPrice');
const costByPair = (entries: WireBillingEntry[]) => sumByPair(entries, 'totalResellerPrice');

interface Planted {
  quantity: { organization: WireOrganization; service: WireService; item: WireItem; before: WireProduct };
  price: WireItem;
  lost: WireItem;
  added: WireItem;
  unchanged: WireItem;
  noNumber: WireOrganization;
}

/**
 * October as the twin serves it, and November with planted differences: a quantity +3 (its organization named
 * like a formula), a unit price +1.25, a lost and a new subscription, and an organization with no customer number.
 */
/** The time the close's steps are taken at (the tests set it before a step). */
const clock = { now: '2026-12-08T09:00:00.000Z' };

async function twoMonths() {
  const month = await ledgerWithMonth({ reportId: OCTOBER, seed: 7, organizations: 12, linesPerOrganization: 8 });
  cleanups.push(month.close);
  const november = structuredClone(month.entries);
  const all = november.flatMap((entry) =>
    entry.organizations.flatMap((organization) =>
      organization.services
        .filter((service) => service.items.length > 1 && service.currencyCode === (service.customerCurrencyCode ?? service.currencyCode))
        .flatMap((service) => service.items.filter((item) => item.products.length === 1).map((item) => ({ organization, service, item }))),
    ),
  );
  const quantity = all.find(({ item }) => (item.products[0] as WireProduct).quantity >= 10)!;
  const [price, lost, unchanged] = all.filter((candidate) => candidate.organization.orgId !== quantity.organization.orgId).map(({ item }) => item) as [
    WireItem,
    WireItem,
    WireItem,
  ];
  const before = structuredClone(quantity.item.products[0] as WireProduct);
  reprice(quantity.item.products[0] as WireProduct, { quantity: before.quantity + 3 });
  reprice(price.products[0] as WireProduct, {
    customerPricePerUnit: money((price.products[0] as WireProduct).customerPricePerUnit)
      .plus('1.25')
      .toFixed(),
  });
  const lostService = all.find(({ item }) => item === lost)!.service;
  lostService.items.splice(lostService.items.indexOf(lost), 1);
  const added = structuredClone(unchanged);
  added.subscriptionId = '99999999-9999-4999-8999-999999999999';
  added.itemName = 'Added this month';
  all.find(({ item }) => item === unchanged)!.service.items.push(added);
  const noNumber = november.flatMap((entry) => entry.organizations).at(-1)!;
  for (const organization of november.flatMap((entry) => entry.organizations)) {
    if (organization.orgId === quantity.organization.orgId) organization.name = FORMULA_NAME;
    if (organization.orgId === noNumber.orgId) organization.customerNumber = '';
  }
  restateTotals(november);
  async function* body() {
    yield JSON.stringify({ status: 5, data: november });
  }
  await ingestReport(month.ledger, testIdentity(NOVEMBER, { name: 'Billing 2026-11', period: { startDate: '2026-11-01', endDate: '2026-11-30' } }), body());
  const planted: Planted = { quantity: { ...quantity, before }, price, lost, added, unchanged, noNumber };
  return {
    ledger: month.ledger,
    dir: month.dir,
    october: month.entries,
    november,
    planted,
    close: new MonthClose(
      async () => month.ledger,
      null,
      async () => ({ user: 'mlind', roles: ['preparer', 'approver'], teamLedger: false }),
      () => clock.now,
    ),
  };
}

let exports = 0;
/** Exports a saved month as the app does (with the month close's sheets) and reads the workbook back. */
async function exported(ledger: Ledger, dir: string, reportId: string, close: MonthClose, options: Partial<WorkbookOptions> = {}) {
  const path = join(dir, `month-${++exports}.xlsx`);
  await writeReportWorkbook(ledger, await new ReportLibrary(async () => ledger).meta(reportId), path, {
    appVersion: '1.2.3',
    exportedAt: new Date('2026-12-08T10:00:00Z'),
    timeZone: 'Europe/Stockholm',
    addSheets: monthCloseSheets(
      async () => ledger,
      (id) => close.state(id),
    ),
    ...options,
  });
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  return workbook;
}

function rows(sheet: ExcelJS.Worksheet): ExcelJS.CellValue[][] {
  const result: ExcelJS.CellValue[][] = [];
  sheet.eachRow({ includeEmpty: true }, (row) => result.push(Array.from({ length: row.cellCount }, (_, index) => row.getCell(index + 1).value)));
  return result;
}

/** The last row of the autofilter range ("A1:X5" → 5). */
const filterEnd = (sheet: ExcelJS.Worksheet) => Number(/^[A-Z]+1:[A-Z]+(\d+)$/.exec(String(sheet.autoFilter))![1]);
const about = (workbook: ExcelJS.Workbook) => new Map(rows(workbook.getWorksheet('About')!).map((row) => [String(row[0]), row[1]]));
/** A formula's stored result (exceljs's reader drops a stored 0, which it writes). */
const resultOf = (value: ExcelJS.CellValue) => (typeof value === 'object' && value !== null && 'formula' in value ? (value.result ?? 0) : value);
const exact = (value: ExcelJS.CellValue) => money(String(resultOf(value)));
const decimalCell = (value: string | number | Money) => Number(money(value).toFixed());

/** Evaluates the bridge rows' formulas (sums of cells, and SUMIFS on this sheet) from the cells as read back. */
function evaluate(sheet: ExcelJS.Worksheet, formula: string): Money {
  return formula.split('+').reduce((sum, term) => {
    const sumifs = /^SUMIFS\(([A-Z]+)(\d+):[A-Z]+(\d+),([A-Z]+)\d+:[A-Z]+\d+,([A-Z]+\d+)\)$/.exec(term);
    if (!sumifs) return sum.plus(exact(sheet.getCell(term).value));
    const [, column, first, last, criteria, criterion] = sumifs as unknown as [string, string, string, string, string, string];
    const wanted = sheet.getCell(criterion).value;
    let total = sum;
    for (let row = Number(first); row <= Number(last); row++)
      if (sheet.getCell(`${criteria}${row}`).value === wanted) total = total.plus(exact(sheet.getCell(`${column}${row}`).value));
    return total;
  }, money(0));
}

describe('the month close in the report workbook', () => {
  it('has a Changes sheet: one row per planted change with its exact values, and per currency a sales bridge that adds up', async () => {
    const { ledger, dir, close, october, november, planted } = await twoMonths();
    const workbook = await exported(ledger, dir, NOVEMBER, close);
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual([
      'Invoicing',
      'Summary',
      'Services',
      'Organization groups',
      'Billing lines',
      'Changes',
      'Checks',
      'About',
    ]);
    const sheet = workbook.getWorksheet('Changes')!;
    const all = rows(sheet);
    expect(all[0]).toEqual(CHANGES_HEADERS);
    const data = all.slice(1, filterEnd(sheet));
    expect(data).toHaveLength(4); // quantity, price, lost, new — nothing for the unchanged subscription
    const of = (item: WireItem) => data.filter((row) => row[7] === item.subscriptionId);
    expect(of(planted.unchanged)).toEqual([]);

    const { organization, service, item, before } = planted.quantity;
    const after = item.products[0] as WireProduct;
    const change = money(after.totalCustomerPrice).minus(before.totalCustomerPrice);
    const quantityEffect = money(3).times(before.customerPricePerUnit);
    expect(of(item)).toEqual([
      [
        'Quantity changed',
        'Product line',
        FORMULA_NAME,
        organization.customerNumber,
        organization.orgId,
        service.serviceName,
        item.itemName,
        item.subscriptionId,
        after.productName,
        after.productId,
        service.currencyCode,
        before.quantity,
        decimalCell(before.customerPricePerUnit),
        decimalCell(before.totalCustomerPrice),
        after.quantity,
        decimalCell(after.customerPricePerUnit),
        decimalCell(after.totalCustomerPrice),
        decimalCell(change),
        0,
        decimalCell(quantityEffect),
        0,
        decimalCell(change.minus(quantityEffect)),
        decimalCell(before.totalResellerPrice),
        decimalCell(after.totalResellerPrice),
      ],
    ]);
    // Money is a number in its currency's format; a formula-like name is text, never a formula.
    const quantityRow = sheet.getRow(data.indexOf(of(item)[0]!) + 2);
    expect(quantityRow.getCell(14).numFmt).toBe(`#,##0.00 "${service.currencyCode}"`);
    expect(quantityRow.getCell(3).type).toBe(ExcelJS.ValueType.String);

    const [byPrice] = of(planted.price) as [ExcelJS.CellValue[]];
    expect(byPrice.slice(0, 2)).toEqual(['Unit price changed', 'Product line']);
    expect(exact(byPrice[18]!).eq(money('1.25').times((planted.price.products[0] as WireProduct).quantity))).toBe(true);
    const [lost] = of(planted.lost) as [ExcelJS.CellValue[]];
    expect(lost.slice(0, 2)).toEqual(['Lost', 'Subscription']);
    expect(exact(lost[20]!).eq(money((planted.lost.products[0] as WireProduct).totalCustomerPrice).negated())).toBe(true);
    expect(lost.slice(14, 17)).toEqual([null, null, null]);
    const [added] = of(planted.added) as [ExcelJS.CellValue[]];
    expect(added.slice(0, 2)).toEqual(['New', 'Subscription']);
    expect(exact(added[20]!).eq((planted.added.products[0] as WireProduct).totalCustomerPrice)).toBe(true);

    // Below a blank row, outside the filter: each currency's bridge, sales before + effects = sales after, exactly;
    // under them the cost's, in the purchase currency.
    const below = all.slice(filterEnd(sheet) + 1);
    const bridges = below.filter((row) => String(row[0]).startsWith('Total '));
    const costs = below.filter((row) => String(row[0]).startsWith('Cost '));
    expect(below).toEqual([...bridges, ...costs]);
    expect(all[filterEnd(sheet)]!.every((cell) => cell === null)).toBe(true);
    const [salesBefore, salesAfter] = [salesByPair(october), salesByPair(november)];
    expect(bridges.map((row) => row[10]).sort()).toEqual([...new Set([...salesBefore.keys(), ...salesAfter.keys()])].sort());
    for (const [index, bridge] of bridges.entries()) {
      const pair = String(bridge[10]);
      const rowNumber = filterEnd(sheet) + 2 + index;
      expect(bridge[0]).toBe(`Total ${pair}`);
      expect(exact(bridge[13]!).eq(salesBefore.get(pair) ?? 0), pair).toBe(true);
      expect(exact(bridge[16]!).eq(salesAfter.get(pair) ?? 0), pair).toBe(true);
      const effects = [18, 19, 20, 21].map((column) => exact(bridge[column]!));
      expect(effects.reduce((sum, effect) => sum.plus(effect), exact(bridge[13]!)).eq(exact(bridge[16]!)), pair).toBe(true);
      expect(exact(bridge[17]!).eq(exact(bridge[16]!).minus(exact(bridge[13]!)))).toBe(true);
      // The formulas give the same: the effects and the change sum the rows above, sales after sums across.
      for (const column of [17, 18, 19, 20, 21, 16]) {
        const cell = sheet.getRow(rowNumber).getCell(column + 1).value as ExcelJS.CellFormulaValue;
        expect(evaluate(sheet, cell.formula).eq(exact(cell)), `${pair} ${CHANGES_HEADERS[column]}`).toBe(true);
      }
    }
    expect(money(String(resultOf(bridges.find((row) => row[10] === planted.quantity.service.currencyCode)![19]!))).gte(quantityEffect)).toBe(true);

    const [costBefore, costAfter] = [costByPair(october), costByPair(november)];
    expect(costs.map((row) => row[10])).toEqual(bridges.map((row) => row[10]));
    for (const [index, cost] of costs.entries()) {
      const pair = String(cost[10]);
      const rowNumber = filterEnd(sheet) + 2 + bridges.length + index;
      expect(cost[0]).toBe(`Cost ${pair}`);
      // Cost before and after are the columns so named; the change and the effects stand in the sales bridge's columns.
      const [before, after] = [exact(cost[22]!), exact(cost[23]!)];
      expect(before.eq(costBefore.get(pair) ?? 0), pair).toBe(true);
      expect(after.eq(costAfter.get(pair) ?? 0), pair).toBe(true);
      expect([18, 19, 20, 21].reduce((sum, column) => sum.plus(exact(cost[column]!)), before).eq(after), pair).toBe(true);
      expect(exact(cost[17]!).eq(after.minus(before)), pair).toBe(true);
      const formula = sheet.getRow(rowNumber).getCell(24).value as ExcelJS.CellFormulaValue;
      expect(evaluate(sheet, formula.formula).eq(after), `${pair} cost after`).toBe(true);
    }
  });

  it('has a Checks sheet with every exception and its review, open ones first by severity; About says DRAFT until sign-off, then who, when and the hash', async () => {
    const { ledger, dir, close, planted } = await twoMonths();
    const found = (await close.state(NOVEMBER)).exceptions;
    const noNumber = found.find((exception) => exception.rule === 'missing-customer-number')!;
    expect(noNumber.orgId).toBe(planted.noNumber.orgId);
    expect(found.map((exception) => exception.rule)).toEqual(expect.arrayContaining(['missing-customer-number', 'missing-subscription', 'unit-price-changed']));
    // A high exception accepted goes below every open one, whatever their severity.
    clock.now = '2026-12-08T09:30:00.000Z';
    await close.setReview(NOVEMBER, [noNumber.id], 'accepted', 'Number added in the ERP.');

    const draft = await exported(ledger, dir, NOVEMBER, close);
    const sheet = draft.getWorksheet('Checks')!;
    const withFindings = rows(sheet);
    expect(withFindings[0]).toEqual(['Finding', ...CHECKS_HEADERS]);
    // The first column names each exception's finding (one customer's service in one currency pair); the rest as before.
    const findings = withFindings.slice(1, filterEnd(sheet)).map((row) => String(row[0]));
    const all = withFindings.map((row) => row.slice(1));
    const data = all.slice(1, filterEnd(sheet));
    expect(data).toHaveLength(found.length);
    expect(data.at(-1)!.slice(0, 2)).toEqual(['missing-customer-number', 'high']);
    expect(findings.at(-1)).toBe(planted.noNumber.name); // an organization's finding: its name alone
    const open = data.slice(0, -1);
    expect(open.every((row) => row[14] === 'open')).toBe(true);
    // A finding's exceptions stand together, the most severe findings first (each led by its most severe exception).
    const openFindings = findings.slice(0, -1);
    const starts = openFindings.flatMap((finding, index) => (index === 0 || openFindings[index - 1] !== finding ? [index] : []));
    expect(new Set(openFindings).size, 'each finding in one run of rows').toBe(starts.length);
    const rank = { high: 0, medium: 1, low: 2 } as Record<string, number>;
    const leading = starts.map((start) => rank[String(open[start]![1])]!);
    expect(leading).toEqual([...leading].sort());
    expect(
      openFindings.some((finding, index) => index > 0 && openFindings[index - 1] === finding),
      'some finding has several reasons',
    ).toBe(true);
    const accepted = data.at(-1)!;
    expect(accepted).toEqual([
      'missing-customer-number',
      'high',
      RULES['missing-customer-number'].title,
      noNumber.message,
      planted.noNumber.name,
      null,
      planted.noNumber.orgId,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      'accepted',
      'Number added in the ERP.',
      'mlind',
      new Date(Date.UTC(2026, 11, 8, 10, 30)),
      noNumber.id,
    ]);
    const missing = data.find((row) => row[0] === 'missing-subscription')!;
    expect(missing.slice(1, 2)).toEqual(['medium']);
    expect(missing[10]).toBe(planted.lost.subscriptionId);
    expect(String(missing[3])).toMatch(/^Billed last month and missing now: /);
    expect(all.at(-1)![3]).toBe(
      `${found.length} exceptions: ${found.length - 1} open (${data.filter((row) => row[1] === 'high').length - 1} high, ${data.filter((row) => row[1] === 'medium').length} medium, ${data.filter((row) => row[1] === 'low').length} low), 1 accepted, 0 resolved`,
    );
    expect(about(draft).get('Month close')).toBe(`DRAFT — not prepared (${found.length - 1} exceptions open).`);
    expect(about(draft).get('Changes: compared with')).toBe('Billing 2026-10 (2026-10-01 – 2026-10-31)');
    expect(about(draft).has('Content hash of the signed lines (SHA-256)')).toBe(false);

    for (const exception of found.filter((candidate) => candidate.id !== noNumber.id))
      await close.setReview(NOVEMBER, [exception.id], 'resolved', 'Put right in the service.');
    clock.now = '2026-12-08T11:15:00.000Z';
    await close.prepare(NOVEMBER);
    const signed = about(await exported(ledger, dir, NOVEMBER, close));
    expect(signed.get('Month close')).toBe(
      'PREPARED — prepared by mlind at 2026-12-08 12:15 (Europe/Stockholm, UTC+01:00); not approved by a second person (a workstation without a team ledger).',
    );
    expect(signed.get('Content hash of the signed lines (SHA-256)')).toBe(await contentHashOf(ledger, NOVEMBER));
    expect([...signed.values()].some((value) => /DRAFT/.test(String(value)))).toBe(false);
  });

  it('says in one row that there is nothing to compare with when the month has no earlier month', async () => {
    const { ledger, dir, close } = await twoMonths();
    const workbook = await exported(ledger, dir, OCTOBER, close);
    expect(rows(workbook.getWorksheet('Changes')!)).toEqual([
      CHANGES_HEADERS,
      [expect.stringMatching(/^No earlier month of this service and reseller is in the ledger/)],
    ]);
    expect(about(workbook).get('Changes: compared with')).toBe('No earlier month of this service and reseller in the ledger');
  });

  it('leaves Changes and Checks out of an export of part of the report, says so, and still says DRAFT', async () => {
    const { ledger, dir, close } = await twoMonths();
    const workbook = await exported(ledger, dir, NOVEMBER, close, { filter: { currency: 'SEK' } });
    expect(workbook.worksheets.map((sheet) => sheet.name)).not.toContain('Changes');
    expect(workbook.worksheets.map((sheet) => sheet.name)).not.toContain('Checks');
    expect(about(workbook).get('Changes and Checks')).toMatch(/^Not in an export of part of the report/);
    expect(about(workbook).get('Month close')).toMatch(/^DRAFT — not prepared \(\d+ exceptions open\)\.$/);
  });

  it('still exports the report when the checks cannot be run, and says so in About', async () => {
    const { ledger, dir } = await twoMonths();
    const failing = {
      state: async () => Promise.reject(new Error('Out of Memory Error: could not allocate block\nPossible solutions: …')),
    } as unknown as MonthClose;
    const workbook = await exported(ledger, dir, NOVEMBER, failing);
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(['Invoicing', 'Summary', 'Services', 'Organization groups', 'Billing lines', 'About']);
    expect(about(workbook).get('Month close')).toBe(
      'Not known: the checks could not be run (Out of Memory Error: could not allocate block), so Changes and Checks are not in this export.',
    );
  });

  it('continues Changes on the next sheet when one is full, and the bridge still sums the rows of every sheet', async () => {
    const { ledger, dir, close } = await twoMonths();
    const workbook = await exported(ledger, dir, NOVEMBER, close, { maxRows: 3 }); // a header row and 2 rows per sheet
    const sheets = workbook.worksheets.filter((sheet) => sheet.name === 'Changes' || sheet.name.startsWith('Changes ('));
    const data = sheets.flatMap((sheet) => rows(sheet).slice(1, filterEnd(sheet)));
    expect(data).toHaveLength(4);
    expect(sheets.slice(0, 2).map((sheet) => filterEnd(sheet))).toEqual([3, 3]);
    const totals = sheets.flatMap((sheet) => rows(sheet).filter((row) => String(row[0]).startsWith('Total ')));
    expect(totals.length).toBeGreaterThan(1);
    for (const total of totals) {
      const formula = (total[17] as ExcelJS.CellFormulaValue).formula;
      expect(formula).toMatch(/^SUMIFS\('Changes'!R2:R3,'Changes'!K2:K3,K\d+\)\+SUMIFS\('Changes \(2\)'!R2:R3,/); // a SUMIFS per sheet
      const ofPair = data.filter((row) => row[10] === total[10]);
      expect(ofPair.reduce((sum, row) => sum.plus(exact(row[17]!)), money(0)).eq(exact(total[17]!))).toBe(true);
    }
    expect(about(workbook).get('Changes sheets')).toMatch(/^Changes, Changes \(2\), .*: more rows than one Excel sheet holds/);
  });
});

describe('exporting a comparison', () => {
  it('writes the Changes sheet and an About naming both months, atomically and readable by its owner only', async () => {
    const { ledger, dir } = await twoMonths();
    const comparison = await compareMonths(ledger, OCTOBER, NOVEMBER);
    const path = join(dir, 'compare.xlsx');
    const before = { name: 'Billing 2026-10', period: { startDate: '2026-10-01', endDate: '2026-10-31' }, fetchedAt: '2026-11-07T08:00:00.000Z', lines: 0 };
    const after = { name: 'Billing 2026-11', period: { startDate: '2026-11-01', endDate: '2026-11-30' }, fetchedAt: '2026-12-07T08:00:00.000Z', lines: 0 };
    expect(
      await exportComparisonWorkbook(ledger.outputs, comparison, path, {
        before,
        after,
        exportedAt: new Date('2026-12-08T10:00:00Z'),
        timeZone: 'Europe/Stockholm',
        appVersion: '1.2.3',
      }),
    ).toEqual({ changes: 4 });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await readdir(dir)).filter((name) => name.includes('compare'))).toEqual(['compare.xlsx']); // no temporary file left
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(path);
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(['Changes', 'About']);
    const changes = workbook.getWorksheet('Changes')!;
    expect(
      rows(changes)
        .slice(1, filterEnd(changes))
        .map((row) => row[7])
        .sort(),
    ).toEqual((await comparison.changes(0, comparison.changeCount)).map((change) => change.subscriptionId).sort());
    const names = about(workbook);
    expect(names.get('Before')).toBe('Billing 2026-10 (2026-10-01 – 2026-10-31)');
    expect(names.get('After')).toBe('Billing 2026-11 (2026-11-01 – 2026-11-30)');
    expect(names.get('Comparison')).toBe('Billing 2026-11 compared with Billing 2026-10');
    expect(names.get('Exported at (Europe/Stockholm, UTC+01:00)')).toEqual(new Date(Date.UTC(2026, 11, 8, 11, 0)));
  });
});

describe('the app and the CLI', () => {
  it('refuse to delete the fetch a sign-off stands on, and log the deletion of a draft fetch in its month', async () => {
    const { ledger, dir } = await twoMonths();
    await ledger.close(); // the service opens the same data folder
    const env = await testPorts({ dataDir: dir });
    cleanups.push(env.cleanup);
    const service = createService(env.ports);
    cleanups.push(() => service.dispose());
    const ids = (await service.close.check(NOVEMBER)).exceptions.map((exception) => exception.id);
    await service.close.review(NOVEMBER, ids, 'accepted', 'Checked.');
    await service.close.prepare(NOVEMBER);
    await expect(service.handlers['reports:delete']({ reportId: NOVEMBER })).rejects.toMatchObject({
      code: 'control',
      message: expect.stringMatching(/Prepared basis of its month, so it cannot be deleted/),
    });
    expect((await service.close.check(NOVEMBER)).state).toBe('prepared');
    // October is a draft: it goes, and its month's log says so.
    await service.handlers['reports:delete']({ reportId: OCTOBER });
    expect((await service.handlers['reports:list']({})).map((listing) => listing.state === 'ok' && listing.meta.id)).toEqual([NOVEMBER]);
    await service.dispose();
    const reopened = await Ledger.open(dir, silentLogger);
    cleanups.push(async () => reopened.close());
    const october = { reportId: OCTOBER, host: 'billing.example.com', resellerId: 'r', startDate: '2026-10-01', endDate: '2026-10-31', fetchedAt: '' };
    const log = await monthLog(reopened, october);
    expect(log.intact).toBe(true);
    expect(log.entries.map((entry) => [entry.action, entry.reportId])).toEqual([['deleted', OCTOBER]]);
    expect(log.entries[0]?.note).toMatch(/^Deleted the fetch "Billing 2026-10" of 2026-11-07T08:00:00.000Z \(\d+ lines\)\.$/);
  });

  it('export the report workbook with Changes, Checks (consumption too) and its state (DRAFT, then PREPARED) in About, under Invoicing and in every group pack, and a comparison workbook naming both months', async () => {
    const { ledger, dir, planted } = await twoMonths();
    await ledger.close(); // the service opens the same data folder
    // Closebook submitted the quantity before the +3 for November: the app's checks read the consumption history.
    const id = '33333333-3333-4333-8333-000000000001';
    const { item, before } = planted.quantity;
    await new FileSubmissionStore(dir).put({
      id,
      profileId: 'p',
      profileName: 'Prod',
      fileName: 'november.csv',
      contentHash: id,
      period: { startDate: '2026-11-01', endDate: '2026-11-30' },
      rows: [],
      records: [{ subscriptionId: item.subscriptionId, isAddon: false, quantity: before.quantity }],
      taskId: id,
      statusUrl: null,
      state: 'Successful',
      message: null,
      failures: [],
      createdAt: '2026-12-01T09:00:00.000Z',
      updatedAt: '2026-12-01T09:05:00.000Z',
      polls: 1,
      nextPollAt: null,
    });
    const env = await testPorts({ dataDir: dir });
    cleanups.push(env.cleanup);
    const service = createService(env.ports);
    cleanups.push(() => service.dispose());
    const path = join(dir, 'month.xlsx');
    await service.reports.exportReport(NOVEMBER, path);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(path);
    expect(workbook.worksheets.map((sheet) => sheet.name).slice(-3)).toEqual(['Changes', 'Checks', 'About']);
    expect(about(workbook).get('Month close')).toMatch(/^DRAFT — not prepared \(\d+ exceptions open\)\.$/);
    const consumption = rows(workbook.getWorksheet('Checks')!).filter((row) => row[1] === 'consumption-differs');
    expect(consumption.map((row) => [row[2], row[11]])).toEqual([['medium', item.subscriptionId]]);
    // Under the Invoicing table (which stays as an ERP imports it): the month's state.
    const stampOf = (book: ExcelJS.Workbook) => String(rows(book.getWorksheet('Invoicing')!).at(-1)![0]);
    expect(stampOf(workbook)).toMatch(/^Month close: DRAFT — not prepared \(\d+ exceptions open\)\.$/);
    // Each group pack says so too, and a draft's pack is named a draft.
    const drafts = await service.reports.exportGroupPacks(NOVEMBER, join(dir, 'draft-packs'));
    expect(drafts.packs.length).toBeGreaterThan(0);
    for (const pack of drafts.packs) expect(pack.fileName).toMatch(/^Billing 2026-11 \(DRAFT\) — /);

    // Prepared: the workbook, its Invoicing sheet and every pack say who prepared it and that no second person approved it.
    const ids = (await service.close.check(NOVEMBER)).exceptions.map((exception) => exception.id);
    await service.close.review(NOVEMBER, ids, 'accepted', 'Checked with the account manager.');
    await service.close.prepare(NOVEMBER);
    await service.reports.exportReport(NOVEMBER, path);
    const prepared = new ExcelJS.Workbook();
    await prepared.xlsx.readFile(path);
    expect(stampOf(prepared)).toMatch(/^Month close: PREPARED — prepared by \S+ at .*; not approved by a second person/);
    expect(about(prepared).get('Month close')).toBe(stampOf(prepared).slice('Month close: '.length));
    const packs = await service.reports.exportGroupPacks(NOVEMBER, join(dir, 'packs'));
    for (const pack of packs.packs) {
      expect(pack.fileName).not.toMatch(/DRAFT/);
      const book = new ExcelJS.Workbook();
      await book.xlsx.readFile(join(dir, 'packs', pack.fileName));
      expect(about(book).get('Month close'), pack.fileName).toMatch(/^PREPARED — prepared by /);
      expect(stampOf(book), pack.fileName).toMatch(/^Month close: PREPARED — /);
    }

    const comparison = await service.close.compare(NOVEMBER, null);
    const comparisonPath = join(dir, 'compare.xlsx');
    expect(await service.close.exportComparison(comparison, comparisonPath)).toEqual({ changes: comparison.changeCount });
    const compared = new ExcelJS.Workbook();
    await compared.xlsx.readFile(comparisonPath);
    expect(about(compared).get('Before')).toBe('Billing 2026-10 (2026-10-01 – 2026-10-31)');
    expect(about(compared).get('After')).toBe('Billing 2026-11 (2026-11-01 – 2026-11-30)');
  });
});
