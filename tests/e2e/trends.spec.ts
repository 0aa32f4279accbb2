import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { ClosebookPage, ReportsPage, SCREEN_SIZES, WIDE } from './pages';

const OCTOBER = '2026-10-01 – 2026-10-31';

// The demo service answers at once, with a dozen organizations: three months fetch in seconds.
test.use({ twinOptions: { reportReadyAfterMs: 300, reportReadyAfterPolls: 1, organizations: 12 } });

const en = (amount: string) =>
  new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(amount as Intl.StringNumericLiteral);

/** Everything the strict Content-Security-Policy refused, and every uncaught error, while the test ran. */
function watchForRefusals(page: Page): string[] {
  const refusals: string[] = [];
  page.on('console', (message) => {
    if (/Content[- ]Security[- ]Policy|Refused to/i.test(message.text())) refusals.push(message.text());
  });
  page.on('pageerror', (error) => refusals.push(error.message));
  return refusals;
}

/** Whether the Close screen scrolls sideways (nothing may be cut off at either window size). */
async function scrollsSideways(page: Page): Promise<string | false> {
  return page.evaluate(() => {
    const close = document.querySelector('section[aria-label="Close the month"]');
    if (!close) return 'no Close screen';
    if (close.scrollWidth <= close.clientWidth + 1) return false;
    const right = close.getBoundingClientRect().right;
    const wide = [...close.querySelectorAll('*')]
      .filter((element) => element.getBoundingClientRect().right > right + 1)
      .map((element) => `${element.tagName}.${element.getAttribute('class') ?? ''} ${Math.round(element.getBoundingClientRect().right - right)}px`);
    return `${close.scrollWidth} > ${close.clientWidth}: ${wide.slice(0, 6).join(', ')}`;
  });
}

test('trends per currency with a chart and a table, top movers, and a converted total at the user’s rates', async ({ page, bridge }) => {
  test.setTimeout(90_000);
  const refusals = watchForRefusals(page);
  await page.setViewportSize(WIDE);
  const app = new ClosebookPage(page);
  const reports = new ReportsPage(page);
  await app.open(bridge.harness.url);
  await app.startDemo();
  await app.nav('Reports').click();
  for (const [index, month] of ['2026-08', '2026-09', '2026-10'].entries()) {
    await reports.requestMonth(month);
    await reports.waitForSaved(index + 1, 30_000);
  }
  const handlers = bridge.harness.service.handlers;
  const listings = await handlers['reports:list']({});
  const octoberId = listings.flatMap((listing) => (listing.state === 'ok' && listing.meta.period.startDate === '2026-10-01' ? [listing.meta.id] : []))[0]!;

  const close = await (await reports.openNewest(OCTOBER)).closeTheMonth();
  await close.openTab('Trends');
  const { trends } = close;

  // One chart and one table per currency pair, the months oldest first, October marked, figures exact as the ledger sums them.
  const all = await handlers['close:trends']({ reportId: octoberId, scope: { kind: 'all' } });
  expect(all.months).toHaveLength(3);
  const figures = trends.getByTestId('trend-figure');
  await expect(figures).toHaveCount(all.series.length);
  for (const series of all.series) {
    const figure = figures.and(page.locator(`[data-currency="${series.currencyKey}"]`));
    await expect(figure.locator('.recharts-wrapper > svg')).toBeVisible();
    await expect(figure.locator('.recharts-line-curve')).toHaveCount(series.costCurrency === series.salesCurrency ? 3 : 2);
    const rows = close.trendRows(figure);
    await expect(rows).toHaveCount(3);
    const october = series.points[2]!;
    await expect(rows.nth(2)).toContainText('this month');
    await expect(rows.nth(2).locator('td').nth(3)).toHaveText(en(october.sales));
    await expect(rows.nth(2).locator('td').nth(2)).toHaveText(en(october.cost));
  }

  // The top movers: October against September, customers and services.
  const movers = close.topMovers;
  await expect(close.heading('Top movers: October 2026 against September 2026', movers)).toBeVisible();
  await expect(movers.getByTestId('mover')).toHaveCount(all.movers!.rows.length);
  for (const size of SCREEN_SIZES) {
    await page.setViewportSize(size);
    await expect(figures.first().locator('.recharts-wrapper > svg')).toBeVisible();
    await page.screenshot({ path: `test-results/trends-${size.width}x${size.height}.png`, fullPage: false });
    expect(await scrollsSideways(page), `trends at ${size.width}×${size.height}`).toBe(false);
    await movers.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `test-results/trends-movers-${size.width}x${size.height}.png` });
  }
  await page.setViewportSize(WIDE);

  // One organization group, picked from the searchable list.
  const scopes = await handlers['close:trend-scopes']({ reportId: octoberId });
  const group = scopes.groups[0]!;
  await close.trendOfOne('group', group.label.slice(0, 4), group.key);
  await expect(trends.getByTestId('trend-scope')).toContainText(`Group: ${group.label}`);
  const grouped = await handlers['close:trends']({ reportId: octoberId, scope: { kind: 'group', key: group.key } });
  await expect(figures).toHaveCount(grouped.series.length);
  const first = grouped.series[0]!;
  await expect(close.trendRows(figures.first()).nth(2).locator('td').nth(3)).toHaveText(en(first.points[2]!.sales));

  // On paper: the charts and tables, no pickers.
  await page.emulateMedia({ media: 'print' });
  await expect(close.trendOf).toBeHidden();
  await expect(figures.first().locator('.recharts-wrapper > svg')).toBeVisible();
  await page.screenshot({ path: 'test-results/trends-print.png', fullPage: true });
  await page.emulateMedia({ media: 'screen' });

  // Reference currency: a rate is read as people type it — a decimal comma is a decimal, "1,234" is asked about —
  // typed or in a semicolon file; then rates for all but one currency.
  await close.openTab('Reference currency');
  const { rates } = close;
  const { currencies } = await handlers['close:rates']({ reportId: octoberId });
  const others = currencies.map((entry) => entry.currency).filter((currency) => currency !== 'EUR');
  expect(others.length).toBeGreaterThan(1);
  await rates.getByLabel('Reference currency').fill('EUR');
  const typed = rates.getByLabel(`1 ${others[0]} =`);
  await typed.fill('1,234');
  await rates.getByRole('button', { name: 'Save rates' }).click();
  await expect(close.ratesMessage('alert')).toContainText('"1,234", which could be a thousand or a decimal: write 1234 for a whole number, or 1.234');
  await typed.fill('0,5');
  await rates.getByRole('button', { name: 'Save rates' }).click();
  await expect(close.ratesMessage('status')).toHaveText('Rates saved with this month.');
  expect((await handlers['close:rates']({ reportId: octoberId })).rates).toEqual([{ currency: others[0], rate: '0.5' }]);
  const file = rates.getByTestId('rates-file');
  await file.setInputFiles({ name: 'rates.csv', mimeType: 'text/csv', buffer: Buffer.from(`currency;rate\n${others[0]};0,25\n`) });
  await expect(close.ratesMessage('status')).toHaveText('Imported 1 rate from rates.csv.');
  expect((await handlers['close:rates']({ reportId: octoberId })).rates).toEqual([{ currency: others[0], rate: '0.25' }]);
  const [unrated, ...rated] = others as [string, ...string[]];
  await file.setInputFiles({
    name: 'rates.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(rated.map((currency, index) => `${currency},0.${index + 1}234567`).join('\r\n')),
  });
  await expect(close.ratesMessage('status')).toHaveText(`Imported ${rated.length} rates from rates.csv.`);
  const view = await handlers['close:rates']({ reportId: octoberId });
  const total = rates.getByTestId('converted-total');
  await expect(close.heading(undefined, total)).toHaveText("Converted to EUR at your rates (not the service's)");
  await expect(total).toContainText(`Sales${en(view.converted!.sales)} EUR`);
  await expect(rates.getByTestId('rates-missing')).toContainText(`because ${unrated} has no rate`);
  // The native amounts stay, each in its own currency.
  const pairs = rates.getByTestId('rates-pair');
  await expect(pairs).toHaveCount(view.pairs.length);
  await expect(pairs.first().locator('td').nth(3)).toContainText(en(view.pairs[0]!.sales));
  for (const size of SCREEN_SIZES) {
    await page.setViewportSize(size);
    await total.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `test-results/rates-${size.width}x${size.height}.png` });
    expect(await scrollsSideways(page), `rates at ${size.width}×${size.height}`).toBe(false);
  }

  expect(refusals).toEqual([]);
});
