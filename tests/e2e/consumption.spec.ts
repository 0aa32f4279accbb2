import { readFile } from 'node:fs/promises';
import { expect, test } from './fixtures';
import { ClosebookPage } from './pages';

const UNKNOWN = '11111111-2222-4333-8444-555555555555';

test('import with an invalid row, fix it, get Failed for an unknown subscription, fix in place, resubmit, Successful, both in history', async ({ page, bridge }) => {
  const app = new ClosebookPage(page);
  await app.open(bridge.harness.url);
  await app.startDemo();
  const twinUrl = await bridge.twinUrl();
  const metered = (await (await fetch(`${twinUrl}/__twin/subscriptions`)).json()) as { subscriptionId: string; addonIds: string[] }[];
  const [first, second] = metered;

  await app.nav('Consumption').click();
  const csv = `Subscription ID;Is add-on;Add-on ID;Quantity\r\n${first!.subscriptionId};no;;12,5\r\n${UNKNOWN};no;;3\r\n${second!.subscriptionId};no;;abc\r\n`;
  await page.getByLabel('Consumption file').setInputFiles({ name: 'march.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });

  // The invalid row says what is wrong, beside it; nothing can be sent yet.
  await expect(page.getByTestId('row-4-messages')).toHaveText('Quantity: "abc" is not a number.');
  await expect(page.getByTestId('batch-status')).toHaveText('1 problem to fix before submitting');
  await expect(page.getByRole('button', { name: 'Submit batch' })).toBeDisabled();
  await page.getByRole('textbox', { name: 'Row 4 Quantity' }).fill('5');
  await expect(page.getByTestId('row-4-messages')).toHaveCount(0);
  await page.getByRole('button', { name: 'Submit batch' }).click();

  // The service rejects the batch: the failure sits beside its row, and nothing was saved.
  await expect(page.getByTestId('submission-state')).toHaveText('Failed', { timeout: 30_000 });
  await expect(page.getByTestId('row-3-messages')).toContainText(`Refused by the service: Subscription ${UNKNOWN} does not exist`);
  await expect(page.getByTestId('nothing-saved')).toContainText('nothing of this batch was saved');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Failed rows to CSV' }).click()]);
  expect(await readFile((await download.path()) as string, 'utf8')).toContain(`3,${UNKNOWN},no,,3,,Subscription ${UNKNOWN} does not exist`);

  // Fixed in place and sent again, whole.
  await page.getByRole('textbox', { name: 'Row 3 Subscription ID' }).fill(metered[2]!.subscriptionId);
  await page.getByRole('button', { name: 'Submit the whole batch again' }).click();
  await expect(page.getByTestId('submission-state')).toHaveText('Successful', { timeout: 30_000 });

  const history = page.getByTestId('history-item');
  await expect(history).toHaveCount(2);
  await expect(history.nth(0)).toContainText('Successful');
  await expect(history.nth(1)).toContainText('Failed');
});

test('sending the same batch twice asks first', async ({ page, bridge }) => {
  const app = new ClosebookPage(page);
  await app.open(bridge.harness.url);
  await app.startDemo();
  const twinUrl = await bridge.twinUrl();
  const [first] = (await (await fetch(`${twinUrl}/__twin/subscriptions`)).json()) as { subscriptionId: string }[];
  await app.nav('Consumption').click();
  const csv = Buffer.from(`Subscription ID,Quantity\n${first!.subscriptionId},2\n`);
  await page.getByLabel('Consumption file').setInputFiles({ name: 'april.csv', mimeType: 'text/csv', buffer: csv });
  await page.getByRole('button', { name: 'Submit batch' }).click();
  await expect(page.getByTestId('submission-state')).toHaveText('Successful', { timeout: 30_000 });

  await page.getByLabel('Consumption file').setInputFiles({ name: 'april again.csv', mimeType: 'text/csv', buffer: csv });
  await page.getByRole('button', { name: 'Submit batch' }).click();
  const question = page.getByRole('alertdialog', { name: 'Send this batch again?' });
  await expect(question).toContainText('already submitted successfully');
  await expect(page.getByTestId('history-item')).toHaveCount(1);
  await question.getByRole('button', { name: 'Send it again anyway' }).click();
  await expect(page.getByTestId('history-item')).toHaveCount(2);
});
