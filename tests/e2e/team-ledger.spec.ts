import type { Page } from '@playwright/test';
import { startTeamLedgerCluster, type TestCluster } from '@testing/postgres';
import { startTwin } from '@twin/server';
import { expect, test } from './fixtures';
import { ClosebookPage, NARROW, ReportsPage, WIDE } from './pages';

const PASSWORD = 'a long e2e password';
let cluster: TestCluster;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  cluster = await startTeamLedgerCluster({ anna: ['preparer'] }, PASSWORD);
});

test.afterAll(() => cluster?.stop());

/** Screenshots at both sizes; at each, the page never scrolls sideways. */
async function screenshots(page: Page, name: string): Promise<void> {
  for (const size of [NARROW, WIDE]) {
    await page.setViewportSize(size);
    await page.screenshot({ path: `test-results/team-ledger-${name}-${size.width}x${size.height}.png` });
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      `${name} scrolls sideways at ${size.width}`,
    ).toBeLessThanOrEqual(0);
  }
}

test('Settings → Team ledger: connect, a month fetched is shared and listed as it happens, and without the server the close opens read-only', async ({
  page,
  bridge,
}) => {
  test.setTimeout(90_000);
  const twin = await startTwin({ reportReadyAfterMs: 0, reportReadyAfterPolls: 0, organizations: 8 });
  try {
    await bridge.useProfileFor(twin, 'Team');
    await page.setViewportSize(WIDE);
    const app = new ClosebookPage(page);
    await app.open(bridge.harness.url);
    await app.nav('Settings').click();

    // Connect: the address (no password in it) and the password, which goes to the keychain through the main process.
    const panel = page.getByRole('region', { name: 'Team ledger' });
    const form = panel.getByRole('form', { name: 'Connect a team ledger' });
    await app.field(form, 'Address').fill(`postgresql://anna:guess@127.0.0.1:${cluster.port}/postgres`);
    await form.getByLabel('Password').fill(PASSWORD);
    await form.getByRole('button', { name: 'Connect' }).click();
    await expect(form.getByText('Leave the password out of the address')).toBeVisible();
    await app
      .field(form, 'Address')
      .fill(`postgresql://anna@127.0.0.1:${cluster.port}/postgres?sslmode=verify-full&sslrootcert=${encodeURIComponent(cluster.caFile)}`);
    await form.getByRole('button', { name: 'Connect' }).click();
    const status = panel.getByTestId('team-ledger-status');
    await expect(status).toHaveText(/^You are anna on 127\.0\.0\.1:\d+\/postgres \(PostgreSQL 1\d.*, TLS, certificate checked\)\. Your roles: preparer\.$/);
    await expect(panel.getByText('No month is on the team ledger yet')).toBeVisible();
    // A server whose schema is older than this Closebook's says what IT runs (its version set back for a moment).
    const schemaVersion = (version: number) =>
      expect(cluster.psql(cluster.owner.user, cluster.owner.password, ['-c', `UPDATE closebook.schema_version SET version = ${version}`]).code).toBe(0);
    const behind = panel.getByRole('note').filter({ hasText: 'schema is version' });
    schemaVersion(2);
    await panel.getByRole('button', { name: 'Read again' }).click();
    await expect(behind).toHaveText(
      "The team ledger's schema is version 2, older than this Closebook's 4: until IT runs closebook-team-ledger-audit.sql, then closebook-team-ledger-period-end.sql (resources/team-ledger, as the database's owner), the rules added since are the workstations' alone.",
    );
    await screenshots(page, 'schema-behind');
    await page.setViewportSize(WIDE);
    schemaVersion(4);
    await panel.getByRole('button', { name: 'Read again' }).click();
    await expect(behind).toHaveCount(0);

    // A month fetched here is shared at once, and the list shows it without being asked (the server's notification).
    await app.nav('Reports').click();
    const reports = new ReportsPage(page);
    await reports.requestMonth('2026-10');
    await reports.requestMonth('2099-12');
    await reports.waitForSaved(2, 30_000);
    await app.nav('Settings').click();
    const months = panel.getByRole('table', { name: 'Months on the team ledger' });
    await expect(months.getByRole('row', { name: /October 2026/ })).toContainText(/Draft.*anna.*Yes/);
    // A month not over when it was fetched (one far ahead) is marked so; October, fetched after it, is not.
    await expect(months.getByRole('row', { name: /December 2099/ }).getByText('partial', { exact: true })).toHaveAttribute(
      'title',
      /^This fetch was made on \d{4}-\d\d-\d\d, before its period ended on 2099-12-31/,
    );
    await expect(months.getByRole('row', { name: /October 2026/ }).getByText('partial', { exact: true })).toHaveCount(0);
    await screenshots(page, 'connected');

    // The close reads the team ledger: who acts is the database role.
    await app.nav('Reports').click();
    let viewer = await reports.openNewest('2026-10-01 – 2026-10-31');
    let close = await viewer.closeTheMonth();
    await expect(close.root.getByRole('region', { name: 'Sign-off' })).toContainText(/still open|Nothing is open/);

    // The month's checklist: the fetch done by anna (the team ledger's log), the rest to do; the calendar is the team's.
    await close.root.getByRole('tab', { name: 'Checklist' }).click();
    const checklist = close.root.getByRole('table', { name: 'Checklist' });
    await expect(checklist.getByRole('row', { name: /Billing report fetched/ })).toContainText(/Done by anna/);
    await expect(checklist.getByRole('row', { name: /Prepared/ })).toContainText(/To do|Overdue/);
    // Business day 8 of November 2026 is the 11th; with 2 November a holiday, the 12th.
    await expect(checklist.getByRole('row', { name: /Billing report fetched/ })).toContainText('Nov 11, 2026');
    await close.root.getByText('Calendar: due days and holidays').click();
    await close.root.getByLabel(/^Holidays/).fill('2026-11-02');
    await close.root.getByRole('button', { name: 'Save the calendar' }).click();
    await expect(checklist.getByRole('row', { name: /Billing report fetched/ })).toContainText('Nov 12, 2026');
    await screenshots(page, 'checklist');

    // The server goes away: Settings says so, and the month's close opens as last read, read-only.
    cluster.halt();
    await app.nav('Settings').click();
    await panel.getByRole('button', { name: 'Read again' }).click();
    await expect(panel.getByTestId('team-ledger-status')).toContainText('cannot be reached');
    await screenshots(page, 'unreachable');
    await app.nav('Reports').click();
    viewer = await reports.openNewest('2026-10-01 – 2026-10-31');
    close = await viewer.closeTheMonth();
    await expect(close.root.getByRole('status').filter({ hasText: 'The team ledger cannot be reached' })).toContainText(
      'nothing can be reviewed, prepared or approved',
    );
    await expect(close.root.getByRole('button', { name: 'Prepare the month' })).toBeDisabled();
    // One sign-off region, saying why its steps are greyed, not one inside another of the same name.
    await expect(close.root.getByRole('region', { name: 'Sign-off' })).toHaveCount(1);
    await expect(close.root.getByRole('region', { name: 'Sign-off' })).toContainText('The team ledger cannot be reached');
    await expect(close.exceptions.getByRole('button', { name: 'Accept…' }).first()).toBeDisabled();
    await screenshots(page, 'close-offline');

    // Disconnecting goes back to this workstation's own ledger.
    await app.nav('Settings').click();
    await panel.getByRole('button', { name: 'Disconnect' }).click();
    await expect(panel.getByRole('form', { name: 'Connect a team ledger' })).toBeVisible();
  } finally {
    await twin.close();
  }
});
