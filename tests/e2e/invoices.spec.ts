import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import Papa from 'papaparse';
import { startTwin } from '@twin/server';
import { temporaryDir } from '@testing/test-support';
import { fillMapping } from '@testing/invoice-mapping';
import { holdAnswers } from './held-answers';
import { type BridgeHost, expect, test } from './fixtures';
import { ClosebookPage, cutPlaceholders, ReportsPage, SCREEN_SIZES, WIDE } from './pages';

/** What of the Invoices tab is cut off or scrolls sideways: the screen, its tables and its controls. */
async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const panel = document.querySelector('section[aria-label="Invoices"]');
    if (!panel) return ['no Invoices panel'];
    if (panel.scrollWidth > panel.clientWidth + 1) problems.push(`the panel scrolls sideways (${panel.scrollWidth} > ${panel.clientWidth})`);
    for (const element of panel.querySelectorAll('button, select, input:not([type=file]), table th')) {
      const box = element.getBoundingClientRect();
      if ((element as HTMLElement).offsetParent !== null && (box.left < -0.5 || box.right > window.innerWidth + 0.5))
        problems.push(`off screen: ${element.textContent || element.getAttribute('aria-label') || element.id}`);
    }
    for (const cell of panel.querySelectorAll('table[aria-label="Invoiced per currency"] td.num'))
      if (cell.scrollWidth > cell.clientWidth + 1) problems.push(`clipped: ${cell.textContent}`);
    return problems;
  });
}

/** October fetched in the app for a twin of `organizations` customers, under a profile named `profile`. */
async function octoberFetched(page: Page, bridge: BridgeHost, organizations: number, profile: string) {
  const twin = await startTwin({ reportReadyAfterMs: 0, reportReadyAfterPolls: 0, organizations });
  await bridge.useProfileFor(twin, profile);
  await page.setViewportSize(WIDE);
  const app = new ClosebookPage(page);
  const reports = new ReportsPage(page);
  await app.open(bridge.harness.url);
  await app.nav('Reports').click();
  await reports.requestMonth('2026-10');
  await reports.waitForSaved(1, 30_000);
  const service = bridge.harness.service;
  const reportId = (await service.handlers['reports:list']({})).flatMap((listing) => (listing.state === 'ok' ? [listing.meta.id] : []))[0]!;
  return { twin, app, reports, service, reportId };
}

test('invoices: unmapped first, mapped in the editor and from a CSV, drafts that match the Invoicing view, exported once the month is prepared', async ({
  page,
  bridge,
}) => {
  test.setTimeout(120_000);
  const { twin, app, reports, service, reportId } = await octoberFetched(page, bridge, 6, 'Invoices');
  const dir = await temporaryDir();
  try {
    const viewer = await reports.openNewest('2026-10-01 – 2026-10-31');
    const close = await viewer.closeTheMonth();
    await close.openTab('Invoices');
    const panel = page.getByRole('region', { name: 'Invoices', exact: true });

    // A Draft month, nothing mapped: the customers and products to map come first, and export waits.
    await expect(panel.getByTestId('invoice-readiness')).toContainText('DRAFT');
    await expect(panel.getByRole('list', { name: 'Before the invoices can be exported' })).toContainText('The month is not ready to invoice');
    const unmappedCustomers = panel.getByTestId('unmapped-customer');
    await expect(unmappedCustomers).toHaveCount(6);
    await expect(panel.getByRole('button', { name: 'Export invoices' })).toBeDisabled();
    for (const size of SCREEN_SIZES) {
      await page.setViewportSize(size);
      await page.screenshot({ path: `test-results/invoices-unmapped-${size.width}x${size.height}.png` });
      expect(await layoutProblems(page), `unmapped at ${size.width}×${size.height}`).toEqual([]);
      expect(await cutPlaceholders(page), `unmapped's placeholders at ${size.width}×${size.height}`).toEqual([]);
    }
    await page.setViewportSize(WIDE);

    // The editor maps one customer in place.
    const first = unmappedCustomers.first();
    const name = (await first.locator('strong').textContent())!;
    const form = first.getByRole('form', { name: `Map ${name}` });
    await form.getByLabel('Contact name').fill(`${name} (AR)`);
    await form.getByRole('button', { name: 'Map' }).click();
    await expect(unmappedCustomers).toHaveCount(5);
    expect((await service.invoices.mapping(await service.invoices.brokerOfReport(reportId))).customers).toEqual([
      expect.objectContaining({ contactName: `${name} (AR)`, paymentTermsDays: 30, vatTreatment: 'domestic' }),
    ]);
    // From the keyboard: the focus goes on to the next customer's first field, where a name typed and Enter maps it too.
    const next = unmappedCustomers.first();
    const nextName = (await next.locator('strong').textContent())!;
    await expect(next.getByLabel('Contact name')).toBeFocused();
    await page.keyboard.press('Control+A');
    await page.keyboard.type(`${nextName} (AP)`);
    await page.keyboard.press('Enter');
    await expect(unmappedCustomers).toHaveCount(4);
    await expect(unmappedCustomers.first().getByLabel('Contact name')).toBeFocused();
    expect((await service.invoices.mapping(await service.invoices.brokerOfReport(reportId))).customers).toContainEqual(
      expect.objectContaining({ contactName: `${nextName} (AP)` }),
    );

    // The rest from the mapping CSV, filled in as a spreadsheet would be and imported through the file picker.
    const blank = join(dir.path, 'blank.csv');
    await service.invoices.exportMapping(await service.invoices.brokerOfReport(reportId), blank, reportId);
    const { data } = Papa.parse<Record<string, string>>((await readFile(blank, 'utf8')).replace(/^\uFEFF/, ''), { header: true, skipEmptyLines: true });
    const filled = data.map((row) =>
      row.type === 'customer'
        ? { ...row, paymentTermsDays: row.paymentTermsDays || '14', vatTreatment: row.vatTreatment || 'domestic' }
        : { ...row, account: '3010', taxCode: '25% (VAT on Income)', vatCategory: 'S', vatRate: '25' },
    );
    await writeFile(join(dir.path, 'mapping.csv'), Papa.unparse(filled));
    await panel.getByTestId('mapping-file').setInputFiles(join(dir.path, 'mapping.csv'));
    await expect(panel.locator('p.notice')).toContainText('Imported the mapping from mapping.csv: 6 customers');
    await expect(unmappedCustomers).toHaveCount(0);
    await expect(panel.getByTestId('unmapped-item')).toHaveCount(0);

    // The drafts: one per customer and currency; per currency, what they add up to is the Invoicing view's total.
    const invoicing = await service.handlers['reports:invoicing']({ reportId, filter: {} });
    await expect(panel.getByTestId('draft-invoice')).toHaveCount(invoicing.rows.length);
    const currencies = panel.getByTestId('invoice-currency');
    await expect(currencies).toHaveCount(invoicing.totals.length);
    const en = (amount: string) => new Intl.NumberFormat('en-US', { minimumFractionDigits: 2 }).format(amount as Intl.StringNumericLiteral);
    for (const total of invoicing.totals)
      await expect(currencies.filter({ hasText: total.currency }).locator('td').nth(2)).toHaveText(en(total.amountToInvoice));
    await panel.getByTestId('draft-invoice').first().locator('summary').click();

    // Prepared (a workstation alone): the export is open, each file a download, named as not approved by a second person.
    const state = await service.handlers['close:state']({ reportId });
    await service.close.review(
      reportId,
      state.exceptions.map((exception) => exception.id),
      'accepted',
      'Checked',
    );
    await service.close.prepare(reportId);
    // As a colleague's steps arrive: the month read again (here by opening it again).
    await app.open(bridge.harness.url);
    await app.nav('Reports').click();
    await (await reports.openNewest('2026-10-01 – 2026-10-31')).closeTheMonth();
    await close.openTab('Invoices');
    await expect(panel.getByTestId('invoice-readiness')).toContainText('PREPARED');
    for (const size of SCREEN_SIZES) {
      await page.setViewportSize(size);
      await page.screenshot({ path: `test-results/invoices-ready-${size.width}x${size.height}.png`, fullPage: true });
      expect(await layoutProblems(page), `ready at ${size.width}×${size.height}`).toEqual([]);
      expect(await cutPlaceholders(page), `ready's placeholders at ${size.width}×${size.height}`).toEqual([]);
    }
    await page.setViewportSize(WIDE);
    // The date the invoices will carry is shown before one is chosen: today's. One before the month began is refused
    // in words; the one chosen is the files'.
    const invoiceDate = panel.getByTestId('invoice-date');
    const today = new Date();
    await expect(invoiceDate).toHaveValue(
      `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`,
    );
    await invoiceDate.fill('2026-09-30');
    await expect(panel.getByText('The invoice date 2026-09-30 is before the period it invoices began (2026-10-01)')).toBeVisible();
    for (const size of SCREEN_SIZES) {
      await page.setViewportSize(size);
      await page.screenshot({ path: `test-results/invoices-date-refused-${size.width}x${size.height}.png` });
      expect(await layoutProblems(page), `date refused at ${size.width}×${size.height}`).toEqual([]);
    }
    await page.setViewportSize(WIDE);
    await invoiceDate.fill('2026-11-09');
    await expect(panel.getByText('The invoice date 2026-09-30')).toHaveCount(0);
    const [download] = await Promise.all([page.waitForEvent('download'), panel.getByRole('button', { name: 'Export invoices' }).click()]);
    expect(download.suggestedFilename()).toBe('xero-invoices-2026-10 (not approved by a second person).csv');
    await expect(panel.locator('p.notice')).toContainText(`Exported ${invoicing.rows.length} invoices (INV-1–INV-${invoicing.rows.length}) in 1 file`);
    await expect(panel.getByRole('region', { name: 'Exported' })).toContainText(`INV-1–INV-${invoicing.rows.length}`);
    await expect(panel.getByTestId('changed-since-export')).toContainText('Exported as it stands');
    // Exported as it stands, exporting again writes the same files: their date is no longer to choose.
    await expect(invoiceDate).toBeDisabled();
    await expect(invoiceDate).toHaveAttribute('title', /^Invoices exported before are written again as they were/);
    const csv = await readFile((await download.path())!, 'utf8');
    const rows = Papa.parse<Record<string, string>>(csv.replace(/^\uFEFF/, ''), { header: true, skipEmptyLines: true }).data;
    expect(new Set(rows.map((row) => row['*InvoiceDate']))).toEqual(new Set(['09/11/2026']));
    expect(csv.split('\r\n')[0]).toBe(
      '\uFEFF*ContactName,EmailAddress,POAddressLine1,POAddressLine2,POAddressLine3,POAddressLine4,POCity,PORegion,POPostalCode,POCountry,*InvoiceNumber,Reference,*InvoiceDate,*DueDate,InventoryItemCode,*Description,*Quantity,*UnitAmount,Discount,*AccountCode,*TaxType,TrackingName1,TrackingOption1,TrackingName2,TrackingOption2,Currency,BrandingTheme',
    );

    // An adjustment in place: a line left out with its reason, listed with who made it; the month's log has it.
    const draft = panel.getByTestId('draft-invoice').first();
    await draft.locator('summary').click();
    await expect(draft.locator('tbody tr').first()).toBeVisible(); // an invoice's lines are put on the page once it is open
    const linesBefore = await draft.locator('tbody tr').count();
    // Asked for a reason, a person may think again: Escape or Cancel closes it, the keyboard back on Leave out.
    const leaveOut = draft.getByRole('button', { name: 'Leave out' }).first();
    await leaveOut.click();
    await expect(draft.getByLabel('Reason: Leave out')).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(draft.getByLabel('Reason: Leave out')).toHaveCount(0);
    await expect(leaveOut).toBeFocused();
    await page.keyboard.press('Enter');
    await draft.getByLabel('Reason: Leave out').fill('Not this one');
    await draft.getByRole('button', { name: 'Cancel' }).click();
    await expect(leaveOut).toBeFocused();
    await expect(panel.getByTestId('adjustment')).toHaveCount(0);
    await leaveOut.click();
    await expect(draft.getByLabel('Reason: Leave out')).toHaveValue('');
    await draft.getByLabel('Reason: Leave out').fill('Billed twice by the service');
    await draft.getByRole('button', { name: 'Leave out' }).first().click();
    await expect(panel.getByTestId('adjustment')).toHaveCount(1);
    await expect(panel.getByTestId('adjustment')).toContainText('Billed twice by the service');
    // Exported before: the tab says what the next export would issue (a credit note and a new invoice for that customer).
    await expect(panel.getByTestId('changed-since-export')).toContainText('the next export issues 2 documents');
    await expect(panel.getByTestId('draft-invoice').first().locator('tbody tr')).toHaveCount(linesBefore - 1);
    for (const size of SCREEN_SIZES) {
      await page.setViewportSize(size);
      await panel.getByRole('region', { name: 'Adjustments' }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: `test-results/invoices-adjusted-${size.width}x${size.height}.png` });
      expect(await layoutProblems(page), `adjusted at ${size.width}×${size.height}`).toEqual([]);
    }
    // The mapping kept, each entry editable in place: a customer's terms changed here are the mapping's.
    await panel.getByText('The mapping', { exact: true }).click();
    const customers = panel.getByRole('table', { name: 'Customers mapped' });
    await expect(customers.locator('tbody tr')).toHaveCount(6);
    const firstEdit = customers.locator('tbody tr').first().getByRole('button', { name: 'Edit' });
    // Opened by mistake, the editor closes with Cancel or Escape, nothing saved, the keyboard back on Edit.
    await firstEdit.click();
    await customers.getByLabel('Terms (days)').fill('99');
    await customers.getByRole('button', { name: 'Cancel' }).click();
    await expect(firstEdit).toBeFocused();
    await expect(customers.locator('tbody tr').first()).not.toContainText('99 days');
    await page.keyboard.press('Enter');
    await customers.getByLabel('Terms (days)').fill('98');
    await page.keyboard.press('Escape');
    await expect(firstEdit).toBeFocused();
    await expect(customers.locator('tbody tr').first()).not.toContainText('98 days');
    await firstEdit.click();
    await customers.getByLabel('Terms (days)').fill('45');
    await customers.getByRole('button', { name: 'Save' }).click();
    await expect(customers.locator('tbody tr').first()).toContainText('45 days');
    await expect(firstEdit).toBeFocused();
    for (const size of SCREEN_SIZES) {
      await page.setViewportSize(size);
      await customers.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `test-results/invoices-mapping-${size.width}x${size.height}.png` });
      expect(await layoutProblems(page), `mapping at ${size.width}×${size.height}`).toEqual([]);
    }
    const log = await service.close.log(reportId);
    expect(log.entries.at(-1)).toMatchObject({ action: 'adjusted', note: 'Billed twice by the service' });

    // A line added by hand: its amount read as every typed number is — "1,234" asked about, never taken for 1.234 —
    // added once, then the form empties for the next.
    const manual = panel
      .getByTestId('draft-invoice')
      .first()
      .getByRole('form', { name: /^Add a line to / });
    await manual.getByLabel('Description').fill('Onboarding workshop');
    await manual.getByLabel(/^Amount/).fill('1,234');
    await manual.getByLabel('Reason').fill('Agreed in the statement of work');
    await manual.getByRole('button', { name: 'Add the line' }).click();
    await expect(manual).toContainText('"1,234" could be a thousand or a decimal');
    await expect(panel.getByTestId('adjustment')).toHaveCount(1);
    for (const size of SCREEN_SIZES) {
      await page.setViewportSize(size);
      await manual.evaluate((form) => form.scrollIntoView({ block: 'center' })); // clear of the sticky tabs
      await page.screenshot({ path: `test-results/invoices-manual-line-${size.width}x${size.height}.png` });
      expect(await layoutProblems(page), `manual line at ${size.width}×${size.height}`).toEqual([]);
    }
    await page.setViewportSize(WIDE);
    await manual.getByLabel(/^Amount/).fill('1234,50');
    await manual.getByRole('button', { name: 'Add the line' }).click();
    await expect(panel.getByTestId('adjustment')).toHaveCount(2);
    await expect(manual.getByLabel('Description')).toHaveValue('');
    expect((await service.close.log(reportId)).entries.at(-1)).toMatchObject({ action: 'adjusted', note: 'Agreed in the statement of work' });
  } finally {
    await twin.close();
    await dir.remove();
  }
});

test('invoices: a month of many customers lists its drafts a hundred at a time, finds one by customer, and opens it with its lines', async ({
  page,
  bridge,
}) => {
  test.setTimeout(120_000);
  const { twin, reports, service, reportId } = await octoberFetched(page, bridge, 230, 'Many customers');
  const dir = await temporaryDir();
  try {
    const broker = await service.invoices.brokerOfReport(reportId);
    await service.invoices.exportMapping(broker, join(dir.path, 'blank.csv'), reportId);
    await service.invoices.importMapping(broker, fillMapping(await readFile(join(dir.path, 'blank.csv'), 'utf8')));
    const { invoices } = await service.invoices.run(reportId);
    expect(invoices.length).toBeGreaterThan(200);

    const close = await (await reports.openNewest('2026-10-01 – 2026-10-31')).closeTheMonth();
    await close.openTab('Invoices');
    const panel = page.getByRole('region', { name: 'Invoices', exact: true });
    const drafts = panel.getByTestId('draft-invoice');
    const shown = panel.getByTestId('invoices-shown');
    await expect(panel.getByRole('heading', { name: `Draft invoices (${invoices.length.toLocaleString('en-US')})` })).toBeVisible();
    await expect(drafts).toHaveCount(100);
    await expect(shown).toHaveText(`100 of ${invoices.length}`);
    await panel.getByRole('button', { name: 'Show 100 more' }).click();
    await expect(drafts).toHaveCount(200);
    await expect(panel.getByRole('button', { name: `Show ${invoices.length - 200} more` })).toBeVisible();
    for (const size of SCREEN_SIZES) {
      await page.setViewportSize(size);
      await panel.getByRole('searchbox', { name: 'Find an invoice' }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: `test-results/invoices-many-${size.width}x${size.height}.png` });
      expect(await layoutProblems(page), `many at ${size.width}×${size.height}`).toEqual([]);
    }
    await page.setViewportSize(WIDE);

    // Found by its customer's name, past the first hundred; opened, its lines are the run's.
    const wanted = invoices[150]!;
    await panel.getByRole('searchbox', { name: 'Find an invoice' }).fill(wanted.contactName);
    const holding = invoices.filter((invoice) => `${invoice.contactName} ${invoice.organization}`.toLowerCase().includes(wanted.contactName.toLowerCase()));
    await expect(drafts).toHaveCount(holding.length);
    await expect(shown).toHaveText(`${holding.length} found`);
    const draft = drafts.filter({ hasText: wanted.contactName }).filter({ hasText: wanted.currency }).first();
    await draft.locator('summary').click();
    const rows = draft.locator('tbody tr');
    await expect(rows).toHaveCount(wanted.lines.length);
    await expect(rows.first().locator('td').first()).toHaveText(wanted.lines[0]!.description);

    // The mapping is made once opened, its customers a hundred at a time too.
    const mapped = panel.getByRole('table', { name: 'Customers mapped' });
    await expect(mapped).toHaveCount(0);
    await panel.getByText('The mapping', { exact: true }).click();
    await expect(mapped.locator('tbody tr')).toHaveCount(100);
    await expect(panel.getByTestId('customers-shown')).toHaveText('100 of 230');
    await panel.getByRole('searchbox', { name: 'Find a customer mapped' }).fill(wanted.contactName);
    await expect(panel.getByTestId('customers-shown')).toHaveText('1 found');
    await expect(mapped.locator('tbody tr')).toHaveText([new RegExp(wanted.contactName.replace(/[()]/g, '\\$&'))]);

    // The next invoice number, cleared and typed again as a person does: 120, not 1120; nonsense is refused in words.
    await panel.getByText('Numbering, dates and the seller', { exact: true }).click();
    const settings = panel.getByRole('form', { name: 'Invoice settings' });
    const next = settings.getByLabel('Next number');
    await next.fill('');
    await next.pressSequentially('120');
    await expect(next).toHaveValue('120');
    // Typed on while 120 is saved (its answer held): what was typed stays in the field, not the number just saved.
    const saving = await holdAnswers(page, 'invoices:settings');
    await settings.getByRole('button', { name: /^Save/ }).click();
    await expect(settings.getByRole('button', { name: 'Saving…' })).toBeVisible();
    await next.fill('12a');
    saving.release();
    await expect(settings.getByRole('button', { name: 'Save settings' })).toBeEnabled();
    await expect.poll(async () => (await service.invoices.settings(broker)).next).toBe(120);
    await expect(next).toHaveValue('12a');
    await settings.getByRole('button', { name: /^Save/ }).click();
    await expect(settings).toContainText('The next number is a whole number (not "12a").');
    // Past the sequence's range it is refused by the rule the core holds it to, before it is sent.
    await next.fill('9999999999');
    await settings.getByRole('button', { name: /^Save/ }).click();
    await expect(settings).toContainText('The next number is at most 999,999,999 (not "9999999999").');
    expect((await service.invoices.settings(broker)).next).toBe(120);
  } finally {
    await twin.close();
    await dir.remove();
  }
});
