import type { Page } from '@playwright/test';
import { startTwin } from '@twin/server';
import { expect, test } from './fixtures';
import { ClosebookPage, SCREEN_SIZES } from './pages';
import { ViewerPage } from './viewer-page';

/** Holds every call of one bridge channel for `ms` before it goes through (a slow disk or a cold ledger). */
async function slowChannel(page: Page, channel: string, ms: number): Promise<void> {
  await page.route(new RegExp(`/bridge/invoke/${channel.replace(':', '(%3A|:)')}$`), async (route) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    await route.continue();
  });
}

test('a connection test says which step it is on and for how long: signing in, waiting to retry and why, listing', async ({ page, bridge }) => {
  const twin = await startTwin({ organizations: 7 });
  try {
    await bridge.useProfileFor(twin, 'Production');
    // The token endpoint answers 503 once and asks for 3 s; the organization list then takes 2.5 s.
    twin.faults.add({ kind: 'status', status: 503, path: 'connect/token', retryAfterSeconds: 3 });
    twin.faults.add({ kind: 'slow', delayMs: 2_500, path: 'Organizations' });
    const app = new ClosebookPage(page);
    await app.open(bridge.harness.url);
    await app.nav('Settings').click();
    await page
      .getByRole('row', { name: /Production/ })
      .getByRole('button', { name: 'Test connection' })
      .click();
    const status = page.getByTestId('connection-test');
    await expect(status).toHaveText(/^Signing in — trying again in [0-3] s \(attempt 2 of 4; \d+ s so far\)/);
    await expect(status).toContainText('503');
    // The header follows the failed attempt at once, not only the test's end.
    await expect(page.getByTestId('connection-state')).toHaveText('Service error');
    for (const size of SCREEN_SIZES) {
      await page.setViewportSize(size);
      await page.screenshot({ path: `test-results/progress-connection-test-${size.width}x${size.height}.png` });
    }
    await expect(status).toHaveText(/^Signed in — getting the organization list \([1-9]\d* s\)$/, { timeout: 10_000 });
    await expect(status).toHaveText(/^Connected: 7 organizations/, { timeout: 10_000 });
    await expect(status).not.toContainText('503');
    await expect(page.getByTestId('connection-state')).toHaveText('Online');
  } finally {
    await twin.close();
  }
});

test('opening a saved report names it and its size, then says what the first rows wait for, with the time it takes', async ({ page, bridge }) => {
  const app = new ClosebookPage(page);
  await app.open(bridge.harness.url);
  await app.startDemo();
  await app.requestReport(30_000);
  const saved = page.getByTestId('saved-report').first();
  const name = (await saved.getByRole('button').first().textContent()) ?? '';
  const lines = (await saved.textContent())?.match(/([\d,.\s ]+) lines/)?.[1]?.trim() ?? '';
  expect(name).toMatch(/^Billing \d{4}-\d{2} · Demo$/);
  expect(lines).toMatch(/^\d/);

  await slowChannel(page, 'reports:open', 2_000);
  await slowChannel(page, 'reports:window', 2_000);
  const viewer = await ViewerPage.open(page, saved);
  const pending = page.getByTestId('pending');
  await expect(pending).toHaveText(`Opening ${name} — ${lines} billing lines`);
  await expect(pending).toHaveText(new RegExp(`^Opening ${name} — ${lines} billing lines \\(1 s\\)$`));
  await expect(pending).toHaveText(new RegExp(`^Adding up ${lines} billing lines( \\(\\d s\\))?$`));
  await expect(pending).toHaveText(new RegExp(`^Adding up ${lines} billing lines \\([1-9] s\\)$`));
  await expect(viewer.tree.getByRole('row').nth(1)).toBeVisible({ timeout: 15_000 });
  await expect(pending).toHaveCount(0);
});
