import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import type { Download, Page } from '@playwright/test';
import { Money } from '@shared/money';
import type { WireBillingEntry } from '@twin/billing-report';
import { startTwin } from '@twin/server';
import { expect, test } from './fixtures';
import { ClosebookPage, NARROW, ReportsPage, WIDE } from './pages';
import { ViewerPage } from './viewer-page';

async function workbookFrom(download: Download): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load((await readFile((await download.path()) as string)) as unknown as ArrayBuffer);
  return workbook;
}

async function requestLastMonth(page: Page) {
  await new ClosebookPage(page).button('Request report').click();
  await expect(page.getByTestId('report-job')).toBeVisible();
}

/**
 * The one report in the data folder exactly as the service sent it: the body is kept compressed under received/.
 * The expected sums come from there, not from the ledger the viewer and the workbook read.
 */
async function receivedEntries(dataDir: string): Promise<WireBillingEntry[]> {
  const folder = join(dataDir, 'received');
  const [file, ...others] = (await readdir(folder)).filter((name) => name.endsWith('.json.gz'));
  expect(others).toEqual([]);
  // The service answers { status, data } or that object alone in an array.
  const body = JSON.parse(gunzipSync(await readFile(join(folder, file!))).toString('utf8')) as { data: unknown } | { data: unknown }[];
  return (Array.isArray(body) ? body[0]?.data : body.data) as WireBillingEntry[];
}

/** Exact per-currency sums of the lines that pass `keep`, from the report's own decimal strings. */
function exactTotals(entries: WireBillingEntry[], keep: (groups: string[]) => boolean) {
  const totals = new Map<string, InstanceType<typeof Money>>();
  for (const entry of entries)
    for (const organization of entry.organizations)
      if (keep(organization.organizationGroups))
        for (const service of organization.services)
          for (const item of service.items)
            for (const line of item.products) {
              const key = `${service.currencyCode}|${service.customerCurrencyCode}`;
              totals.set(key, (totals.get(key) ?? new Money(0)).plus(line.totalResellerPrice));
            }
  return totals;
}

test('request last month, watch it, read it by group, export the view and check its cells', async ({ page, bridge }) => {
  const app = new ClosebookPage(page);
  await app.open(bridge.harness.url);
  await app.startDemo();
  await app.nav('Reports').click();

  await requestLastMonth(page);
  // In words and figures, never the service's raw status code.
  await expect(page.getByTestId('report-job')).toContainText(/Generating the report — checked \d+ times?, next check in \d+ s/);
  await expect(page.getByTestId('report-job')).not.toContainText(/status \d/);
  await app.button('Open it').click();

  const viewer = new ViewerPage(page);
  const { lineCount } = viewer;
  await expect(lineCount).toHaveText(/^([\d,]+) of \1 billing lines$/);
  const all = Number((await lineCount.textContent())?.split(' ')[0]?.replace(/,/g, ''));
  await viewer.combobox('Organization group').selectOption('CC-100 Nordics');
  await expect(lineCount).not.toHaveText(new RegExp(`^${all.toLocaleString('en')} of`));
  const shown = Number((await lineCount.textContent())?.split(' ')[0]?.replace(/,/g, ''));
  expect(shown).toBeGreaterThan(0);
  expect(shown).toBeLessThan(all);

  // Tree: organizations first; opening one shows its services.
  const firstOrganization = viewer.rows(1).first();
  await firstOrganization.click();
  await expect(viewer.rows(2).first()).toBeVisible();

  const [download] = await Promise.all([page.waitForEvent('download'), viewer.button('Export view').click()]);
  expect(download.suggestedFilename()).toMatch(/\(view\) \(DRAFT\)\.xlsx$/);
  const workbook = await workbookFrom(download);
  const lines: ExcelJS.CellValue[][] = [];
  workbook.getWorksheet('Billing lines')!.eachRow((row, number) => number > 1 && lines.push((row.values as ExcelJS.CellValue[]).slice(1)));
  expect(lines).toHaveLength(shown);
  expect(lines.every((row) => typeof row[15] === 'number' && typeof row[16] === 'number' && row[20] instanceof Date)).toBe(true);
  expect(lines.every((row) => String(row[3]).includes('CC-100 Nordics'))).toBe(true);

  const exact = exactTotals(await receivedEntries(bridge.dataDir), (groups) => groups.includes('CC-100 Nordics'));
  const fromCells = new Map<string, InstanceType<typeof Money>>();
  for (const row of lines) fromCells.set(`${row[18]}|${row[19]}`, (fromCells.get(`${row[18]}|${row[19]}`) ?? new Money(0)).plus(String(row[15])));
  expect([...fromCells.keys()].sort()).toEqual([...exact.keys()].sort());
  for (const [key, sum] of exact) expect(fromCells.get(key)?.eq(sum)).toBe(true);

  const totals: { currency: string; result: number }[] = [];
  workbook.getWorksheet('Summary')!.eachRow((row) => {
    if (String(row.getCell(1).value).startsWith('Total '))
      totals.push({ currency: String(row.getCell(4).value), result: (row.getCell(5).value as { result: number }).result });
  });
  expect(totals.length).toBe(exact.size);
  for (const total of totals) {
    const [cost, sales = cost] = total.currency.split('→');
    expect(new Money(String(total.result)).eq(exact.get(`${cost}|${sales}`)!)).toBe(true);
  }
});

test.describe('a slow report', () => {
  test.use({ twinOptions: { reportReadyAfterMs: 6_000, reportReadyAfterPolls: 2 } });

  test('survives the app closing mid-poll and finishes after it reopens', async ({ page, bridge }) => {
    const app = new ClosebookPage(page);
    await app.open(bridge.harness.url);
    await app.startDemo();
    await app.nav('Reports').click();
    await requestLastMonth(page);
    await expect(page.getByTestId('report-job')).toContainText(/checked [1-9]\d* times?/);
    for (const size of [NARROW, WIDE]) {
      await page.setViewportSize(size);
      await page.screenshot({ path: `test-results/reports-in-progress-${size.width}x${size.height}.png` });
      await expect(page.getByTestId('report-job').getByRole('button', { name: 'Cancel' })).toBeInViewport();
    }

    await bridge.restart();
    await page.reload();
    await app.nav('Reports').click();
    await expect(page.getByTestId('saved-report')).toHaveCount(1, { timeout: 30_000 });
    await expect(page.getByTestId('report-job')).toHaveCount(0);
    expect(await bridge.harness.service.handlers['reports:jobs']({})).toEqual([]);
  });
});

test.describe('requests cancelled', () => {
  test.use({ twinOptions: { reportReadyAfterMs: 60_000, reportReadyAfterPolls: 20 } });

  test('a request cancelled from the keyboard stops, saves nothing, and hands the focus to the next, the last to Request report', async ({ page, bridge }) => {
    const app = new ClosebookPage(page);
    await app.open(bridge.harness.url);
    await app.startDemo();
    await app.nav('Reports').click();
    const reports = new ReportsPage(page);
    for (const month of ['2026-09', '2026-10']) await reports.requestMonth(month);
    const jobs = page.getByTestId('report-job');
    await expect(jobs).toHaveCount(2);
    await jobs.first().getByRole('button', { name: 'Cancel' }).focus();
    await page.keyboard.press('Enter');
    await expect(jobs).toHaveCount(1);
    await expect(jobs.first().getByRole('button', { name: 'Cancel' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(jobs).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Request report' })).toBeFocused();
    expect(await bridge.harness.service.handlers['reports:jobs']({})).toEqual([]);
    await expect(page.getByTestId('saved-report')).toHaveCount(0);
  });
});

test('opens and exports a saved report with the service gone', async ({ page, bridge }) => {
  // A real (non-demo) profile on a service that will go away for good.
  const twin = await startTwin({ reportReadyAfterMs: 1_000, reportReadyAfterPolls: 1 });
  await bridge.useProfileFor(twin, 'Production');
  const app = new ClosebookPage(page);
  await app.open(bridge.harness.url);
  await app.nav('Reports').click();
  await requestLastMonth(page);
  await expect(page.getByTestId('saved-report')).toHaveCount(1, { timeout: 30_000 });

  await twin.close();
  await page.reload();
  await app.nav('Organizations').click();
  await expect(page.getByText(/Cannot reach the service/)).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('connection-state')).toHaveText('Offline');

  await app.nav('Reports').click();
  const viewer = await ViewerPage.open(page);
  await expect(viewer.totals.getByTestId('currency-total').first()).toBeVisible();
  const [download] = await Promise.all([page.waitForEvent('download'), viewer.button('Export workbook').click()]);
  const workbook = await workbookFrom(download);
  expect(workbook.getWorksheet('Billing lines')!.rowCount).toBeGreaterThan(100);
  expect(typeof workbook.getWorksheet('Billing lines')!.getRow(2).getCell(16).value).toBe('number');

  // Saved reports carry the profile in their name and are grouped by profile; an imported copy says where it came from.
  await app.showReportList();
  const group = page.getByRole('region', { name: `Reports of Production · ${new URL(twin.baseUrl).host}` });
  await expect(group.getByTestId('saved-report')).toHaveCount(1);
  await expect(group.getByTestId('saved-report').getByRole('button', { name: /^Billing \d{4}-\d{2} · Production$/ })).toBeVisible();
  const [shared] = await Promise.all([page.waitForEvent('download'), group.getByRole('button', { name: 'Share file' }).click()]);
  await page
    .getByLabel('Import report file')
    .setInputFiles({ name: shared.suggestedFilename(), mimeType: 'application/gzip', buffer: await readFile((await shared.path()) as string) });
  await expect(group.getByTestId('saved-report')).toHaveCount(2);
  await expect(group.getByTestId('saved-report').filter({ hasText: `imported from ${shared.suggestedFilename()}` })).toHaveCount(1);
});

test('first start: after Try the demo service, the next step is in view and focused, and it fetches and opens last month', async ({ page, bridge }) => {
  await page.setViewportSize(NARROW);
  const app = new ClosebookPage(page);
  await app.open(bridge.harness.url);
  await app.startDemo();
  const next = page.getByRole('button', { name: 'Fetch and open last month' });
  await expect(next).toBeFocused();
  for (const size of [NARROW, WIDE]) {
    await page.setViewportSize(size);
    await expect(next).toBeInViewport();
    await page.screenshot({ path: `test-results/first-start-${size.width}x${size.height}.png` });
  }
  await next.press('Enter');
  // Opened as soon as it is saved: the viewer shows the demo's month, its rows painted.
  const viewer = page.getByRole('region', { name: /^Report Billing \d{4}-\d{2} · Demo/ });
  await expect(viewer.getByRole('treegrid', { name: 'Billing report' }).getByRole('row', { level: 1 }).first()).toBeVisible({ timeout: 30_000 });
});

test('saved reports are renamed and deleted from the keyboard, the focus never falling to the top of the page', async ({ page, bridge }) => {
  test.setTimeout(90_000);
  const twin = await startTwin({ reportReadyAfterMs: 0, reportReadyAfterPolls: 0, organizations: 4 });
  try {
    await bridge.useProfileFor(twin, 'Keys');
    const app = new ClosebookPage(page);
    const reports = new ReportsPage(page);
    await app.open(bridge.harness.url);
    await app.nav('Reports').click();
    for (const month of ['2026-09', '2026-10']) await reports.requestMonth(month);
    await reports.waitForSaved(2, 30_000);
    const saved = page.getByTestId('saved-report');
    const october = saved.filter({ hasText: '2026-10-01' });
    const september = saved.filter({ hasText: '2026-09-01' });

    // A rename begun and escaped changes nothing, the keyboard back on the report's name.
    await october.getByRole('button', { name: 'Rename' }).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.type(' (draft)');
    await page.keyboard.press('Escape');
    await expect(october.getByLabel('Report name')).toHaveCount(0);
    await expect(october.locator('[data-control=name]')).toBeFocused();
    await expect(october.locator('[data-control=name]')).not.toContainText('(draft)');

    // Renamed: typed into the field that opens, Enter, and the keyboard is back on the report's name.
    await october.getByRole('button', { name: 'Rename' }).focus();
    await page.keyboard.press('Enter');
    await expect(october.getByLabel('Report name')).toBeFocused();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('October for the board');
    await page.keyboard.press('Enter');
    await expect(october.getByRole('button', { name: 'October for the board' }).first()).toBeFocused();
    const names = async () =>
      (await bridge.harness.service.handlers['reports:list']({})).flatMap((listing) => (listing.state === 'ok' ? [listing.meta.name] : []));
    expect(await names()).toContain('October for the board');

    // Delete asks first, with the keyboard on Keep; kept, it is back on Delete; deleted, on the next report.
    await october.getByRole('button', { name: 'Delete', exact: true }).focus();
    await page.keyboard.press('Enter');
    await expect(october.getByRole('button', { name: 'Keep' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(october.getByRole('button', { name: 'Delete', exact: true })).toBeFocused();
    await page.keyboard.press('Enter');
    await october.getByRole('button', { name: 'Delete for good' }).click();
    await expect(saved).toHaveCount(1);
    expect(await names()).not.toContain('October for the board');
    await expect(september.locator('button:focus')).toHaveCount(1);
    // The last one deleted, the keyboard is on the words that say the list is empty.
    await september.getByRole('button', { name: 'Delete', exact: true }).click();
    await september.getByRole('button', { name: 'Delete for good' }).click();
    await expect(page.getByText('No saved reports yet.')).toBeFocused();
  } finally {
    await twin.close();
  }
});
