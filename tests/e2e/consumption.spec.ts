import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { money } from '@shared/money';
import { buildBillingReport } from '@twin/billing-report';
import { generateOrganizations } from '@twin/dataset';
import { startTwin } from '@twin/server';
import { expect, test } from './fixtures';
import { ConsumptionPage } from './consumption-page';
import { holdAnswers } from './held-answers';
import { ClosebookPage, cutPlaceholders, NARROW, ReportsPage, SCREEN_SIZES, WIDE } from './pages';

const UNKNOWN = '11111111-2222-4333-8444-555555555555';
/** No submission state may show as its code. */
const RAW_STATES = /outcome-unknown|\bQueued\b(?! at)|\berror\b|\bsending\b/;

interface MeteredSubscription {
  subscriptionId: string;
  itemName: string;
  addonIds: string[];
}

async function meteredSubscriptions(twinUrl: string): Promise<MeteredSubscription[]> {
  return (await (await fetch(`${twinUrl}/__twin/subscriptions`)).json()) as MeteredSubscription[];
}

async function twinState(twinUrl: string): Promise<{ savedConsumption: number; tasks: number }> {
  return (await (await fetch(`${twinUrl}/__twin/state`)).json()) as { savedConsumption: number; tasks: number };
}

/** Screenshots at both sizes; at each, a grid on screen shows every column without scrolling sideways. */
async function screenshots(page: Page, name: string): Promise<void> {
  for (const size of SCREEN_SIZES) {
    await page.setViewportSize(size);
    await page.screenshot({ path: `test-results/consumption-${name}-${size.width}x${size.height}.png` });
    expect(await cutPlaceholders(page), `${name}'s placeholders at ${size.width}×${size.height}`).toEqual([]);
    for (const grid of await page.locator('.batch').all()) {
      expect(
        await grid.evaluate((element) => element.scrollWidth - element.clientWidth),
        `${name}: the grid scrolls sideways at ${size.width}×${size.height}`,
      ).toBeLessThanOrEqual(0);
    }
  }
  await page.setViewportSize(WIDE);
}

test('import with an invalid row, fix it, get Failed for an unknown subscription, fix in place, resubmit, Successful, both in history', async ({
  page,
  bridge,
}) => {
  const app = new ClosebookPage(page);
  await app.open(bridge.harness.url);
  await app.startDemo();
  const metered = await meteredSubscriptions(await bridge.twinUrl());
  const [first, second] = metered;

  await app.nav('Consumption').click();
  const screen = new ConsumptionPage(page);
  const csv = `Subscription ID;Is add-on;Add-on ID;Quantity;Customer\r\n${first!.subscriptionId};no;;12,5;Contoso\r\n${UNKNOWN};no;;3;Fabrikam\r\n${second!.subscriptionId};no;;abc;Tailspin\r\n`;
  await screen.importFile('march.csv', csv);

  // The invalid row says what is wrong, beside it; nothing can be sent yet.
  await expect(screen.messages(4)).toHaveText('Quantity: "abc" is not a number.');
  await expect(screen.batchStatus).toHaveText('1 problem to fix before submitting');
  await expect(screen.submit).toBeDisabled();
  await screen.cell(4, 'Quantity').fill('5');
  await expect(screen.messages(4)).toHaveCount(0);
  await screen.submit.focus();
  await page.keyboard.press('Enter');

  // The service rejects the batch: the failure sits beside its row, and nothing was saved. The keyboard, which fell
  // off Submit while the task ran, is on the way to the refused row.
  await expect(screen.submissionState).toHaveText('Failed — nothing was saved', { timeout: 30_000 });
  await expect(screen.button('Show row 3')).toBeFocused();
  await expect(screen.messages(3)).toContainText(`Refused by the service: Subscription ${UNKNOWN} does not exist`);
  await expect(screen.nothingSaved).toContainText('nothing of this batch was saved');
  // The failed rows come back with the user's own column, to fix and send again.
  const [download] = await Promise.all([page.waitForEvent('download'), screen.button('Failed rows to CSV').click()]);
  const failedRows = await readFile((await download.path()) as string, 'utf8');
  expect(failedRows).toContain('Row,Subscription ID,Is add-on,Add-on ID,Quantity,Consumption ID,Customer,Error');
  expect(failedRows).toContain(`3,${UNKNOWN},no,,3,,Fabrikam,Subscription ${UNKNOWN} does not exist`);

  // "Show row 3" takes the keyboard to the refused row's first cell; fixed in place, the old error (naming the old
  // id) goes with the edit, and so does the button; sent again, whole.
  await screen.button('Show row 3').click();
  await expect(screen.cell(3, 'Subscription ID')).toBeFocused();
  await page.keyboard.press('Control+A');
  await page.keyboard.type(metered[2]!.subscriptionId);
  await expect(screen.messages(3)).toHaveCount(0);
  await expect(screen.button(/^Show row/)).toHaveCount(0);
  await screen.button('Submit the whole batch again').focus();
  await page.keyboard.press('Enter');
  await expect(screen.submissionState).toHaveText('Successful', { timeout: 30_000 });
  // Nothing left to fix: the keyboard is on the line that says how the task ended.
  await expect(screen.submissionState.locator('..')).toBeFocused();

  await expect(screen.history).toHaveCount(2);
  await expect(screen.historyState).toHaveText(['Successful', 'Failed — nothing was saved']);
});

test.describe('names, own columns, decimal commas and the month', () => {
  const twin = { seed: 7, organizations: 12, linesPerOrganization: 10 };
  // Wide enough for the own columns side by side (a narrow window is tried further down).
  test.use({ twinOptions: twin, viewport: WIDE });

  test('names each id from the saved report, keeps the own columns, reads 12,5 but not 1,234, and keeps the month chosen', async ({ page, bridge }) => {
    const app = new ClosebookPage(page);
    await app.open(bridge.harness.url);
    await app.startDemo();
    const twinUrl = await bridge.twinUrl();
    const metered = await meteredSubscriptions(twinUrl);
    const withAddon = metered.find((subscription) => subscription.addonIds.length > 0)!;
    const [plain, other] = metered.filter((subscription) => subscription !== withAddon);
    const organizationOf = (subscriptionId: string) =>
      generateOrganizations(twin).find((organization) =>
        organization.services.some((use) => use.subscriptions.some((subscription) => subscription.subscriptionId === subscriptionId)),
      )!.name;

    // Names come from the saved reports of the profile: none yet, so the screen says so.
    await app.nav('Consumption').click();
    const screen = new ConsumptionPage(page);
    await screen.paste([
      ['Subscription ID', 'Quantity'],
      [plain!.subscriptionId, '1'],
    ]);
    await expect(screen.names(2)).toHaveText('not in the saved reports of this profile');
    await expect(screen.namesNote).toContainText('No billing report of this profile is saved yet');

    await app.requestReport(60_000);
    // A second month, so Closebook can tell a metered subscription (its quantity varies) from a licence.
    const reports = new ReportsPage(page);
    await reports.requestMonth('2026-09');
    await reports.waitForSaved(2, 60_000);
    await app.nav('Consumption').click();
    await screen.paste([
      ['Customer', 'Subscription ID', 'Is add-on', 'Add-on ID', 'Quantity', 'Cost centre'],
      ['Contoso', plain!.subscriptionId, 'no', '', '12,5', 'CC-7'],
      ['Fabrikam', UNKNOWN, 'no', '', '1,234', 'CC-9'],
      ['Tailspin', withAddon.subscriptionId, 'yes', withAddon.addonIds[0]!, '2', ''],
    ]);

    // Names beside the ids; an id no saved report has says so; an add-on says it is one, with its id.
    await expect(screen.names(2)).toContainText(organizationOf(plain!.subscriptionId));
    await expect(screen.names(2)).toContainText(plain!.itemName);
    await expect(screen.names(3)).toHaveText('not in the saved reports of this profile');
    await expect(screen.names(4)).toContainText(withAddon.itemName);
    await expect(screen.names(4)).toContainText(`add-on ${withAddon.addonIds[0]}`);
    await expect(screen.namesNote).toHaveCount(0);
    // Metered where the twin billed it for another quantity in September than in October (worked out here from the
    // twin's own months), else the same quantity in both.
    const billedIn = (startDate: string, endDate: string, subscriptionId: string) =>
      buildBillingReport(generateOrganizations(twin), startDate, endDate, { ...twin, plant: true })
        .flatMap((entry) => entry.organizations.flatMap((organization) => organization.services.flatMap((service) => service.items)))
        .filter((item) => item.subscriptionId === subscriptionId)
        .flatMap((item) => item.products)
        .reduce((sum, line) => sum.plus(line.quantity), money(0))
        .toFixed();
    const kinds = [plain!, withAddon].map((subscription) =>
      billedIn('2026-09-01', '2026-09-30', subscription.subscriptionId) === billedIn('2026-10-01', '2026-10-31', subscription.subscriptionId)
        ? 'fixed qty'
        : 'metered',
    );
    expect(kinds).toContain('metered');
    await expect(screen.names(2).getByTestId('billing-kind')).toHaveText(kinds[0]!);
    await expect(screen.names(4).getByTestId('billing-kind')).toHaveText(kinds[1]!);

    // The own columns are shown, marked as not sent.
    await expect(screen.columnHeader('Customer not sent')).toBeVisible();
    await expect(screen.columnHeader('Cost centre not sent')).toBeVisible();
    await expect(screen.own(2, 1)).toHaveText('Contoso');
    await expect(screen.own(2, 2)).toHaveText('CC-7');
    await expect(screen.ownColumns).toHaveText('Your own columns, kept and shown but not sent: Customer, Cost centre');

    // 12,5 is a decimal comma; 1,234 could be a thousand, so it is refused, saying how to write it.
    await expect(screen.messages(2)).toHaveCount(0);
    await expect(screen.messages(3)).toHaveText(
      'Quantity: "1,234" could be a thousand or a decimal: write 1234 for a whole number, or 1.234 with a decimal point.',
    );
    await screen.cell(3, 'Quantity').fill('1.234');
    await screen.cell(3, 'Subscription ID').fill(other!.subscriptionId);
    await expect(screen.names(3)).toContainText(other!.itemName);
    await expect(screen.messages(3)).toHaveCount(0);
    await screenshots(page, 'names');

    // In a narrow window import and history step aside, and the own columns share one column, each value named.
    await page.setViewportSize(NARROW);
    await expect(screen.importPanel).toBeHidden();
    await expect(screen.columnHeader('Your columns not sent')).toBeVisible();
    await expect(screen.own(2, 1)).toHaveText('Contoso');
    await expect(screen.own(2, 2)).toBeInViewport();
    await screen.button('Show import and history').click();
    await expect(screen.importPanel).toBeVisible();
    await screen.button('Hide import and history').click();
    await page.setViewportSize(WIDE);

    // The month the usage is for: last month unless chosen; kept with the batch and shown in the history.
    const month = screen.month;
    const today = new Date();
    const lastMonth = new Date(today.getFullYear(), today.getMonth() - 1, 1);
    await expect(month).toHaveValue(`${lastMonth.getFullYear()}-${String(lastMonth.getMonth() + 1).padStart(2, '0')}`);
    await month.fill('2025-11');
    await expect(screen.batchStatus).toHaveText('3 records ready · usage for November 2025');
    const before = await twinState(twinUrl);
    await screen.submit.click();
    await expect(screen.submissionState).toHaveText('Successful', { timeout: 30_000 });
    await expect(screen.submissionPeriod).toContainText('usage for November 2025');
    await expect(screen.historyPeriod).toHaveText('Usage for November 2025 · 3 records');
    // Three records reached the service, none of the own columns.
    expect((await twinState(twinUrl)).savedConsumption).toBe(before.savedConsumption + 3);

    // Next month starts from this one: the same subscriptions, add-ons and own columns, the quantities to fill in.
    await screen.button('Show import and history').click();
    await screen.button('Start from November 2025').click();
    await expect(screen.cell(2, 'Subscription ID')).toHaveValue(plain!.subscriptionId);
    await expect(screen.cell(3, 'Subscription ID')).toHaveValue(other!.subscriptionId);
    for (const row of [2, 3, 4]) {
      await expect(screen.cell(row, 'Quantity')).toHaveValue('');
      await expect(screen.messages(row)).toContainText('Quantity');
    }
    await expect(screen.names(4)).toContainText(`add-on ${withAddon.addonIds[0]}`);
    await expect(screen.own(2, 1)).toHaveText('Contoso');
    await expect(screen.month).toHaveValue(`${lastMonth.getFullYear()}-${String(lastMonth.getMonth() + 1).padStart(2, '0')}`);
    await screen.button('Hide import and history').click();
    await screenshots(page, 'start-from-last-month');
  });
  test('names arriving move nothing: Submit stays where it was, found or not', async ({ page, bridge }) => {
    const app = new ClosebookPage(page);
    await app.open(bridge.harness.url);
    await app.startDemo();
    const [first, second] = await meteredSubscriptions(await bridge.twinUrl());
    const rows = [
      ['Subscription ID', 'Quantity'],
      [first!.subscriptionId, '1'],
      [second!.subscriptionId, '2'],
    ];
    const screen = new ConsumptionPage(page);
    const submitBox = async () => {
      await expect(screen.submit).toBeEnabled();
      return screen.submit.boundingBox();
    };

    // No saved report: the names are not found, and the screen says why.
    let names = await holdAnswers(page, 'consumption:names');
    await app.nav('Consumption').click();
    await screen.paste(rows);
    const beforeNote = await submitBox();
    names.release();
    await expect(screen.namesNote).toContainText('No billing report of this profile is saved yet');
    expect(await submitBox(), 'Submit moved when the names were not found').toEqual(beforeNote);

    // A saved report: the names are found, organization and subscription.
    await page.unrouteAll();
    await app.requestReport(60_000);
    names = await holdAnswers(page, 'consumption:names');
    await app.nav('Consumption').click();
    await screen.paste(rows);
    const beforeNames = await submitBox();
    names.release();
    await expect(screen.names(3)).toContainText(second!.itemName);
    expect(await submitBox(), 'Submit moved when the names were found').toEqual(beforeNames);
  });
});

test.describe('a batch whose task takes a while', () => {
  test.use({ twinOptions: { taskQueuedMs: 3_000, taskProcessingMs: 3_000 } });

  test('locks while the task runs; history opens read-only; a copy is a new batch; "Don\'t send" sends nothing', async ({ page, bridge }) => {
    const app = new ClosebookPage(page);
    await app.open(bridge.harness.url);
    await app.startDemo();
    const twinUrl = await bridge.twinUrl();
    const [first, second] = await meteredSubscriptions(twinUrl);
    await app.nav('Consumption').click();
    const screen = new ConsumptionPage(page);
    await screen.paste([
      ['Subscription ID', 'Quantity', 'Note'],
      [first!.subscriptionId, '4', 'north'],
      [second!.subscriptionId, '7,25', 'south'],
    ]);
    const submit = screen.submit;
    await submit.click();

    // While the service has the task, nothing of the batch can change, and it says why.
    await expect(screen.submissionState).toHaveText('Queued at the service', { timeout: 10_000 });
    await expect(screen.locked).toContainText('Locked while the service works on this batch (queued at the service)');
    await expect(screen.cell(2, 'Quantity')).toHaveCount(0);
    await expect(screen.button('Remove row 2')).toHaveCount(0);
    await expect(submit).toBeDisabled();
    await expect(screen.month).toBeDisabled();
    await screenshots(page, 'locked');
    await expect(screen.submissionState).toHaveText('Processing', { timeout: 10_000 });
    await expect(screen.locked).toContainText('(processing)');
    await expect(screen.cell(2, 'Quantity')).toHaveCount(0);
    await expect(screen.submissionState).toHaveText('Successful', { timeout: 20_000 });
    await expect(screen.locked).toHaveCount(0);
    await expect(screen.cell(2, 'Quantity')).toBeVisible();

    // A past batch opens read-only, whatever its state: no cells to type in, no Submit.
    await screen.openPast('pasted rows.csv');
    const past = screen.pastBatch;
    await expect(past).toContainText('read-only');
    await expect(screen.submissionState).toHaveText('Successful');
    await expect(screen.grid).toContainText('7,25');
    await expect(screen.cell(3, 'Quantity')).toHaveCount(0);
    await expect(screen.button(/^Submit/)).toHaveCount(0);
    await expect(screen.own(3, 1)).toHaveText('south');
    await screenshots(page, 'past');

    // Copied, it is a new batch to edit; sent unchanged, the repeat warning offers not to send.
    await screen.button('Copy to a new batch', past).click();
    await expect(screen.pastBatch).toHaveCount(0);
    await expect(screen.submission).toHaveCount(0);
    await expect(screen.cell(3, 'Quantity')).toHaveValue('7,25');
    await expect(screen.own(3, 1)).toHaveText('south');
    const saved = (await twinState(twinUrl)).savedConsumption;
    await submit.click();
    const question = screen.repeatQuestion;
    await expect(question).toContainText('already submitted successfully');
    await screenshots(page, 'repeat');
    await screen.answerRepeat("Don't send");
    await expect(question).toHaveCount(0);
    await expect(page.getByText('Nothing was sent.')).toBeVisible();
    await expect(screen.history).toHaveCount(1);
    expect(await twinState(twinUrl)).toMatchObject({ savedConsumption: saved, tasks: 1 });

    // Changed, it is another batch: sent without a question.
    await screen.cell(2, 'Quantity').fill('5');
    await submit.click();
    await expect(screen.submissionState).toHaveText('Queued at the service', { timeout: 10_000 });
    await expect(screen.history).toHaveCount(2);
    await expect(screen.historyState).toHaveText(['Queued at the service', 'Successful']);

    // Left while the service works, and come back once it is done: the batch says so, and is no longer locked.
    await app.nav('Reports').click();
    await expect.poll(async () => (await bridge.harness.service.handlers['consumption:history']({}))[0]?.state, { timeout: 20_000 }).toBe('Successful');
    await app.nav('Consumption').click();
    await expect(screen.submissionState).toHaveText('Successful');
    await expect(screen.locked).toHaveCount(0);
    await expect(screen.cell(2, 'Quantity')).toHaveValue('5');
  });
});

test('sending the same batch twice asks first, and sends again only when told to; every state reads as words', async ({ page, bridge }) => {
  // A service of its own (not the demo's), so a test can make a send lose its answer.
  const twin = await startTwin({ taskQueuedMs: 300, taskProcessingMs: 300 });
  try {
    await bridge.useProfileFor(twin, 'Seller');
    const app = new ClosebookPage(page);
    await app.open(bridge.harness.url);
    const [first] = twin.organizations.flatMap((o) => o.services.flatMap((s) => s.subscriptions)).filter((s) => s.metered);
    await app.nav('Consumption').click();
    const screen = new ConsumptionPage(page);
    const csv = Buffer.from(`Subscription ID,Quantity\n${first!.subscriptionId},2\n`);
    await screen.importFile('april.csv', csv);
    await screen.submit.click();
    await expect(screen.submissionState).toHaveText('Successful', { timeout: 30_000 });

    await screen.importFile('april again.csv', csv);
    await screen.submit.click();
    const question = screen.repeatQuestion;
    await expect(question).toContainText('already submitted successfully');
    await expect(screen.history).toHaveCount(1);
    await screen.answerRepeat('Send again');
    await expect(screen.history).toHaveCount(2);
    await expect(screen.submissionState).toHaveText('Successful', { timeout: 30_000 });
    expect(twin.savedConsumption()).toHaveLength(2);

    // A send whose answer is lost: the state says what it means, here and in the history.
    twin.faults.add({ kind: 'drop-after-processing', method: 'POST', path: 'bulkconsumptions' });
    const may = Buffer.from(`Subscription ID,Quantity\n${first!.subscriptionId},3\n`);
    await screen.importFile('may.csv', may);
    await screen.submit.click();
    await expect(screen.submissionState).toHaveText('Outcome unknown — may have arrived', { timeout: 30_000 });
    await expect(screen.historyState).toHaveText(['Outcome unknown — may have arrived', 'Successful', 'Successful']);
    expect((await screen.historyPanel.textContent()) ?? '').not.toMatch(RAW_STATES);

    // Sending it again is asked first; "Don't send" sends nothing.
    const saved = twin.savedConsumption().length;
    await screen.submit.click();
    await expect(question).toContainText('may have arrived');
    await screen.answerRepeat("Don't send");
    await expect(question).toHaveCount(0);
    await expect(screen.history).toHaveCount(3);
    expect(twin.savedConsumption()).toHaveLength(saved);
  } finally {
    await twin.close();
  }
});

test('rows typed or fixed and not sent are never replaced without a yes; a file untouched, or rows sent, are replaced at once', async ({ page, bridge }) => {
  const app = new ClosebookPage(page);
  await app.open(bridge.harness.url);
  await app.startDemo();
  const [first] = await meteredSubscriptions(await bridge.twinUrl());
  const file = (quantity: string) => `Subscription ID,Quantity\n${first!.subscriptionId},${quantity}\n`;
  await app.nav('Consumption').click();
  const screen = new ConsumptionPage(page);
  const heading = page.getByRole('region', { name: 'Batch', exact: true }).getByRole('heading', { level: 2 });
  const question = page.getByRole('alertdialog', { name: 'Replace the batch you are editing?' });

  // A file as read loses nothing when another takes its place.
  await screen.importFile('june.csv', file('2'));
  await screen.importFile('july.csv', file('3'));
  await expect(heading).toHaveText('july.csv (1 row)');
  await expect(question).toHaveCount(0);

  // Fixed here, it is kept until the user says otherwise; keeping is the answer focus lands on.
  await screen.cell(2, 'Quantity').fill('9');
  await screen.button('Type rows').click();
  await expect(question).toContainText('A new batch of typed rows replaces the batch you are editing (july.csv, 1 row)');
  await expect(screen.button('Keep my batch', question)).toBeFocused();
  await screenshots(page, 'replace-question');
  await screen.button('Keep my batch', question).click();
  await expect(question).toHaveCount(0);
  await expect(heading).toContainText('july.csv');
  await expect(screen.cell(2, 'Quantity')).toHaveValue('9');

  await screen.importFile('august.csv', file('4'));
  await expect(question).toContainText('Opening august.csv replaces');
  await screen.button('Replace it', question).click();
  await expect(heading).toContainText('august.csv');
  await expect(screen.cell(2, 'Quantity')).toHaveValue('4');

  // Changed and then sent, the rows are in the history: a new batch replaces them without a question.
  await screen.cell(2, 'Quantity').fill('5');
  await screen.submit.click();
  await expect(screen.submissionState).toHaveText('Successful', { timeout: 30_000 });
  await screen.button('Type rows').click();
  await expect(question).toHaveCount(0);
  await expect(heading).toContainText('typed rows');
});

test('a batch of 50,000 rows opens, is named and checks an edit in seconds; "Show row" finds the one problem', async ({ page, bridge }) => {
  const app = new ClosebookPage(page);
  await app.open(bridge.harness.url);
  await app.startDemo();
  const metered = await meteredSubscriptions(await bridge.twinUrl());
  await app.nav('Consumption').click();
  const screen = new ConsumptionPage(page);
  const lines = ['Subscription ID,Quantity,Customer'];
  for (let index = 0; index < 50_000; index++) {
    lines.push(`${metered[index]?.subscriptionId ?? crypto.randomUUID()},${index === 40_000 ? '"1,234"' : `${index % 7}.5`},C${index}`);
  }
  const started = Date.now();
  await screen.importFile('big.csv', lines.join('\n'));
  await expect(screen.own(2, 1)).toHaveText('C0', { timeout: 60_000 });
  // Only the rows in view are drawn; the names of all 50,000 ids come in one lookup.
  await expect(screen.names(2)).toHaveText('not in the saved reports of this profile');
  const shown = Date.now() - started;
  expect(await page.locator('tr[data-row]').count()).toBeLessThan(100);
  await expect(screen.batchStatus).toHaveText('1 problem to fix before submitting');
  await screen.button('Show row 40002').click();
  await expect(screen.messages(40002)).toContainText('could be a thousand or a decimal');
  await expect(screen.cell(40002, 'Subscription ID')).toBeFocused();
  const edited = Date.now();
  await screen.cell(40002, 'Quantity').fill('1234');
  await expect(screen.batchStatus).toHaveText(/^50,000 records ready/);
  const checked = Date.now() - edited;
  // About 4 s and 0.4 s here; drawing every row took 79 s and 55 s a keystroke.
  expect(shown).toBeLessThan(30_000);
  expect(checked).toBeLessThan(5_000);
});

test('rows removed from the keyboard hand the focus on: to the row now in their place, the last one to Add a row', async ({ page, bridge }) => {
  const app = new ClosebookPage(page);
  await app.open(bridge.harness.url);
  await app.startDemo();
  await app.nav('Consumption').click();
  const screen = new ConsumptionPage(page);
  await screen.importFile('three.csv', 'Subscription ID,Quantity\nsub-a,1\nsub-b,2\nsub-c,3\n');
  await screen.button('Remove row 3').focus();
  await page.keyboard.press('Enter');
  await expect(screen.button('Remove row 3')).toHaveCount(0);
  await expect(screen.button('Remove row 4')).toBeFocused();
  // The last row removed, the one before it takes the focus; the last of all, Add a row.
  await page.keyboard.press('Enter');
  await expect(screen.button('Remove row 2')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(screen.button('+ Add a row')).toBeFocused();
});
