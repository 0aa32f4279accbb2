import { execFileSync } from 'node:child_process';
import type { Locator, Page } from '@playwright/test';
import { money } from '@shared/money';
import { startTwin } from '@twin/server';
import { expect, test, type BridgeHost } from './fixtures';
import { holdAnswers } from './held-answers';
import { ClosebookPage, cutPlaceholders, ReportsPage, SCREEN_SIZES, WIDE } from './pages';

const OCTOBER = '2026-10-01 – 2026-10-31';

const en = (amount: string) =>
  new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(amount as Intl.StringNumericLiteral);

async function newestReportId(bridge: BridgeHost, startDate: string): Promise<string> {
  const listings = await bridge.harness.service.handlers['reports:list']({});
  const meta = listings.flatMap((listing) => (listing.state === 'ok' && listing.meta.period.startDate === startDate ? [listing.meta] : []))[0];
  if (!meta) throw new Error(`no saved report of ${startDate}`);
  return meta.id;
}

/**
 * What is cut off or off screen in the Close screen: cells of the bridge and of the changes grid whose text is wider
 * than the cell, headers and buttons outside the window, and any sideways scroll of the screen or the grid.
 */
async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const close = document.querySelector('section[aria-label="Close the month"]');
    if (!close) return ['no Close screen'];
    const onScreen = (element: Element) => {
      const box = element.getBoundingClientRect();
      return box.left >= -0.5 && box.right <= window.innerWidth + 0.5;
    };
    if (close.scrollWidth > close.clientWidth + 1) problems.push(`the screen scrolls sideways (${close.scrollWidth} > ${close.clientWidth})`);
    for (const grid of close.querySelectorAll('[role=grid]'))
      if (grid.scrollWidth > grid.clientWidth + 1) problems.push(`${grid.getAttribute('aria-label')} scrolls sideways`);
    const cells = close.querySelectorAll(
      'table[aria-label] td, table[aria-label] th[scope=col], [role=grid] [role=columnheader], [role=grid] .head__label, [role=grid] .num > *, .chg__side > span',
    );
    for (const cell of cells) {
      if (cell.closest('.exc-table') && !cell.matches('th')) continue; // exception text wraps by design
      if (cell.scrollWidth > cell.clientWidth + 1) problems.push(`clipped: ${cell.textContent}`);
    }
    for (const element of close.querySelectorAll('button, [role=columnheader], table th[scope=col], input, select')) {
      if ((element as HTMLElement).offsetParent !== null && !onScreen(element))
        problems.push(`off screen: ${element.textContent || element.getAttribute('aria-label')}`);
    }
    return problems;
  });
}

async function expectLaidOut(page: Page, name: string, ready: Locator): Promise<void> {
  for (const size of SCREEN_SIZES) {
    await page.setViewportSize(size);
    await expect(ready).toBeVisible();
    await ready.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `test-results/close-${name}-${size.width}x${size.height}.png` });
    expect(await layoutProblems(page), `${name} at ${size.width}×${size.height}`).toEqual([]);
    expect(await cutPlaceholders(page), `${name}'s placeholders at ${size.width}×${size.height}`).toEqual([]);
  }
  await page.setViewportSize(WIDE);
}

/** Opens Closebook on the Reports screen and fetches the months of its profile (by default September and October), all at once. */
async function withMonths(page: Page, bridge: BridgeHost, months = ['2026-09', '2026-10']): Promise<{ app: ClosebookPage; reports: ReportsPage }> {
  const app = new ClosebookPage(page);
  const reports = new ReportsPage(page);
  await app.open(bridge.harness.url);
  await app.nav('Reports').click();
  // Each request runs on its own.
  for (const month of months) await reports.requestMonth(month);
  await reports.waitForSaved(months.length, 30_000);
  return { app, reports };
}

test('close a month: compare with the one before, review the exceptions, prepare, refetch and see the restatement and a suspended acceptance', async ({
  page,
  bridge,
}) => {
  test.setTimeout(90_000);
  const twin = await startTwin({ reportReadyAfterMs: 0, reportReadyAfterPolls: 0, organizations: 12 });
  try {
    const profileId = await bridge.useProfileFor(twin, 'Close');
    const planted = twin.plantedChanges('2026-10');
    await page.setViewportSize(WIDE);
    const { app, reports } = await withMonths(page, bridge);
    const octoberId = await newestReportId(bridge, '2026-10-01');
    const septemberId = await newestReportId(bridge, '2026-09-01');
    const handlers = bridge.harness.service.handlers;
    const state = await handlers['close:state']({ reportId: octoberId });

    let viewer = await reports.openNewest(OCTOBER);
    let close = await viewer.closeTheMonth();

    // The header: the month, Draft, and what is open by severity (as the main process counts it).
    await expect(close.heading('Close October 2026')).toBeVisible();
    await expect(close.state).toHaveText('Draft');
    const { openCounts } = close;
    await expect(openCounts).toContainText(`High ${state.open.high}`);
    await expect(openCounts).toContainText(`Medium ${state.open.medium}`);
    await expect(openCounts).toContainText(`Low ${state.open.low}`);
    const openTotal = state.open.high + state.open.medium + state.open.low;
    expect(openTotal).toBeGreaterThan(3);

    // Exceptions first: grouped by rule (findings are the default, and have a test of their own), the high ones on top,
    // each group saying what its rule means.
    await close.root.getByRole('group', { name: 'Group by' }).getByRole('button', { name: 'Rules' }).click();
    // The choice is remembered: a new session of the app opens the month's exceptions by rule again.
    await expect.poll(async () => (await handlers['settings:get']({})).exceptionGrouping).toBe('rule');
    await page.reload();
    await app.nav('Reports').click();
    viewer = await reports.openNewest(OCTOBER);
    close = await viewer.closeTheMonth();
    await expect(close.root.getByRole('group', { name: 'Group by' }).getByRole('button', { name: 'Rules' })).toHaveAttribute('aria-pressed', 'true');
    const table = close.exceptions;
    await expect(close.exceptionRows()).toHaveCount(openTotal);
    const groupRules = await table.getByTestId('exception-group').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-rule')));
    const severityOf = new Map(state.exceptions.map((exception) => [exception.rule, exception.severity]));
    const ranks = groupRules.map((rule) => ['high', 'medium', 'low'].indexOf(severityOf.get(rule!)!));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    for (const rule of [
      'negative-margin',
      'unbilled',
      'missing-customer-number',
      'line-total-mismatch',
      'missing-subscription',
      'quantity-jump',
      'unit-price-changed',
    ]) {
      expect(groupRules, `${rule} found`).toContain(rule);
    }
    const negative = state.exceptions.find((exception) => exception.rule === 'negative-margin')!;
    await expect(table.getByTestId('exception-group').filter({ hasText: negative.title })).toContainText(negative.explanation);
    await expectLaidOut(page, 'exceptions', table);

    // Compare with the month before: the bridge per currency adds up, and each planted change is there.
    await close.openTab('Compare with last month');
    const comparison = await handlers['close:compare']({ beforeId: septemberId, afterId: octoberId });
    await expect(close.compareWith('October 2026')).toHaveValue(septemberId);
    const bridgeTable = close.bridge();
    await expect(bridgeTable.getByTestId('bridge-row')).toHaveCount(comparison.bridges.length);
    for (const row of comparison.bridges) {
      const { price, quantity, newLost, other } = row.effects;
      expect(money(row.salesBefore).plus(price).plus(quantity).plus(newLost).plus(other).equals(row.salesAfter), `${row.currencyKey} adds up`).toBe(true);
      const shown = close.bridgeRow(bridgeTable, row.currencyKey);
      await expect(shown.cells.nth(5)).toHaveText(en(row.change));
      await expect(shown.cells.last()).toHaveText('✓');
    }
    // The same split of the cost, in each purchase currency, and the margin before → after where cost and sales share one.
    const bridgeOf = close.root.getByRole('group', { name: 'Bridge of' });
    await bridgeOf.getByRole('button', { name: 'Cost', exact: true }).click();
    const costTable = close.root.getByRole('table', { name: 'Change in cost per currency' });
    await expect(costTable.getByTestId('bridge-row')).toHaveCount(comparison.bridges.length);
    for (const row of comparison.bridges) {
      const shown = close.bridgeRow(costTable, row.currencyKey);
      await expect(shown.cells.nth(5)).toHaveText(en(row.cost.change));
      await expect(shown.cells.nth(6)).toHaveText(`${en(row.cost.after)}${row.currencyKey.split('→')[0]}`);
      await expect(shown.cells.last()).toHaveText('✓');
    }
    await expectLaidOut(page, 'compare-cost', costTable);
    await bridgeOf.getByRole('button', { name: 'Margin', exact: true }).click();
    const marginTable = close.root.getByRole('table', { name: 'Margin per currency' });
    expect(comparison.bridges.some((row) => row.margin === null)).toBe(true); // the twin sells services bought in another currency
    for (const row of comparison.bridges) {
      const cells = marginTable
        .getByTestId('margin-row')
        .filter({ has: page.getByRole('rowheader', { name: row.currencyKey, exact: true }) })
        .getByRole('cell');
      if (row.margin) {
        expect(money(row.salesAfter).minus(row.cost.after).toFixed(), row.currencyKey).toBe(row.margin.after);
        await expect(cells).toHaveText([`${en(row.margin.before)}${row.currencyKey}`, en(row.margin.change), `${en(row.margin.after)}${row.currencyKey}`]);
      } else await expect(cells).toHaveText([/no margin across currencies/]);
    }
    await expectLaidOut(page, 'compare-margin', marginTable);
    await bridgeOf.getByRole('button', { name: 'Sales', exact: true }).click();
    const { changes, changeSearch: search } = close;
    await expect(close.changeCount).toHaveText(`${comparison.changeCount} changes`);
    const plantedRows: [string, { subscription: string; product: string }][] = [
      ['New', planted.newSubscription!],
      ['Lost', planted.lostSubscription!],
      ['Unit price', planted.unitPriceChange!],
      ['Quantity', planted.quantityJump!],
    ];
    for (const [kind, target] of plantedRows) {
      await close.kind(new RegExp(`^${kind} \\d`)).click();
      await search.fill(target.subscription);
      await expect(changes.getByTestId('change-row').filter({ hasText: target.product }).first(), `${kind}: ${target.subscription}`).toBeVisible();
    }
    // An unchanged subscription is in no change (the search may also find others whose names contain its name).
    await close.kind(/^All \d/).click();
    const unchanged = planted.unchanged!;
    await search.fill(unchanged.subscription);
    await expect(close.changeCount).toHaveText(/ of /);
    const places = await changes.getByTestId('change-row').evaluateAll((rows) => rows.map((row) => row.children[3]!.lastElementChild!.textContent));
    expect(places).not.toContain(unchanged.subscription);
    expect(places).not.toContain(`${unchanged.subscription} › ${unchanged.product}`);
    await search.fill('');
    const effectHeader = close.changeHeader('Effect on sales');
    await close.sortButton(effectHeader).click();
    await expect(effectHeader).toHaveAttribute('aria-sort', 'descending');
    await expectLaidOut(page, 'compare', changes.getByTestId('change-row').first());

    // An exception opens its row in the report tree: the organization alone, the path open, the line selected.
    await close.openTab('Exceptions');
    const mismatch = state.exceptions.find((exception) => exception.rule === 'line-total-mismatch')!;
    await close.exceptionButton('Show in report', { within: close.exceptionRows(mismatch.id) }).click();
    await expect(viewer.selectedRows()).toContainText(mismatch.product!);
    await expect(viewer.selectedRows()).toHaveAttribute('aria-level', '4');
    await expect(viewer.searchbox('Organization', { exact: true })).toHaveValue(mismatch.customerNumber);
    await viewer.closeTheMonth();

    // Thresholds per profile: a quantity may now rise 150 % before it is an exception, so the doubled one is not.
    // Typed with a decimal comma or point alike.
    await close.openTab('Thresholds');
    const { thresholds } = close;
    const jump = thresholds.getByLabel('Quantity jump');
    await expect(jump).toHaveValue(String(state.thresholds.quantityJumpPercent));
    await jump.fill('0');
    await close.saveThresholds();
    await expect(close.thresholdsMessage('alert')).toHaveText('Between 1 and 100,000');
    await jump.fill('150,0'); // a decimal comma, as typed in a Swedish locale
    await close.saveThresholds();
    await expect(close.thresholdsMessage('status')).toHaveText('Saved; the month was checked again.');
    expect(await handlers['close:thresholds']({ profileId })).toEqual({ ...state.thresholds, quantityJumpPercent: 150 });
    await close.openTab('Exceptions');
    const jumps = state.exceptions.filter((exception) => exception.rule === 'quantity-jump').length;
    expect(jumps).toBe(1);
    await expect(close.exceptionRows()).toHaveCount(openTotal - jumps);
    await expect(close.exceptionGroup('quantity-jump')).toHaveCount(0);
    let open = openTotal - jumps;

    // Accept one with a note (required), resolve a group at once and the rest one by one (a note for high and
    // medium ones); Prepare waits until none is open.
    const prepare = close.button('Prepare the month');
    await expect(prepare).toBeDisabled();
    const negativeRow = close.exceptionRows(negative.id);
    // A note begun and cancelled: the keyboard is back on Accept…, not at the top of the page.
    await close.exceptionButton('Accept…', { within: negativeRow }).click();
    await close.exceptionButton('Cancel').click();
    await expect(close.exceptionButton('Accept…', { within: negativeRow })).toBeFocused();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Escape');
    await expect(table.getByPlaceholder('A note is required')).toHaveCount(0);
    await expect(close.exceptionButton('Accept…', { within: negativeRow })).toBeFocused();
    await close.exceptionButton('Accept…', { within: negativeRow }).click();
    const accept = close.exceptionButton('Accept', { exact: true });
    await expect(accept).toBeDisabled();
    await table.getByPlaceholder('A note is required').fill('Agreed Q4 discount, see the contract');
    // The row reviewed leaves the Open list; the keyboard goes on to the next row with a button, not to the top of the page.
    const following = await negativeRow.evaluateHandle((row) => {
      const stops = [...row.closest('table')!.querySelectorAll('tr.exc, tr.exc-group')];
      return stops.slice(stops.indexOf(row) + 1).find((stop) => stop.querySelector('button:not(:disabled)'))!;
    });
    await accept.click();
    await expect(negativeRow).toHaveCount(0);
    await expect.poll(() => following.evaluate((row) => document.activeElement?.tagName === 'BUTTON' && row.contains(document.activeElement))).toBe(true);
    open -= 1;
    await expect(openCounts).toContainText(`High ${state.open.high - 1}`);
    await close.reviewFilter(/^Accepted/).click();
    const accepted = close.exceptionRows(negative.id);
    await expect(accepted).toContainText('Accepted');
    await expect(accepted).toContainText('“Agreed Q4 discount, see the contract”');
    const reviewed = (await handlers['close:state']({ reportId: octoberId })).exceptions.find((exception) => exception.id === negative.id)!;
    expect(reviewed.review).toMatchObject({ state: 'accepted', note: 'Agreed Q4 discount, see the contract', evidence: negative.evidence });

    await close.reviewFilter(/^Open/).click();
    const priceCount = state.exceptions.filter((exception) => exception.rule === 'unit-price-changed').length;
    await close.exceptionButton(`Resolve all ${priceCount} open`, { within: close.exceptionGroup('unit-price-changed') }).click();
    open -= priceCount;
    await expect(close.exceptionRows()).toHaveCount(open);
    for (; open > 0; open -= 1) {
      const row = close.exceptionRows().first();
      const resolve = close.exceptionButton(/^Resolve/, { within: row });
      if ((await resolve.textContent())?.endsWith('…')) {
        await resolve.click();
        await table.getByPlaceholder('A note is required').fill('Put right in the service');
        await close.exceptionButton('Resolve', { exact: true, within: table.locator('.exc__note-row') }).click();
      } else await resolve.click();
      await expect(close.exceptionRows()).toHaveCount(open - 1);
      if (open > 1) await expect(close.exceptionRows().first().locator('button:focus')).toHaveCount(1);
    }
    await expect(openCounts).toHaveText('No open exceptions');
    // The last one reviewed, the keyboard is on the words that say so.
    await expect(close.root.getByText('Nothing is open: every exception is accepted or resolved.')).toBeFocused();
    await prepare.click();
    const you = (await handlers['close:state']({ reportId: octoberId })).you;
    await expect(close.state).toContainText(`Prepared by ${you} at`);
    // The button pressed is gone; the keyboard is on the sign-off as it now is, not back at the top of the page.
    const signOff = close.root.getByRole('region', { name: 'Sign-off' });
    await expect(signOff).toBeFocused();
    // Reopening asked and cancelled, the keyboard is back on the button that asked.
    await signOff.getByRole('button', { name: 'Reopen…' }).click();
    await expect(signOff.getByLabel('Why reopen?')).toBeFocused();
    await signOff.getByRole('button', { name: 'Cancel' }).click();
    await expect(signOff.getByRole('button', { name: 'Reopen…' })).toBeFocused();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Escape');
    await expect(signOff.getByLabel('Why reopen?')).toHaveCount(0);
    await expect(signOff.getByRole('button', { name: 'Reopen…' })).toBeFocused();
    const signed = (await handlers['close:state']({ reportId: octoberId })).signOff!;
    await expect(close.root.getByTestId('content-hash')).toHaveText(signed.contentHash);
    expect(signed).toMatchObject({ state: 'prepared', reportId: octoberId, preparedBy: you, approvedBy: null });
    // The preparer cannot approve: the screen says why (on a workstation alone, the close ends at Prepared).
    await expect(close.button('Approve the month')).toBeDisabled();
    await expect(close.root.getByTestId('approval-rule')).toContainText(`You (${you}) prepared this month, so you cannot approve it`);
    await expect(close.root.getByTestId('approval-rule')).toContainText('team ledger');
    await expect(close.state).toContainText('Ready to invoice (not approved by a second person)');
    await expectLaidOut(page, 'prepared', close.root.getByTestId('approval-rule'));
    // On paper the content hash is whole (it wraps), never cut with an ellipsis.
    await page.emulateMedia({ media: 'print' });
    const hashOnPaper = close.root.getByTestId('content-hash');
    expect(
      await hashOnPaper.evaluate((element) => element.scrollWidth <= element.clientWidth + 1 && getComputedStyle(element).textOverflow !== 'ellipsis'),
    ).toBe(true);
    await page.emulateMedia({ media: 'screen' });
    // The core refuses it too, whatever the screen shows.
    await expect(handlers['close:approve']({ reportId: octoberId })).rejects.toMatchObject({ code: 'control' });
    // The evidence pack downloads as a PDF whose text holds the full content hash and the preparer.
    const [download] = await Promise.all([page.waitForEvent('download'), close.button('Evidence for the auditor (PDF)…').click()]);
    const pdf = test.info().outputPath('evidence.pdf');
    await download.saveAs(pdf);
    const pdfText = execFileSync('pdftotext', [pdf, '-'], { encoding: 'utf8' }).replace(/\s+/g, '');
    expect(pdfText).toContain(signed.contentHash);
    expect(pdfText).toContain(`Preparedby:${you}`);
    await close.reviewFilter(/^All/).click();
    await expect(close.exceptionButton('Reopen').first()).toBeDisabled();

    // The service restates October's loss-making subscription; fetched again, the month is a Draft that says what
    // changed since it was prepared, and the acceptance of that loss is suspended with both figures.
    twin.restate('2026-10');
    await reports.requestMonth('2026-10');
    await reports.waitForSaved(3, 30_000);
    const again = await (await reports.openNewest(OCTOBER)).closeTheMonth();
    const restated = again.restatement;
    await expect(again.heading('The service changed this month after it was prepared', restated)).toBeVisible();
    await expect(again.state).toContainText('Draft · the month is Prepared on another fetch');
    const restatement = (await handlers['close:state']({ reportId: await newestReportId(bridge, '2026-10-01') })).restatement!;
    expect(restatement.hashChanged).toBe(true);
    // Only the currencies the restatement touched are listed.
    const touched = restatement.bridges.filter((row) => !money(row.change).isZero());
    expect(touched.length).toBeGreaterThan(0);
    await expect(restated.getByTestId('bridge-row')).toHaveCount(touched.length);
    await again.button(/^Show the \d+ changes?$/, { within: restated }).click();
    await expect(restated.getByTestId('change-row').filter({ hasText: planted.restatement!.product }).first()).toBeVisible();
    await expectLaidOut(page, 'restatement', restated);
    const suspended = again.exceptionRows().filter({ has: page.getByTestId('suspended-figures') });
    await expect(suspended).toHaveCount(1);
    await expect(suspended).toContainText('Accepted — suspended');
    await expect(suspended.getByTestId('suspended-figures')).toContainText(
      `reviewed on cost ${negative.evidence.cost}, sales ${negative.evidence.sales}; now cost`,
    );
    await expectLaidOut(page, 'suspended', suspended);

    // Reopened with a reason, the month is a draft again; the suspended acceptance is reviewed again, then this fetch is prepared.
    await again.button('Reopen…').click();
    const reopen = again.button('Reopen the month');
    await expect(reopen).toBeDisabled();
    await again.root.getByLabel('Why reopen?').fill('The service restated October: three more licences on the loss-making subscription');
    await reopen.click();
    await expect(again.state).toHaveText('Draft');
    await expect(again.root.getByRole('region', { name: 'Sign-off' })).toBeFocused();
    await expect(again.restatement).toHaveCount(0);
    await expect(again.openCounts).toContainText('High 1');
    await again.exceptionButton('Accept…', { within: suspended }).click();
    await page.getByPlaceholder('A note is required').fill('The larger loss is agreed too');
    await again.exceptionButton('Accept', { exact: true }).click();
    await expect(again.openCounts).toHaveText('No open exceptions');
    await again.button('Prepare the month').click();
    await expect(again.state).toContainText(`Prepared by ${you} at`);
    const log = await handlers['close:log']({ reportId: octoberId });
    expect(log.intact).toBe(true);
    expect(log.entries.map((entry) => entry.action).filter((action) => action !== 'resolved' && action !== 'accepted')).toEqual([
      'prepared',
      'reopened',
      'prepared',
    ]);

    // The saved list tells October's two fetches apart: the newest is the Prepared one; the earlier one, a Draft
    // now superseded, folds away under it, each with its fetch time to the second.
    const octoberFetches = page.getByTestId('saved-report').filter({ hasText: OCTOBER });
    await expect(octoberFetches.first().getByTestId('fetch-state')).toHaveText('Prepared');
    await expect(octoberFetches.nth(1)).toBeHidden();
    await expect(octoberFetches.first()).toContainText(/fetched .*\d:\d{2}:\d{2}/);
    await expect(reports.earlierFetches(OCTOBER)).toHaveText(`1 earlier fetch of ${OCTOBER}`);
    await reports.earlierFetches(OCTOBER).click();
    await expect(octoberFetches.nth(1).getByTestId('fetch-state')).toHaveText('Draft');
    await expect(octoberFetches.nth(1)).toContainText('Superseded');
    const september = page.getByTestId('saved-report').filter({ hasText: '2026-09-01 – 2026-09-30' });
    await expect(september.getByTestId('fetch-state')).toHaveText('Draft');
    await expect(september).not.toContainText('Superseded');
    const savedList = page.getByRole('region', { name: 'Saved reports' });
    await savedList.scrollIntoViewIfNeeded();
    for (const size of SCREEN_SIZES) {
      await page.setViewportSize(size);
      // A narrow screen folds the list away; shown again, the month's earlier fetches are still unfolded.
      if (size.width < WIDE.width) await page.getByRole('button', { name: 'Show the list of reports' }).click();
      await expect(octoberFetches.nth(1)).toBeVisible();
      await page.screenshot({ path: test.info().outputPath(`saved-reports-${size.width}x${size.height}.png`), fullPage: true });
    }
    await page.setViewportSize(WIDE);

    // The earlier fetch of October says that a newer one replaced it.
    const older = await (await reports.openNewest(OCTOBER, 1)).closeTheMonth();
    await expect(older.state).toHaveText('Draft · the month is Prepared on another fetchSuperseded by a newer fetch');
  } finally {
    await twin.close();
  }
});

test('the checks arriving move no tab: a tab clicked while the month is checked is the tab opened', async ({ page, bridge }) => {
  test.setTimeout(90_000);
  const twin = await startTwin({ reportReadyAfterMs: 0, reportReadyAfterPolls: 0, organizations: 6 });
  try {
    await bridge.useProfileFor(twin, 'Close');
    const { reports } = await withMonths(page, bridge);
    const tabs = page.getByRole('tab');
    const places = async () => (await tabs.evaluateAll((all) => all.map((tab) => tab.getBoundingClientRect()))).map((box) => [box.x, box.y, box.width]);

    // September has no month before it in the ledger, October has: the header says either in the same place. Each
    // is opened from the list (at the wide size, where the list is beside it) with its checks' answer held, then the
    // tabs' places are taken at the size tried, before and after the answer.
    for (const size of SCREEN_SIZES) {
      for (const [month, period] of [
        ['September', '2026-09-01 – 2026-09-30'],
        ['October', OCTOBER],
      ] as const) {
        const checks = await holdAnswers(page, 'close:state');
        await page.setViewportSize(WIDE);
        const close = await (await reports.openNewest(period)).closeTheMonth();
        await page.setViewportSize(size);
        await expect(close.heading(`Close ${month} 2026`)).toBeVisible();
        await expect(page.getByText('Checking the month…')).toBeVisible();
        // A tab clicked before the checks come stays the one open after.
        await close.openTab('Invoices');
        const before = await places();
        expect(before).toHaveLength(7);
        checks.release();
        await expect(close.state).toHaveText('Draft');
        await expect(page.getByRole('tab', { name: 'Invoices' })).toHaveAttribute('aria-selected', 'true');
        await expect(page.getByTestId('invoice-readiness')).toContainText('DRAFT');
        const after = await places();
        after.forEach((place, index) =>
          place.forEach((value, at) =>
            expect(
              Math.abs(value - before[index]![at]!),
              `tab ${index + 1} of ${month} at ${size.width}×${size.height}: ${before[index]} → ${place}`,
            ).toBeLessThanOrEqual(1.5),
          ),
        );
        await page.unrouteAll();
      }
    }
  } finally {
    await twin.close();
  }
});

test('a month whose month before was never fetched says what it was checked against', async ({ page, bridge }) => {
  test.setTimeout(90_000);
  const twin = await startTwin({ reportReadyAfterMs: 0, reportReadyAfterPolls: 0, organizations: 6 });
  try {
    await bridge.useProfileFor(twin, 'Close');
    const { reports } = await withMonths(page, bridge, ['2026-08', '2026-10']);
    const close = await (await reports.openNewest(OCTOBER)).closeTheMonth();
    await expect(close.state).toHaveText('Draft');
    await expect(page.locator('.close__fetch')).toContainText('checked against August 2026');
    const gap = page.getByRole('note').filter({ hasText: 'newest earlier month' });
    await expect(gap).toHaveText(
      'August 2026 is the newest earlier month in the ledger, not the month before: the checks against last month compare with it. Fetch the months between to check against the month before.',
    );
    await expectLaidOut(page, 'gap', gap);

    // The month before is fetched from here; once it is saved the month is checked against it, and the note goes.
    await close.button('Fetch September 2026').click();
    await expect(close.root.getByTestId('fetch-month-before')).toContainText('Fetching September 2026:');
    await expect(page.locator('.close__fetch')).toContainText('checked against September 2026', { timeout: 30_000 });
    await expect(gap).toHaveCount(0);
  } finally {
    await twin.close();
  }
});

test('a bulk review refused keeps its note form open with the note, to try again', async ({ page, bridge }) => {
  test.setTimeout(90_000);
  const twin = await startTwin({ reportReadyAfterMs: 0, reportReadyAfterPolls: 0, organizations: 12 });
  try {
    await bridge.useProfileFor(twin, 'Close');
    const { reports } = await withMonths(page, bridge);
    const close = await (await reports.openNewest(OCTOBER)).closeTheMonth();
    await close.root.getByRole('group', { name: 'Group by' }).getByRole('button', { name: 'Rules' }).click();
    const group = close.exceptions
      .getByTestId('exception-group')
      .filter({ has: page.getByRole('button', { name: /^Accept (all )?\d+ open…$/ }) })
      .first();
    await group.getByRole('button', { name: /^Accept (all )?\d+ open…$/ }).click();
    const note = group.getByRole('textbox');
    await note.fill('Agreed with the account manager');
    // The review is refused once (a colleague locked the month meanwhile, say).
    const refusal = 'A colleague prepared this month meanwhile: reopen it to review its exceptions.';
    await page.route(
      (url) => decodeURIComponent(url.pathname) === '/bridge/invoke/close:review',
      (route) => route.fulfill({ contentType: 'application/json', body: JSON.stringify({ ok: false, error: { code: 'control', message: refusal } }) }),
      { times: 1 },
    );
    await group.getByRole('button', { name: /^Accept \d+$/ }).click();
    await expect(close.root).toContainText(refusal);
    await expect(note).toHaveValue('Agreed with the account manager');
    await group.getByRole('button', { name: /^Accept \d+$/ }).click();
    await expect(note).toHaveCount(0);
    await expect(group.getByRole('button', { name: /^Accept (all )?\d+ open…$/ })).toHaveCount(0);
    // The group reviewed leaves the Open list; the keyboard stays in the list, on the next button to press.
    await expect(close.exceptions.locator('button:focus')).toHaveCount(1);
  } finally {
    await twin.close();
  }
});

test("a colleague's step arriving moves no one's keyboard", async ({ page, bridge }) => {
  test.setTimeout(90_000);
  const twin = await startTwin({ reportReadyAfterMs: 0, reportReadyAfterPolls: 0, organizations: 6 });
  try {
    await bridge.useProfileFor(twin, 'Close');
    const { reports } = await withMonths(page, bridge);
    const close = await (await reports.openNewest(OCTOBER)).closeTheMonth();
    await expect(close.state).toHaveText('Draft');
    // A colleague reviews and prepares the month; the team ledger's watch says so, and the screen reads it again.
    const { handlers, events } = bridge.harness.service;
    const reportId = await newestReportId(bridge, '2026-10-01');
    const exceptionIds = (await handlers['close:state']({ reportId })).exceptions.map((exception) => exception.id);
    await handlers['close:review']({ reportId, exceptionIds, state: 'resolved', note: 'Put right in the service' });
    await handlers['close:prepare']({ reportId });
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    // (The hub the service relays its events from; the host's view of it only subscribes.)
    (events as unknown as { emit(event: 'team:changed', payload: { action: string }): void }).emit('team:changed', { action: 'prepare' });
    await expect(close.state).toContainText('Prepared by');
    await expect(close.openCounts).toHaveText('No open exceptions');
    // The sign-off box was replaced, as after one's own step, but nobody here took a step: the keyboard stays put.
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => document.activeElement === document.body)).toBe(true);
  } finally {
    await twin.close();
  }
});

test('a month with none before it fetches the month before from Compare, and is compared with it once saved', async ({ page, bridge }) => {
  test.setTimeout(90_000);
  const twin = await startTwin({ reportReadyAfterMs: 0, reportReadyAfterPolls: 0, organizations: 6 });
  try {
    await bridge.useProfileFor(twin, 'Close');
    const { reports } = await withMonths(page, bridge, ['2026-10']);
    const close = await (await reports.openNewest(OCTOBER)).closeTheMonth();
    await expect(close.state).toHaveText('Draft');
    await expect(page.locator('.close__fetch')).toContainText('nothing earlier to check against');
    // The Exceptions tab says which checks could not run, and offers the month before too.
    const none = page.getByRole('note').filter({ hasText: 'no earlier month of this service' });
    await expect(none).toContainText('nothing is checked against last month');
    await expect(close.button('Fetch September 2026')).toBeVisible();
    await close.openTab('Compare with last month');
    await expect(close.root.getByText('There is no other month of this service in the ledger yet.')).toBeVisible();
    await expectLaidOut(page, 'fetch-before', close.button('Fetch September 2026'));
    // From the keyboard: the request made, the keyboard is on its Cancel; cancelled, back on the button.
    const fetching = close.root.getByTestId('fetch-month-before');
    await close.button('Fetch September 2026').focus();
    await page.keyboard.press('Enter');
    await expect(fetching).toContainText('Fetching September 2026:');
    await expect(fetching.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(close.button('Fetch September 2026')).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(fetching).toContainText('Fetching September 2026:');
    // Saved, it is the month compared with — the bridges painted — and the one the checks stand on.
    await expect(page.locator('.close__fetch')).toContainText('checked against September 2026', { timeout: 30_000 });
    await expect(close.compareWith('October 2026')).toHaveValue(await newestReportId(bridge, '2026-09-01'));
    await expect(close.root.getByRole('table', { name: 'Change in sales per currency' })).toBeVisible();
    await expect(close.root.getByText('There is no other month of this service in the ledger yet.')).toHaveCount(0);
    await close.openTab('Exceptions');
    await expect(none).toHaveCount(0);
  } finally {
    await twin.close();
  }
});

test('a month prepared with nothing before it, then checked against the month before fetched since: not ready to invoice until reopened', async ({
  page,
  bridge,
}) => {
  test.setTimeout(90_000);
  const twin = await startTwin({ reportReadyAfterMs: 0, reportReadyAfterPolls: 0, organizations: 6 });
  try {
    await bridge.useProfileFor(twin, 'Close');
    const { reports } = await withMonths(page, bridge, ['2026-10']);
    // Reviewed and prepared on this workstation alone: ready to invoice, not approved by a second person.
    const { handlers } = bridge.harness.service;
    const reportId = await newestReportId(bridge, '2026-10-01');
    const exceptionIds = (await handlers['close:state']({ reportId })).exceptions.map((exception) => exception.id);
    await handlers['close:review']({ reportId, exceptionIds, state: 'accepted', note: 'Checked with the account manager.' });
    const close = await (await reports.openNewest(OCTOBER)).closeTheMonth();
    await expect(close.state).toHaveText('Draft');
    await close.button('Prepare the month').click();
    await expect(close.state).toContainText('Ready to invoice');

    // September fetched from here: the checks against last month run now, and find what the sign-off never saw — as
    // the offer says.
    await expect(close.root.getByTestId('fetch-month-before').first()).toContainText(
      'The month is Prepared: exceptions the checks then find stay open until it is reopened, and hold its invoices back.',
    );
    await expectLaidOut(page, 'fetch-before-signed', close.root.getByTestId('fetch-month-before').first());
    await close.button('Fetch September 2026').click();
    await expect(page.locator('.close__fetch')).toContainText('checked against September 2026', { timeout: 30_000 });
    const since = close.root.getByTestId('approval-rule');
    await expect(since).toContainText(
      /open since the month was prepared .*Reopen the month \(with a reason\) to review them; until then it is not ready to invoice\./,
    );
    await expect(close.state).toContainText('Prepared by');
    await expect(close.state).not.toContainText('Ready to invoice');
    await expectLaidOut(page, 'open-since-sign-off', since);
    // The invoices say so, and cannot be exported.
    await close.openTab('Invoices');
    const invoices = close.root.getByRole('region', { name: 'Invoices' });
    await expect(invoices.getByRole('list', { name: 'Before the invoices can be exported' })).toContainText('open since the month was prepared');
    await expect(invoices.getByRole('button', { name: 'Export invoices' })).toBeDisabled();
  } finally {
    await twin.close();
  }
});

test('a period not over yet: the request says so, and its fetch is reviewed but not prepared', async ({ page, bridge }) => {
  test.setTimeout(90_000);
  const twin = await startTwin({ reportReadyAfterMs: 0, reportReadyAfterPolls: 0, organizations: 6 });
  try {
    await bridge.useProfileFor(twin, 'Close');
    const app = new ClosebookPage(page);
    const reports = new ReportsPage(page);
    await app.open(bridge.harness.url);
    await app.nav('Reports').click();
    // A month over says nothing more; one not over (far ahead, so that the test holds on any day) says what its fetch is.
    const form = page.getByRole('form', { name: 'Request billing report' });
    await form.getByLabel('Month', { exact: true }).fill('2026-10');
    await expect(form.getByTestId('period-not-over')).toHaveCount(0);
    await form.getByLabel('Month', { exact: true }).fill('2099-12');
    await expect(form.getByTestId('period-not-over')).toHaveText(
      'This period ends on 2099-12-31: a report fetched by that day holds what was billed so far, and cannot be prepared. Fetch it again once the period is over to close the month.',
    );
    for (const size of SCREEN_SIZES) {
      await page.setViewportSize(size);
      await page.screenshot({ path: `test-results/close-period-not-over-${size.width}x${size.height}.png` });
      const box = await form.boundingBox();
      expect(box && box.x + box.width <= size.width && box.y + box.height <= size.height, `the form at ${size.width}×${size.height}`).toBe(true);
    }
    await page.setViewportSize(WIDE);
    for (const month of ['2099-12', '2100-01', '2026-10']) await reports.requestMonth(month);
    await reports.waitForSaved(3, 30_000);
    // The saved list marks the fetch of the period not over, and only it.
    const partial = (period: string) => page.getByTestId('saved-report').filter({ hasText: period }).getByText('Partial', { exact: true });
    await expect(partial('2099-12-01')).toHaveAttribute('title', /^This fetch was made on \d{4}-\d\d-\d\d, before its period ended on 2099-12-31/);
    await expect(partial('2026-10-01')).toHaveCount(0);

    // Its exceptions can be reviewed; the sign-off waits for the whole month, and says why.
    const { handlers } = bridge.harness.service;
    const reportId = await newestReportId(bridge, '2099-12-01');
    const exceptionIds = (await handlers['close:state']({ reportId })).exceptions.map((exception) => exception.id);
    await handlers['close:review']({ reportId, exceptionIds, state: 'accepted', note: 'Looked at.' });
    const close = await (await reports.openNewest('2099-12-01 – 2099-12-31')).closeTheMonth();
    await expect(close.state).toHaveText(/^Draft\s*Partial$/); // on every tab, the Invoices tab too
    await expect(close.button('Prepare the month')).toBeDisabled();
    const rule = close.root.getByTestId('prepare-rule');
    await expect(rule).toHaveText(
      /^This fetch was made on \d{4}-\d\d-\d\d, before its period ended on 2099-12-31: it holds what was billed so far, not the whole period\. Fetch the month again once it is over, and prepare that fetch\.$/,
    );
    await expectLaidOut(page, 'fetched-before-end', rule);

    // The month after it is checked against what was billed by then: it says so, and offers to fetch that month again.
    const next = await (await reports.openNewest('2100-01-01 – 2100-01-31')).closeTheMonth();
    await expect(page.locator('.close__fetch')).toContainText('checked against December 2099 (Partial)');
    const partialBefore = next.root.locator('.close__gap').filter({ hasText: 'before it was over' });
    await expect(partialBefore.getByRole('note')).toHaveText(
      /^December 2099 was fetched on \d{4}-\d\d-\d\d, before it was over on 2099-12-31: the checks against last month compare with what was billed by then\. Fetch it again to check against the whole month\.$/,
    );
    await expect(partialBefore.getByRole('button', { name: 'Fetch December 2099' })).toBeVisible();
    await expectLaidOut(page, 'compared-with-partial', partialBefore);
  } finally {
    await twin.close();
  }
});
