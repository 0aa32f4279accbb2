import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import type { ProfileView } from '@shared/schemas/profile';
import { startTwin } from '@twin/server';
import { ClosebookPage, cutPlaceholders, NARROW, WIDE } from './pages';

/** Screenshots at both sizes; at each, the page never scrolls sideways. */
async function screenshots(page: Page, name: string): Promise<void> {
  for (const size of [NARROW, WIDE]) {
    await page.setViewportSize(size);
    await page.screenshot({ path: `test-results/organizations-${name}-${size.width}x${size.height}.png` });
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      `${name} scrolls sideways at ${size.width}`,
    ).toBeLessThanOrEqual(0);
  }
}

test('demo mode: start it, test the connection, list organizations, create one after fixing its errors', async ({ page, bridge }) => {
  const app = new ClosebookPage(page);
  await app.open(bridge.harness.url);

  // First start: no profile yet, so the app offers the demo service.
  await expect(page.getByRole('heading', { name: 'Welcome to Closebook' })).toBeVisible();
  await app.startDemo();
  await expect(page.getByRole('combobox', { name: 'Active profile' })).toHaveValue(/.+/);

  // Test connection: a token and the organization list.
  await page.getByRole('row', { name: /Demo/ }).getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByTestId('connection-test')).toHaveText(/Connected: 60 organizations/);
  await expect(page.getByTestId('connection-state')).toHaveText('Online');

  // List, search and sort.
  await app.nav('Organizations').click();
  await expect(page.getByTestId('organization-count')).toHaveText('60 of 60 organizations');
  for (const size of [NARROW, WIDE]) {
    await page.setViewportSize(size);
    expect(await cutPlaceholders(page), `the search says whole what it finds at ${size.width} px`).toEqual([]);
  }
  await page.getByRole('searchbox', { name: 'Search organizations' }).fill('C-10001');
  await expect(page.getByTestId('organization-count')).toHaveText('1 of 60 organizations');
  await page.getByRole('searchbox', { name: 'Search organizations' }).fill('');

  // Opened and cancelled, the keyboard is back on the button that opened it.
  const newOrganization = page.getByRole('button', { name: 'New organization' });
  await newOrganization.click();
  await page.getByRole('form', { name: 'New organization' }).getByRole('button', { name: 'Cancel' }).click();
  await expect(newOrganization).toBeFocused();

  // Create: the form's own check first…
  await newOrganization.click();
  const form = page.getByRole('form', { name: 'New organization' });
  await app.field(form, 'Name').fill('Kestrel Analytics AB');
  await app.field(form, 'Customer number').fill('C-10001');
  await app.field(form, 'Contact e-mail').fill('it@kestrel');
  await app.field(form, 'Country code').fill('Sweden');
  await form.getByRole('button', { name: 'Create organization' }).click();
  await expect(form.getByText('must be an e-mail address like name@example.com')).toBeVisible();
  await expect(form.getByText('must be a two-letter country code like SE')).toBeVisible();

  // …then the service's: the customer number is taken, shown beside its field.
  await app.field(form, 'Contact e-mail').fill('it@kestrel-analytics.example');
  await app.field(form, 'Country code').fill('se');
  await form.getByRole('button', { name: 'Create organization' }).click();
  await expect(form.getByText(/Customer number C-10001 is already used by/).first()).toBeVisible();
  await screenshots(page, 'form');

  // Fixed, created, and listed.
  await app.field(form, 'Customer number').fill('C-20001');
  await form.getByRole('button', { name: 'Create organization' }).click();
  await expect(form).toBeHidden();
  await expect(page.getByTestId('organization-count')).toHaveText('61 of 61 organizations');
  await expect(page.getByRole('status').filter({ hasText: 'Created' })).toHaveText(/Created “Kestrel Analytics AB” \(customer number C-20001\)\./);
  const created = page.getByRole('row', { name: /Kestrel Analytics AB/ });
  await expect(created).toContainText('C-20001');
  // The list scrolls to the new organization and selects it, wherever it sorts.
  await expect(created).toBeFocused();
  await expect(created).toHaveAttribute('aria-selected', 'true');
  await expect(created).toBeInViewport();
  await screenshots(page, 'created');
  // The list scrolls in its own frame: the row and its confirmation are in view together, at either size.
  for (const size of [NARROW, WIDE]) {
    await page.setViewportSize(size);
    await created.scrollIntoViewIfNeeded();
    await expect(page.getByRole('status').filter({ hasText: 'Created' })).toBeInViewport();
    await expect(page.getByRole('searchbox', { name: 'Search organizations' })).toBeInViewport();
    const table = await page.getByRole('table', { name: 'Organizations' }).boundingBox();
    expect(table && table.x + table.width, `the list fits the window at ${size.width}`).toBeLessThanOrEqual(size.width);
  }
  // The notice dismissed, the keyboard goes to New organization (the ✕ pressed is gone).
  await page.getByRole('button', { name: 'Dismiss' }).click();
  await expect(newOrganization).toBeFocused();
});

/** Adds a profile "Production" for the demo's service through Settings' form, with `password`. */
async function addProduction(app: ClosebookPage, demo: ProfileView, password: string): Promise<void> {
  await app.page.getByRole('button', { name: 'Add profile' }).click();
  const form = app.page.getByRole('form', { name: 'New profile' });
  await app.field(form, 'Name').fill('Production');
  await app.field(form, 'Base URL').fill(demo.baseUrl);
  await app.field(form, 'Username').fill(demo.username);
  await app.field(form, 'Reseller ID').fill(demo.resellerId);
  await app.field(form, 'API secret').fill('demo-api-secret');
  await app.field(form, 'Password').fill(password);
  await form.getByRole('button', { name: 'Save profile' }).click();
  await expect(form).toBeHidden();
}

test('a profile with a wrong password says the credentials were refused', async ({ page, bridge }) => {
  const app = new ClosebookPage(page);
  await app.open(bridge.harness.url);
  await app.startDemo();
  const demo = (await bridge.harness.service.handlers['profiles:list']({})).profiles[0]!;

  await addProduction(app, demo, 'not-the-password');

  const row = page.getByRole('row', { name: /Production/ });
  await expect(row).toContainText('In keychain');
  await row.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByTestId('connection-test')).toHaveText(/refused the credentials/);
});

test('the connection indicator follows the last call of any kind — report polls too — and says when', async ({ page, bridge }) => {
  const twin = await startTwin({ reportReadyAfterMs: 1_000, reportReadyAfterPolls: 1 });
  try {
    await bridge.useProfileFor(twin, 'Production');
    const app = new ClosebookPage(page);
    await app.open(bridge.harness.url);
    await expect(page.getByTestId('connection-state')).toHaveText('Not checked yet');
    await expect(page.getByTestId('connection-when')).toHaveCount(0);

    // Only a report request and its polls talk to the service here: they are what the indicator shows.
    await app.nav('Reports').click();
    await page.getByRole('button', { name: 'Request report' }).click();
    await expect(page.getByTestId('saved-report')).toHaveCount(1, { timeout: 30_000 });
    await expect(page.getByTestId('connection-state')).toHaveText('Online');
    await expect(page.getByTestId('connection-when')).toHaveText(/· \d{1,2}[:.]\d{2}/);

    // A service that answers 500 is not "Online".
    twin.faults.add({ kind: 'status', status: 500, path: 'Organizations', times: 20 });
    await app.nav('Organizations').click();
    await expect(page.getByTestId('connection-state')).toHaveText('Service error', { timeout: 30_000 });
    await expect(page.locator('.connection')).toHaveAttribute('title', /500|server error/i);
  } finally {
    await twin.close();
  }
});

test("the service's list lags behind its billing: the screen says so, and a customer number the month bills is a warning before create", async ({
  page,
  bridge,
}) => {
  const twin = await startTwin({ organizations: 8, listedOrganizations: 1, reportReadyAfterMs: 0, reportReadyAfterPolls: 0 });
  try {
    const profileId = await bridge.useProfileFor(twin, 'Lagging');
    const { handlers } = bridge.harness.service;
    const app = new ClosebookPage(page);
    await app.open(bridge.harness.url);
    await app.nav('Reports').click();
    await page.getByRole('button', { name: 'Request report' }).click();
    await expect(page.getByTestId('saved-report')).toHaveCount(1, { timeout: 30_000 });

    const listed = await handlers['organizations:list']({ profileId });
    const billed = (await handlers['organizations:in-report']({ profileId }))!.organizations.filter((organization) => organization.orgId !== listed[0]?.orgId);
    expect(listed).toHaveLength(1);
    await app.nav('Organizations').click();
    await expect(page.getByTestId('organization-count')).toHaveText('1 of 1 organization');
    const missing = page.getByTestId('organizations-missing');
    await expect(missing).toContainText(
      /^The service lists 1 organization; Billing \d{4}-\d{2} · Lagging bills 8 organizations\. 7 of them are not in its list: /,
    );
    await expect(missing).toContainText('and 2 more');
    await screenshots(page, 'lagging-list');

    // A customer number only the month bills: the service would take it twice; Closebook asks first.
    const holder = billed.find((organization) => organization.customerNumber)!;
    await page.getByRole('button', { name: 'New organization' }).click();
    const form = page.getByRole('form', { name: 'New organization' });
    await app.field(form, 'Name').fill('Kestrel Analytics AB');
    await app.field(form, 'Customer number').fill(holder.customerNumber);
    await app.field(form, 'Contact e-mail').fill('it@kestrel-analytics.example');
    await app.field(form, 'Country code').fill('SE');
    await form.getByRole('button', { name: 'Create organization' }).click();
    await expect(form.getByText(`Customer number ${holder.customerNumber} is already used by ${holder.name} (billed in Billing`)).toBeVisible();
    expect(await handlers['organizations:list']({ profileId })).toHaveLength(1);
    await form.getByRole('button', { name: 'Create anyway' }).click();
    await expect(form).toBeHidden();
    await expect(page.getByText('Created “Kestrel Analytics AB”')).toBeVisible();
  } finally {
    await twin.close();
  }
});

test('profiles are added, used, edited and deleted from the keyboard, the focus never falling to the top of the page', async ({ page, bridge }) => {
  const app = new ClosebookPage(page);
  await app.open(bridge.harness.url);
  await app.startDemo();
  const demo = (await bridge.harness.service.handlers['profiles:list']({})).profiles[0]!;
  await addProduction(app, demo, 'demo-password');
  const add = page.getByRole('button', { name: 'Add profile' });
  // The form closed, the keyboard is back on what opened it.
  await expect(add).toBeFocused();

  // Use: the button goes once the profile is in use; the keyboard stays in its row.
  const row = page.getByRole('row', { name: /Production/ });
  await row.getByRole('button', { name: 'Use' }).focus();
  await page.keyboard.press('Enter');
  await expect(row).toContainText('in use');
  await expect(row.getByRole('button', { name: 'Test connection' })).toBeFocused();

  // Edit, then Cancel: back on Edit.
  await row.getByRole('button', { name: 'Edit' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(row.getByRole('button', { name: 'Edit' })).toBeFocused();

  // Delete asks with the keyboard on Keep; kept, back on Delete; deleted, on the profile now in its place.
  await row.getByRole('button', { name: 'Delete' }).focus();
  await page.keyboard.press('Enter');
  await expect(row.getByRole('button', { name: 'Keep' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(row.getByRole('button', { name: 'Delete' })).toBeFocused();
  await page.keyboard.press('Enter');
  await row.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(row).toHaveCount(0);
  await expect(page.getByRole('row', { name: /Demo/ }).locator('button:focus')).toHaveCount(1);
  expect((await bridge.harness.service.handlers['profiles:list']({})).profiles.map((profile) => profile.name)).toEqual(['Demo']);
});
