import { readFile } from 'node:fs/promises';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import type { Download, Locator, Page } from '@playwright/test';
import type { InvoiceRow } from '@shared/contract';
import { roundToMinorUnit } from '@shared/currency';
import { Money, money } from '@shared/money';
import { expect, test, type BridgeHost } from './fixtures';
import { ClosebookPage, ReportsPage, SCREEN_SIZES, WIDE } from './pages';
import { ClosePage } from './close-page';
import { ViewerPage } from './viewer-page';

// Copying writes to the clipboard and the test reads it back. Every fifth service states a total a cent off the
// sum of its lines, so some rows carry a flag.
test.use({ permissions: ['clipboard-read', 'clipboard-write'], twinOptions: { inconsistentEvery: 5 } });

/** Requests a demo report, opens it and returns the viewer and the report's id. */
async function openReport(page: Page, bridge: BridgeHost): Promise<{ viewer: ViewerPage; reportId: string }> {
  const app = new ClosebookPage(page);
  await app.open(bridge.harness.url);
  await app.startDemo();
  await app.requestReport(60_000);
  const viewer = await ViewerPage.openWithRows(page);
  const [listing] = await bridge.harness.service.handlers['reports:list']({});
  return { viewer, reportId: listing?.state === 'ok' ? listing.meta.id : '' };
}

/** The report's billing lines as the CSV export writes them: an account of the lines independent of the viewer's queries. */
async function billingLines(page: Page, bridge: BridgeHost, reportId: string): Promise<Record<string, string>[]> {
  const file = await bridge.harness.service.handlers['reports:export']({ reportId, format: 'csv' });
  if (file.kind !== 'download') throw new Error(`expected a download, got ${file.kind}`);
  // Fetched with the page's session (its context holds the bridge's cookie); a browser's own GET would say where it
  // comes from (Sec-Fetch-Site), Playwright's request does not, so it names the page's origin.
  const response = await page.request.get(new URL(file.url, bridge.harness.url).href, { headers: { Origin: bridge.harness.url } });
  expect(response.ok()).toBe(true);
  const text = await response.text();
  return Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ''), { header: true, skipEmptyLines: true }).data;
}

/** Cells whose text is cut off: amounts, currency codes and headers must never be. */
async function clippedCells(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [
      ...document.querySelectorAll(
        '[role=grid][aria-label="Amounts to invoice"] [role=columnheader], [role=grid][aria-label="Amounts to invoice"] [role=gridcell].num, [role=grid][aria-label="Amounts to invoice"] [role=gridcell].num span, [aria-label="Amounts to invoice per currency"] td, [aria-label="Amounts to invoice per currency"] th',
      ),
    ]
      .filter((cell) => cell.scrollWidth > cell.clientWidth + 1)
      .map((cell) => cell.textContent ?? ''),
  );
}

/** The whole of `locator` lies inside `frame` (on screen, not scrolled out of its scroller). */
async function expectInside(locator: Locator, frame: { x: number; y: number; width: number; height: number }, what: string): Promise<void> {
  const box = await locator.boundingBox();
  expect(box, `${what} is rendered`).not.toBeNull();
  expect(box!.x, `${what} left`).toBeGreaterThanOrEqual(frame.x - 0.5);
  expect(box!.y, `${what} top`).toBeGreaterThanOrEqual(frame.y - 0.5);
  expect(box!.x + box!.width, `${what} right`).toBeLessThanOrEqual(frame.x + frame.width + 0.5);
  expect(box!.y + box!.height, `${what} bottom`).toBeLessThanOrEqual(frame.y + frame.height + 0.5);
}

const en = (amount: string, places = 2) =>
  new Intl.NumberFormat('en-US', { minimumFractionDigits: places, maximumFractionDigits: places }).format(amount as Intl.StringNumericLiteral);

test('Invoicing: one row per organization and customer currency, amounts equal to the lines, copied exactly, laid out at 1440 and 1024', async ({
  page,
  bridge,
}) => {
  await page.setViewportSize(WIDE);
  const { viewer, reportId } = await openReport(page, bridge);
  const grid = await viewer.showInvoicing();
  const { rows, totals } = await bridge.harness.service.handlers['reports:invoicing']({ reportId, filter: {} });

  // Against the billing lines: one row per (organization, customer currency) that has lines, and its amount is
  // the exact sum of those lines' sales, rounded once to the currency's minor unit.
  const lines = await billingLines(page, bridge, reportId);
  const sums = new Map<string, { sales: Money; lines: number }>();
  for (const line of lines) {
    const key = `${line['Org ID']}|${line['Customer currency']}`;
    const sum = sums.get(key) ?? { sales: money(0), lines: 0 };
    sums.set(key, { sales: sum.sales.plus(line.Sales!), lines: sum.lines + 1 });
  }
  expect(rows.map((row) => `${row.orgId}|${row.currency}`).sort()).toEqual([...sums.keys()].sort());
  for (const row of rows) {
    const sum = sums.get(`${row.orgId}|${row.currency}`)!;
    expect(money(row.exactAmount).equals(sum.sales), `${row.organization} ${row.currency}: ${row.exactAmount} = ${sum.sales.toFixed()}`).toBe(true);
    expect(row.amountToInvoice).toBe(roundToMinorUnit(sum.sales.toFixed(), row.currency));
    expect(row.lines).toBe(sum.lines);
  }
  // A customer with a custom service bought in USD and sold in its own currency has one row, with two costs; its margin
  // is that of the part bought in its own currency, marked so, never one across currencies.
  const mixed = rows.find((row) => row.costs.length === 2 && row.marginPartial)!;
  expect(mixed).toBeDefined();
  const own = mixed.costs.find((cost) => cost.currency === mixed.currency)!;
  expect(money(mixed.margin!).lessThan(money(mixed.exactAmount).minus(own.amount))).toBe(true);
  await viewer.searchbox('Organization', { exact: true }).fill(mixed.customerNumber);
  const part = viewer.invoiceRows().filter({ hasText: mixed.customerNumber }).getByTestId('margin-part');
  await expect(part).toHaveText(`${en(mixed.margin!)}*`);
  await expect(part).toHaveAttribute('title', new RegExp(`Margin of the part bought in ${mixed.currency}; the part bought in USD is left out`));
  await viewer.searchbox('Organization', { exact: true }).fill('');

  // Flags in words, on the row they concern.
  const flagged = rows.find((row) => row.flags.includes('stated-total-differs'))!;
  expect(flagged).toBeDefined();
  await viewer.searchbox('Organization', { exact: true }).fill(flagged.customerNumber);
  await expect(viewer.invoiceRows().filter({ hasText: flagged.customerNumber }).getByText('Stated total differs')).toBeVisible();
  await viewer.searchbox('Organization', { exact: true }).fill('');

  // On screen: a row per Invoicing row, the totals per currency, and for the first rows the amount as computed above.
  await expect(grid).toHaveAttribute('aria-rowcount', String(rows.length + 1));
  await expect(viewer.invoiceTotals.getByTestId('invoice-total')).toHaveCount(totals.length);
  const byCustomer = new Map(rows.map((row) => [`${row.customerNumber}|${row.currency}`, row]));
  const shown = await viewer
    .invoiceRows()
    .evaluateAll((elements) => elements.slice(0, 8).map((element) => [...element.children].map((cell) => cell.textContent ?? '')));
  expect(shown.length).toBe(8);
  for (const cells of shown) {
    const row = byCustomer.get(`${cells[1]}|${cells[4]}`)!;
    expect(row, cells.join(' | ')).toBeDefined();
    expect(cells[5]).toBe(en(row.amountToInvoice));
  }

  // Copy all rows: header and one line per row, exact values (a point in en-US), no thousands separators.
  await viewer.button('Copy all rows').click();
  await expect(viewer.status(`${rows.length} rows copied`)).toBeVisible();
  const copied = (await page.evaluate(() => navigator.clipboard.readText())).split(/\r?\n/).map((line) => line.split('\t'));
  // Each cost is a number under its purchase currency ("Cost EUR", "Cost USD"), never "481.6 EUR" as text.
  const costCurrencies = [...new Set(rows.flatMap((row) => row.costs.map((cost) => cost.currency)))].sort();
  expect(copied[0]).toEqual([
    'Customer number',
    'Organization',
    'Groups',
    'Currency',
    'Amount to invoice',
    'Billing lines',
    ...costCurrencies.map((currency) => `Cost ${currency}`),
    'Margin',
    'Flags',
  ]);
  expect(copied.length).toBe(rows.length + 1);
  const pasted = new Map(copied.slice(1).map((cells) => [`${cells[0]}|${cells[3]}`, cells]));
  for (const row of rows) {
    const cells = pasted.get(`${row.customerNumber}|${row.currency}`)!;
    expect(cells[4]).toBe(row.amountToInvoice);
    expect(cells[4]).toMatch(/^-?\d+(\.\d+)?$/);
    costCurrencies.forEach((currency, at) => expect(cells[6 + at]).toBe(row.costs.find((cost) => cost.currency === currency)?.amount ?? ''));
    expect(cells[6 + costCurrencies.length]).toBe(row.margin ?? '');
  }
  // Beside the text, the same table as HTML, where a text cell says it is text: a spreadsheet then keeps a customer
  // number's leading zeros. Amounts stay plain numbers.
  const html = await page.evaluate(async () => {
    const [item] = await navigator.clipboard.read();
    return item ? (await item.getType('text/html')).text() : '';
  });
  const firstRow = rows[0]!;
  expect(html).toContain(`<td style="mso-number-format:'\\@'">${firstRow.customerNumber}</td>`);
  expect(html).toContain(`<td>${firstRow.amountToInvoice}</td>`);

  // Copy selected: two rows ticked, two rows on the clipboard.
  const boxes = viewer.invoiceCheckboxes();
  await boxes.nth(1).check();
  await boxes.nth(3).check();
  await viewer.button('Copy 2 selected').click();
  await expect(viewer.status('2 rows copied')).toBeVisible();
  expect((await page.evaluate(() => navigator.clipboard.readText())).split(/\r?\n/)).toHaveLength(3);
  // Shift-click ticks the run from the last row ticked: rows 3–5 join row 1.
  await boxes.nth(5).click({ modifiers: ['Shift'] });
  await expect(viewer.button('Copy 4 selected')).toBeEnabled();

  // Sorting by amount: currencies grouped, amounts biggest first within each; the arrow stays inside its header.
  const amountHeader = viewer.invoiceHeaders(/^Amount to invoice/);
  await viewer.sortButton(amountHeader).click();
  await expect(amountHeader).toHaveAttribute('aria-sort', 'descending');
  const sorted = (
    await viewer
      .invoiceRows()
      // The currency cell's own text (an exception's mark may follow it).
      .evaluateAll((elements) => elements.map((element) => [element.children[4]!.firstChild?.textContent ?? '', element.children[5]!.textContent ?? '']))
  ).map(([currency, amount]) => ({ currency: currency!, amount: Number(amount!.replace(/,/g, '')) }));
  expect(sorted.length).toBeGreaterThan(5);
  sorted.forEach((entry, i) => {
    const before = sorted[i - 1];
    if (!before) return;
    expect(before.currency <= entry.currency, 'currencies grouped A→Z').toBe(true);
    if (before.currency === entry.currency) expect(before.amount).toBeGreaterThanOrEqual(entry.amount);
  });

  for (const size of SCREEN_SIZES) {
    await page.setViewportSize(size);
    await expect(viewer.invoiceRows().first()).toBeVisible();
    await page.screenshot({ path: `test-results/invoicing-${size.width}x${size.height}.png` });
    expect(await clippedCells(page), `clipped at ${size.width}`).toEqual([]);
    // Every column fits the window without scrolling sideways, and the amounts and headers are on screen.
    expect(await grid.evaluate((element) => element.scrollWidth - element.clientWidth), `sideways scroll at ${size.width}`).toBeLessThanOrEqual(0);
    const frame = (await grid.boundingBox())!;
    const visible = { x: 0, y: 0, width: Math.min(size.width, frame.x + frame.width), height: Math.min(size.height, frame.y + frame.height) };
    for (const header of await viewer.invoiceHeaders().all()) await expectInside(header, visible, `header "${await header.textContent()}" at ${size.width}`);
    const firstRow = viewer.invoiceRows().first();
    for (const index of [4, 5, 7, 8]) await expectInside(viewer.gridCells(firstRow).nth(index), visible, `cell ${index} of the first row at ${size.width}`);
    await expectInside(viewer.invoiceTotals, { x: 0, y: 0, ...size }, `the invoicing totals at ${size.width}`);
    await expectInside(viewer.button('Copy all rows'), { x: 0, y: 0, ...size }, `the copy button at ${size.width}`);
  }
});

test('prints the summary or the Invoicing rows, never the virtual list, and writes a workbook per group', async ({ page, bridge }) => {
  await page.setViewportSize(WIDE);
  const { viewer, reportId } = await openReport(page, bridge);
  // The browser's print dialog would block the test: count the calls instead (afterprint then never comes, so the print-only rows stay).
  await page.evaluate(() => {
    const state = window as unknown as { __printed: number };
    state.__printed = 0;
    window.print = () => {
      state.__printed += 1;
    };
  });
  const printed = () => page.evaluate(() => (window as unknown as { __printed: number }).__printed);

  // Tree mode: every organization row (per currency) at summary level.
  const summary = await bridge.harness.service.handlers['reports:window']({
    reportId,
    filter: {},
    sort: { key: 'label', direction: 'asc' },
    expansion: { all: 'none', toggled: [] },
    hierarchy: 'organization',
    offset: 0,
    count: 1,
  });
  await viewer.button('Print…').click();
  await expect.poll(printed).toBe(1);
  const { printable } = viewer;
  // Print only: hidden on screen (so found by selector, not by role).
  await expect(printable.locator('table[aria-label="Organizations"] tbody tr')).toHaveCount(summary.rowCount);
  await expect(printable).toBeHidden();

  await page.emulateMedia({ media: 'print' });
  await page.screenshot({ path: 'test-results/invoicing-print-tree.png', fullPage: true });
  await expect(viewer.printTable('Organizations')).toBeVisible();
  await expect(viewer.title).toBeVisible();
  await expect(viewer.totals).toBeVisible();
  await expect(viewer.filters).toBeHidden();
  await expect(viewer.button('Export workbook')).toBeHidden();
  await expect(new ClosebookPage(page).navigation).toBeHidden();
  await expect(viewer.tree).toBeHidden();
  expect(await printable.locator('thead').evaluate((element) => getComputedStyle(element).display)).toBe('table-header-group');
  expect(
    await printable
      .locator('tbody tr')
      .first()
      .evaluate((element) => getComputedStyle(element).breakInside),
  ).toBe('avoid');
  await page.emulateMedia({ media: 'screen' });
  // The dialog closed: the print-only rows go.
  await page.evaluate(() => window.dispatchEvent(new Event('afterprint')));
  await expect(printable).toHaveCount(0);

  // Invoicing mode: every Invoicing row, with the amounts to invoice per currency.
  const grid = await viewer.showInvoicing();
  const { rows } = await bridge.harness.service.handlers['reports:invoicing']({ reportId, filter: {} });
  await viewer.button('Print…').click();
  await expect.poll(printed).toBe(2);
  await page.emulateMedia({ media: 'print' });
  await page.screenshot({ path: 'test-results/invoicing-print-invoicing.png', fullPage: true });
  await expect(viewer.printTable('Amounts to invoice', { exact: true }).locator('tbody tr')).toHaveCount(rows.length);
  await expect(viewer.printTable('Amounts to invoice per currency')).toBeVisible();
  await expect(grid).toBeHidden();
  await expect(viewer.button('Copy all rows')).toBeHidden();
  await page.emulateMedia({ media: 'screen' });

  // Workbooks per group: the bridge hands over one download per group (and one for the ungrouped, if any).
  const groups = new Set(rows.flatMap((row) => row.groups));
  const ungrouped = rows.some((row) => row.groups.length === 0);
  const downloads: Download[] = [];
  page.on('download', (download) => downloads.push(download));
  await viewer.button('Workbooks per group…').click();
  const result = viewer.packs;
  const packCount = groups.size + (ungrouped ? 1 : 0);
  await expect(viewer.packsStatus()).toHaveText(`${packCount} workbooks downloaded`);
  await expect(result.getByTestId('group-pack')).toHaveCount(packCount);
  await expect(result).toContainText('An organization in two groups appears in both packs.');
  await expect.poll(() => downloads.length).toBe(packCount);
  expect(new Set(downloads.map((download) => download.suggestedFilename().toLowerCase())).size).toBe(packCount);

  // One pack read back: its Invoicing sheet holds exactly the customers of its group.
  const [group] = [...groups].sort();
  const pack = await viewer.pack(group!).cells.nth(2).textContent();
  const download = downloads.find((candidate) => candidate.suggestedFilename() === pack)!;
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load((await readFile((await download.path()) as string)) as unknown as ArrayBuffer);
  const sheet = workbook.getWorksheet('Invoicing')!;
  const header = (sheet.getRow(1).values as unknown[]).map(String);
  const customerColumn = header.indexOf('Customer number');
  const inPack = new Set<string>();
  sheet.eachRow((sheetRow, number) => {
    const value = sheetRow.getCell(customerColumn).value;
    if (number > 1 && typeof value === 'string' && /^C-\d+$/.test(value)) inPack.add(value);
  });
  const expected = new Set(rows.filter((row: InvoiceRow) => row.groups.includes(group!)).map((row) => row.customerNumber));
  expect([...inPack].sort()).toEqual([...expected].sort());
});

test('a row the month’s checks question says so beside its amount, and opens the exception in Close the month', async ({ page, bridge }) => {
  const app = new ClosebookPage(page);
  await app.open(bridge.harness.url);
  await app.startDemo();
  // October by name, not "last month", whatever today is; and the month before, so the checks against last month run
  // (a price cut is also a unit price changed).
  const reports = new ReportsPage(page);
  await app.nav('Reports').click();
  await reports.requestMonth('2026-10');
  await reports.requestMonth('2026-09');
  await reports.waitForSaved(2, 60_000);
  const viewer = await reports.openNewest('2026-10-01 – 2026-10-31');
  const handlers = bridge.harness.service.handlers;
  const listing = (await handlers['reports:list']({})).find((entry) => entry.state === 'ok' && entry.meta.period.startDate === '2026-10-01');
  const reportId = listing?.state === 'ok' ? listing.meta.id : '';
  const { exceptions } = await handlers['close:state']({ reportId });
  // The twin plants a subscription sold below cost, one with cost and no sales, and a line whose total is not quantity × price.
  const questioning = exceptions.filter((exception) => ['negative-margin', 'unbilled', 'sales-without-cost', 'line-total-mismatch'].includes(exception.rule));
  expect(questioning.map((exception) => exception.rule).sort()).toEqual(expect.arrayContaining(['line-total-mismatch', 'negative-margin', 'unbilled']));
  const grid = await viewer.showInvoicing();
  const organization = viewer.filters.getByRole('searchbox', { name: 'Organization' });
  const rowOf = (exception: (typeof questioning)[number]) =>
    grid
      .getByTestId('invoice-row')
      .filter({ hasText: exception.organization })
      .filter({ hasText: exception.currencyKey!.split('→').at(-1)! });

  for (const exception of questioning) {
    await organization.fill(exception.customerNumber || exception.organization);
    const row = rowOf(exception);
    await expect(row.getByTestId('invoice-anomaly'), exception.id).toBeVisible();
    await expect(row.getByRole('button', { name: exception.title, exact: true })).toBeVisible();
  }
  // An organization no exception questions has no mark.
  const { rows } = await handlers['reports:invoicing']({ reportId, filter: {} });
  const quiet = rows.find((row) => row.customerNumber && !questioning.some((exception) => exception.orgId === row.orgId))!;
  await organization.fill(quiet.customerNumber);
  await expect(grid.getByTestId('invoice-row')).toHaveCount(rows.filter((row) => row.orgId === quiet.orgId).length);
  await expect(grid.getByTestId('invoice-anomaly')).toHaveCount(0);

  // The mark opens the exception in Close the month: every filter that would hide it cleared, its row marked and focused.
  const belowCost = questioning.find((exception) => exception.rule === 'negative-margin')!;
  await organization.fill(belowCost.customerNumber || belowCost.organization);
  for (const size of SCREEN_SIZES) {
    await page.setViewportSize(size);
    await expect(rowOf(belowCost).getByTestId('invoice-anomaly')).toBeVisible();
    await page.screenshot({ path: `test-results/invoicing-anomaly-${size.width}x${size.height}.png` });
  }
  await page.setViewportSize(WIDE);
  await rowOf(belowCost).getByTestId('invoice-anomaly').click();
  const close = new ClosePage(page, viewer.root.getByRole('region', { name: 'Close the month' }));
  const linked = close.exceptions.locator('[aria-current="true"]');
  await expect(linked).toHaveAttribute('data-exception-id', belowCost.id);
  await expect(linked).toBeFocused();
  await expect(linked).toBeInViewport();
  await expect(close.reviewState.getByRole('button', { name: /^All/ })).toHaveAttribute('aria-pressed', 'true');
  await page.screenshot({ path: 'test-results/invoicing-anomaly-linked-1440x900.png' });

  // One cause, one finding: the price cut below cost is also a unit price changed since last month (and may be a
  // margin far from usual) — one row, its reasons under each other, each amount in the user's locale.
  const sameCause = exceptions.filter(
    (exception) => exception.orgId === belowCost.orgId && exception.serviceId === belowCost.serviceId && exception.currencyKey === belowCost.currencyKey,
  );
  expect(sameCause.map((exception) => exception.rule)).toEqual(expect.arrayContaining(['negative-margin', 'unit-price-changed']));
  const finding = close.exceptions.getByTestId('finding-row').filter({ has: page.locator(`[data-exception-id="${belowCost.id}"]`) });
  await expect(finding.getByTestId('finding-reason')).toHaveCount(sameCause.length);
  // A finding of one reason says its severity as one of several does (a group's header says it only when grouped by rule).
  const single = close.exceptions.getByTestId('exception-row').first();
  const singleId = await single.getAttribute('data-exception-id');
  const singleException = exceptions.find((exception) => exception.id === singleId);
  await expect(single.locator('.sev')).toHaveText({ high: 'High', medium: 'Medium', low: 'Low' }[singleException!.severity]);
  const currency = belowCost.currencyKey!.split('→').at(-1)!;
  await expect(finding).toContainText(`sales ${en(belowCost.evidence.sales!)} ${currency}, cost ${en(belowCost.evidence.cost!)} ${currency}`);
  for (const size of SCREEN_SIZES) {
    await page.setViewportSize(size);
    await finding.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `test-results/close-finding-${size.width}x${size.height}.png` });
  }
  await page.setViewportSize(WIDE);
  // Accepting the finding accepts each of its reasons, with the one note; each keeps its own id and review.
  await finding.getByRole('button', { name: 'Accept…' }).click();
  await close.exceptions.getByPlaceholder('A note is required').fill('A promotion agreed with the customer.');
  await close.exceptions.getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(finding.getByRole('button', { name: 'Reopen' })).toBeVisible();
  const reviewed = (await handlers['close:state']({ reportId })).exceptions.filter((exception) => sameCause.some((same) => same.id === exception.id));
  expect(reviewed.map((exception) => [exception.id, exception.review?.state, exception.review?.note])).toEqual(
    sameCause.map((exception) => [exception.id, 'accepted', 'A promotion agreed with the customer.']),
  );
  await handlers['close:review']({ reportId, exceptionIds: sameCause.map((exception) => exception.id), state: 'open', note: '' });

  // Accepted, it stays on the row, quieter, and says so.
  await handlers['close:review']({ reportId, exceptionIds: [belowCost.id], state: 'accepted', note: 'A promotion agreed with the customer.' });
  await viewer.showInvoicing();
  await expect(rowOf(belowCost).getByRole('button', { name: `${belowCost.title} · accepted`, exact: true })).toBeVisible();
});
