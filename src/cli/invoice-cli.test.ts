import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { createService } from '@core';
import { Money } from '@shared/money';
import { runCli, useSimulator, reportFetch } from '@testing/cli-test-support';
import { testPorts } from '@testing/test-support';
import { validateEn16931 } from '@testing/en16931';
import { fillMapping } from '@testing/invoice-mapping';
import { withLedgerAt } from '@testing/ledger-month';

const simulator = useSimulator(['--organizations', '12', '--report-ready-seconds', '1']);
const cli = (args: string[]) => runCli(args, simulator.dataDir);

/** A CSV file Closebook wrote, as rows keyed by its header. */
async function csvRows(path: string): Promise<{ header: string[]; rows: Record<string, string>[] }> {
  const parsed = Papa.parse<string[]>((await readFile(path, 'utf8')).replace(/^\uFEFF/, ''), { skipEmptyLines: true });
  const [header = [], ...rows] = parsed.data;
  return { header, rows: rows.map((cells) => Object.fromEntries(header.map((column, index) => [column, cells[index] ?? '']))) };
}

describe('closebook invoices', () => {
  it('maps, refuses a Draft month, then exports Xero and QuickBooks files whose invoices are the Invoicing view exactly, once', async () => {
    const fetched = await cli(reportFetch(simulator.baseUrl, '2026-10-01', '2026-10-31'));
    expect(fetched.code).toBe(0);
    const october = fetched.stdout.trim();
    const dir = simulator.dataDir;

    // Nothing mapped: the run lists what to map first, and cannot be exported (exit 5).
    const unmapped = await cli(['invoices', 'run', october]);
    expect(unmapped.code).toBe(5);
    // An invoice date that is no calendar day, or before the month began, is refused in words.
    expect(await cli(['invoices', 'run', october, '--invoice-date', '2026-02-31'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/--invoice-date takes a real date like 2026-11-08, not "2026-02-31"/),
    });
    expect(await cli(['invoices', 'run', october, '--invoice-date', '2026-09-30'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /The invoice date 2026-09-30 is before the period it invoices began \(2026-10-01\): choose a date on or after 2026-10-01\./,
      ),
    });
    expect(unmapped.stdout).toMatch(/^Cloud services October 2026: DRAFT/);
    expect(unmapped.stdout).toMatch(/\nUNMAPPED customer {2}\S/);
    expect(unmapped.stdout).toMatch(/\nUNMAPPED item {6}\S/);
    expect(unmapped.stdout).toMatch(/\nNOT READY: The month is not ready to invoice: DRAFT/);

    // The mapping export gives a row to fill for each customer and service; filled in and imported.
    expect(await cli(['invoices', 'map', '--export', join(dir, 'blank.csv')])).toMatchObject({
      code: 0,
      stderr: expect.stringMatching(/with \d+ rows to fill in/),
    });
    const blank = await readFile(join(dir, 'blank.csv'), 'utf8');
    await import('node:fs/promises').then((fs) => fs.writeFile(join(dir, 'mapping.csv'), fillMapping(blank)));
    expect(await cli(['invoices', 'map', '--import', join(dir, 'mapping.csv')])).toMatchObject({
      code: 0,
      stderr: expect.stringMatching(/: 12 customers, \d+ items\.\n$/),
    });
    // One person's workstation keeps each entry as last set: it says so, and where a history is kept.
    expect(await cli(['invoices', 'map', '--history'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: expect.stringMatching(/^No history of the mapping is kept here/),
    });
    // A value that would run as a formula is refused, naming the entry; the kept mapping is untouched.
    const hostile = (await readFile(join(dir, 'mapping.csv'), 'utf8')).replace(/\(AR\)/, '(AR)\n').replace(/\n(customer,,[^,]+,)/, '\n$1=HYPERLINK(""x"")');
    await import('node:fs/promises').then((fs) => fs.writeFile(join(dir, 'hostile.csv'), hostile));
    expect(await cli(['invoices', 'map', '--import', join(dir, 'hostile.csv')])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/contactName "=HYPERLINK.*begins like a formula/),
    });

    // Mapped but Draft: export refused with exit 5 and why.
    const draft = await cli(['invoices', 'export', october, '--format', 'xero', '--out', join(dir, 'xero')]);
    expect(draft).toMatchObject({ code: 5, stderr: expect.stringMatching(/The invoices were not exported\. The month is not ready to invoice: DRAFT/) });
    expect(await readdir(join(dir, 'xero')).catch(() => [])).toEqual([]);

    // Prepared on a workstation alone (no team ledger): exported, and every file's name says no second person approved it.
    const exceptions = (JSON.parse((await cli(['reports', 'check', october, '--json'])).stdout) as { id: string }[]).map((entry) => entry.id);
    expect(await cli(['reports', 'accept', october, ...exceptions, '--note', 'Checked'])).toMatchObject({ code: 0 });
    expect(await cli(['reports', 'prepare', october])).toMatchObject({ code: 0 });
    const seller = ['--seller-name', 'Nordlys Cloud AB', '--seller-vat-id', 'SE556677889901', '--seller-country', 'SE', '--seller-endpoint', '0007:5566778899'];
    // A setting refused is named by its option, in words; a next number past the sequence's range changes nothing.
    expect(await cli(['invoices', 'settings', '--seller-country', 'XX', '--date-format', 'YYYY'])).toMatchObject({
      code: 1,
      stderr:
        'closebook: --date-format: takes one of DD/MM/YYYY, MM/DD/YYYY, YYYY-MM-DD, DD.MM.YYYY; --seller-country: XX is not an ISO 3166 country code (SE, GB, DE …).\n',
    });
    expect(await cli(['invoices', 'settings', '--next', '99999999999999999999'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/The next invoice number is at most 999,999,999 \(100000000000000000000 was given\); nothing was changed\./),
    });
    expect(await cli(['invoices', 'settings', '--prefix', 'CB-', '--next', '1001', '--date-format', 'YYYY-MM-DD', ...seller])).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^Next invoice: CB-1001;.*\nSeller on e-invoices: Nordlys Cloud AB, VAT SE556677889901, SE, Peppol 0007:5566778899\.\n$/),
    });
    // Settings kept that cannot be read make no invoice; shown as the defaults, saved again, they are replaced.
    await withLedgerAt(dir, (ledger) => ledger.run(`UPDATE invoice_settings SET settings = '{"prefix": 5}'`));
    const unreadable = await cli(['invoices', 'run', october]);
    expect(unreadable.code).not.toBe(0);
    expect(unreadable.stderr).toMatch(/The invoice settings kept for \S+ \(reseller \S+\) could not be read, so no invoice is made with them\./);
    const shown = JSON.parse((await cli(['invoices', 'settings', '--json'])).stdout) as { prefix: string; next: number };
    expect(shown).toMatchObject({ prefix: 'INV-', next: 1001 }); // the defaults, and the sequence where it was
    expect((await cli(['invoices', 'settings', '--prefix', 'CB-', '--next', '1001', '--date-format', 'YYYY-MM-DD', ...seller])).code).toBe(0);
    // What the run refuses is found while its invoices are made and numbered one at a time: refused, nothing is kept
    // and no number is used (the export below numbers from CB-1001), no file written.
    const noTaxCode = fillMapping(blank).replace(/Zero Rated EC Services/g, '');
    await writeFile(join(dir, 'no-tax-code.csv'), noTaxCode);
    expect(await cli(['invoices', 'map', '--import', join(dir, 'no-tax-code.csv')])).toMatchObject({ code: 0 });
    expect(await cli(['invoices', 'export', october, '--format', 'xero', '--out', join(dir, 'xero'), '--invoice-date', '2026-11-09'])).toMatchObject({
      code: 5,
      stderr: expect.stringMatching(/The invoices were not exported\. customer \S+: a reverse-charge customer needs the accounting system's tax code/),
    });
    expect(await readdir(join(dir, 'xero')).catch(() => [])).toEqual([]);
    expect(await cli(['invoices', 'map', '--import', join(dir, 'mapping.csv')])).toMatchObject({ code: 0 });
    // Numbers QuickBooks Online would refuse (over 21 characters) are not given: nothing is numbered or written.
    expect((await cli(['invoices', 'settings', '--prefix', 'NORDLYS-CLOUD-INV-26'])).code).toBe(0);
    expect(await cli(['invoices', 'export', october, '--format', 'qbo', '--out', join(dir, 'qbo-long')])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /The invoices were not exported, and no number was used\. QuickBooks Online takes invoice numbers of at most 21 characters, and NORDLYS-CLOUD-INV-261001 has 24/,
      ),
    });
    expect(await readdir(join(dir, 'qbo-long'))).toEqual([]);
    expect((await cli(['invoices', 'settings', '--prefix', 'CB-'])).stdout).toMatch(/^Next invoice: CB-1001;/);
    const exported = await cli(['invoices', 'export', october, '--format', 'xero', '--out', join(dir, 'xero'), '--invoice-date', '2026-11-09']);
    expect(exported).toMatchObject({
      code: 0,
      stderr: expect.stringMatching(/^Exported 12 invoices \(CB-1001–CB-1012\) in 1 file\. Not approved by a second person/),
    });
    const xeroFile = join(dir, 'xero', 'xero-invoices-2026-10 (not approved by a second person).csv');
    expect(exported.stdout).toBe(`${xeroFile}\n`);

    // Xero's template columns, in its order; per invoice, Σ round(Quantity × UnitAmount, 2) is the Invoicing view's amount.
    const xero = await csvRows(xeroFile);
    expect(xero.header.slice(0, 27)).toEqual([
      '*ContactName',
      'EmailAddress',
      'POAddressLine1',
      'POAddressLine2',
      'POAddressLine3',
      'POAddressLine4',
      'POCity',
      'PORegion',
      'POPostalCode',
      'POCountry',
      '*InvoiceNumber',
      'Reference',
      '*InvoiceDate',
      '*DueDate',
      'InventoryItemCode',
      '*Description',
      '*Quantity',
      '*UnitAmount',
      'Discount',
      '*AccountCode',
      '*TaxType',
      'TrackingName1',
      'TrackingOption1',
      'TrackingName2',
      'TrackingOption2',
      'Currency',
      'BrandingTheme',
    ]);
    const env = await testPorts({ dataDir: dir });
    const app = createService(env.ports);
    const invoicing = await app.handlers['reports:invoicing']({ reportId: october, filter: {} });
    await app.dispose();
    await env.cleanup();
    // The run keeps the content hash of the lines it was made from: the signed lines', hashed again now.
    await withLedgerAt(dir, async (ledger, hashOf) => {
      const [kept] = await ledger.all('SELECT r.content_hash AS run, s.content_hash AS signed FROM invoice_runs r, month_sign_offs s');
      expect(kept).toEqual({ run: await hashOf(october), signed: await hashOf(october) });
    });
    const byInvoice = new Map<string, { contact: string; currency: string; sum: InstanceType<typeof Money> }>();
    for (const row of xero.rows) {
      const entry = byInvoice.get(row['*InvoiceNumber']!) ?? { contact: row['*ContactName']!, currency: row.Currency!, sum: new Money(0) };
      entry.sum = entry.sum.plus(new Money(row['*Quantity']!).times(row['*UnitAmount']!).toDecimalPlaces(2, Money.ROUND_HALF_UP));
      expect([row['*InvoiceDate'], row['*DueDate'], row.Reference]).toEqual(['2026-11-09', '2026-12-09', 'Cloud services October 2026']);
      byInvoice.set(row['*InvoiceNumber']!, entry);
    }
    expect(byInvoice.size).toBe(invoicing.rows.length);
    for (const row of invoicing.rows) {
      const invoice = [...byInvoice.values()].find((entry) => entry.contact === `${row.organization} (AR)` && entry.currency === row.currency);
      expect(invoice?.sum.toFixed(2), `${row.organization} ${row.currency}`).toBe(row.amountToInvoice);
    }

    // Exported again: the same numbers and dates, byte for byte; a date asked for is said not to be used.
    const again = await cli(['invoices', 'export', october, '--format', 'xero', '--out', join(dir, 'again'), '--invoice-date', '2026-12-01']);
    expect(again).toMatchObject({
      code: 0,
      stderr: expect.stringMatching(
        /^CHECK: the invoice date 2026-12-01 was not used\. Invoices exported before are written again as they were, .*\nWrote again 12 invoices \(CB-1001–CB-1012\)/,
      ),
    });
    expect(await readFile(join(dir, 'again', 'xero-invoices-2026-10 (not approved by a second person).csv'))).toEqual(await readFile(xeroFile));
    // A file that would differ from the one written before (its recorded hash, altered here) is refused as it is
    // written: the file already there is left as it was, and nothing is left in the staging folder.
    const recorded = await withLedgerAt(dir, async (ledger) => {
      const [row] = await ledger.all("SELECT sha256 FROM invoice_files WHERE format = 'xero'");
      await ledger.run("UPDATE invoice_files SET sha256 = 'altered' WHERE format = 'xero'");
      return String(row?.sha256);
    });
    await writeFile(join(dir, 'again', 'xero-invoices-2026-10 (not approved by a second person).csv'), 'kept');
    expect(await cli(['invoices', 'export', october, '--format', 'xero', '--out', join(dir, 'again')])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(
        /The invoice file xero-invoices-2026-10 \(not approved by a second person\)\.csv would differ from the one exported before/,
      ),
    });
    expect(await readFile(join(dir, 'again', 'xero-invoices-2026-10 (not approved by a second person).csv'), 'utf8')).toBe('kept');
    expect(await readdir(join(dir, 'staging'))).toEqual([]);
    await withLedgerAt(dir, (ledger) => ledger.run("UPDATE invoice_files SET sha256 = $1 WHERE format = 'xero'", [recorded]));

    // QuickBooks: its own column names, one file per currency (its customers have one currency each), the same numbers.
    expect((await cli(['invoices', 'export', october, '--format', 'qbo', '--out', join(dir, 'qbo')])).code).toBe(0);
    const qboFiles = (await readdir(join(dir, 'qbo'))).sort();
    expect(qboFiles.every((name) => /^quickbooks-invoices-2026-10 \(not approved by a second person\)-[A-Z]{3}\.csv$/.test(name))).toBe(true);
    const qboNumbers = new Set<string>();
    for (const name of qboFiles) {
      const qbo = await csvRows(join(dir, 'qbo', name));
      expect(qbo.header).toEqual([
        'Invoice no',
        'Customer',
        'Invoice date',
        'Due date',
        'Memo',
        'Item(Product/Service)',
        'Item description',
        'Item quantity',
        'Item rate',
        'Item amount',
        'Item tax code',
      ]);
      for (const row of qbo.rows) qboNumbers.add(row['Invoice no']!);
    }
    expect([...qboNumbers].sort()).toEqual([...byInvoice.keys()].sort());

    // The user's own template: refused until one is set, then their columns, decimal comma and dates.
    expect(await cli(['invoices', 'export', october, '--format', 'template', '--out', join(dir, 'own')])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/No import template of your own is set/),
    });
    const template = {
      name: 'Ledger import',
      rowsPer: 'invoice',
      dateFormat: 'DD.MM.YYYY',
      decimalSeparator: ',',
      delimiter: ';',
      columns: [
        { header: 'Nr', field: 'invoiceNumber' },
        { header: 'Datum', field: 'invoiceDate' },
        { header: 'Netto', field: 'netTotal' },
      ],
    };
    // Saved as Notepad's "UTF-8 with BOM" or PowerShell's Out-File saves it: the mark is not part of the JSON.
    await import('node:fs/promises').then((fs) => fs.writeFile(join(dir, 'template.json'), `\uFEFF${JSON.stringify(template)}`));
    expect(await cli(['invoices', 'template', '--import', join(dir, 'template.json')])).toMatchObject({
      code: 0,
      stderr: 'Kept the template "Ledger import" (3 columns, a row per invoice).\n',
    });
    expect((await cli(['invoices', 'export', october, '--format', 'template', '--out', join(dir, 'own')])).code).toBe(0);
    const own = (await readFile(join(dir, 'own', 'Ledger-import-2026-10 (not approved by a second person).csv'), 'utf8')).split('\r\n');
    expect(own[0]).toBe('\uFEFFNr;Datum;Netto');
    expect(own[1]).toMatch(/^CB-1001;09\.11\.2026;\d+,\d\d$/);
    expect(own.filter(Boolean)).toHaveLength(13);

    // EN 16931 e-invoices, one per invoice, the reverse-charge ones among them: no fatal finding under the CEN and Peppol rules.
    expect(await cli(['invoices', 'export', october, '--format', 'ubl', '--out', join(dir, 'ubl')])).toMatchObject({
      code: 0,
      stderr: expect.stringMatching(/^Wrote again 12 invoices \(CB-1001–CB-1012\) in 12 files\./),
    });
    const ublFiles = await readdir(join(dir, 'ubl'));
    expect(ublFiles.length).toBe(12);
    let reverseCharge = 0;
    for (const name of ublFiles) {
      const xml = await readFile(join(dir, 'ubl', name), 'utf8');
      if (xml.includes('<cbc:ID>AE</cbc:ID>')) reverseCharge += 1;
      expect(
        validateEn16931(xml).filter((finding) => finding.flag === 'fatal'),
        name,
      ).toEqual([]);
    }
    expect(reverseCharge).toBeGreaterThan(0);

    // A change after export (the revenue account of every item): a credit note for each invoice and a new one, numbered on — never renumbered.
    await import('node:fs/promises').then((fs) => fs.writeFile(join(dir, 'mapping2.csv'), fillMapping(blank, '3011')));
    expect((await cli(['invoices', 'map', '--import', join(dir, 'mapping2.csv')])).code).toBe(0);
    const changed = await cli(['invoices', 'export', october, '--format', 'xero', '--out', join(dir, 'changed'), '--invoice-date', '2026-11-12']);
    expect(changed).toMatchObject({ code: 0, stderr: expect.stringMatching(/^Exported 24 invoices \(CB-1013–CB-1036\)/) });
    const follow = await csvRows(join(dir, 'changed', 'xero-invoices-2026-10 (not approved by a second person).csv'));
    const credits = follow.rows.filter((row) => row.Reference!.includes('; credits CB-'));
    expect(new Set(credits.map((row) => row.Reference!.replace(/.*credits /, ''))).size).toBe(12);
    expect(credits.every((row) => row['*AccountCode'] === '3010' && new Money(row['*UnitAmount']!).times(row['*Quantity']!).lte(0))).toBe(true);
    expect(follow.rows.filter((row) => !row.Reference!.includes('credits')).every((row) => row['*AccountCode'] === '3011')).toBe(true);
    expect((await cli(['invoices', 'run', october])).stdout).toMatch(/Exported CB-1001–CB-1012 by .*\nExported CB-1013–CB-1036 by /);
    // The follow-up's e-invoices: each credit note a CreditNote naming the invoice it cancels.
    expect((await cli(['invoices', 'export', october, '--format', 'ubl', '--out', join(dir, 'ubl-changed')])).code).toBe(0);
    const creditNotes = [];
    for (const name of await readdir(join(dir, 'ubl-changed'))) {
      const xml = await readFile(join(dir, 'ubl-changed', name), 'utf8');
      if (xml.includes('<CreditNote ')) creditNotes.push(xml);
      expect(
        validateEn16931(xml).filter((finding) => finding.flag === 'fatal'),
        name,
      ).toEqual([]);
    }
    expect(creditNotes.length).toBe(12);
    expect(creditNotes.every((xml) => /<cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>CB-10(0\d|1[012])<\/cbc:ID>/.test(xml))).toBe(true);

    // Adjustments, each with its reason in the month's log: a line left out, a line added (never one that reads as a formula).
    type RunJson = {
      invoices: {
        orgId: string;
        currency: string;
        exactTotal: string;
        lines: { lineKey: string; exactAmount: string; description: string; netAmount: string }[];
      }[];
    };
    const before = (JSON.parse((await cli(['invoices', 'run', october, '--json'])).stdout) as RunJson).invoices[0]!;
    const dropped = before.lines[0]!;
    const on = ['--customer', before.orgId, '--currency', before.currency];
    expect(await cli(['invoices', 'exclude', october, ...on, '--line', dropped.lineKey, '--reason', 'Billed twice by the service'])).toMatchObject({ code: 0 });
    expect(
      await cli(['invoices', 'adjust', october, ...on, '--description', '=HYPERLINK("x")', '--amount', '250.00', '--item', 'x', '--reason', 'r']),
    ).toMatchObject({ code: 1 });
    const fee = await cli([
      'invoices',
      'adjust',
      october,
      ...on,
      '--description',
      'Setup fee',
      '--amount',
      '250.00',
      '--item',
      `service:${before.lines[1]!.lineKey.split('|service:')[1] ?? ''}`,
      '--reason',
      'Agreed in the order',
    ]);
    expect(fee).toMatchObject({ code: 0, stderr: 'Logged with the month.\n' });
    const after = (JSON.parse((await cli(['invoices', 'run', october, '--json'])).stdout) as RunJson).invoices.find(
      (invoice) => invoice.orgId === before.orgId && invoice.currency === before.currency,
    )!;
    expect(after.lines.map((line) => line.lineKey)).not.toContain(dropped.lineKey);
    expect(after.lines.at(-1)).toMatchObject({ description: 'Setup fee', netAmount: '250.00' });
    expect(new Money(after.exactTotal).eq(new Money(before.exactTotal).minus(dropped.exactAmount).plus('250.00'))).toBe(true);
    expect((await cli(['reports', 'log', october])).stdout).toMatch(/adjusted.*Billed twice by the service[\s\S]*adjusted.*Agreed in the order/);

    // The Invoices tab's answer leaves the lines out; an invoice opened gets them, each the whole run's exactly.
    const whole = JSON.parse((await cli(['invoices', 'run', october, '--json'])).stdout) as {
      invoices: (RunJson['invoices'][number] & Record<string, unknown>)[];
    };
    const tabPorts = await testPorts({ dataDir: dir });
    const tab = createService(tabPorts.ports);
    try {
      // A manual line is refused when asked for, not at the run, in a currency the customer is not invoiced in this
      // month, of nothing, or finer than the currency's minor unit; nothing is logged.
      const manual = (currency: string, amount: string) =>
        tab.handlers['invoices:adjust']({
          reportId: october,
          adjustment: {
            kind: 'manual',
            orgId: before.orgId,
            currency,
            description: 'Fee',
            amount,
            item: `service:${before.lines[1]!.lineKey.split('|service:')[1] ?? ''}`,
          },
          reason: 'r',
        });
      const other = before.currency === 'XYZ' ? 'ABC' : 'XYZ';
      await expect(manual(other, '1.00')).rejects.toThrow(
        `customer ${before.orgId} has nothing to invoice in ${other} this month; its invoices are in ${before.currency}.`,
      );
      await expect(manual(before.currency, '-0.00')).rejects.toThrow('an amount of 0 changes nothing');
      await expect(manual(before.currency, '0.001')).rejects.toThrow(`${before.currency} is invoiced to 2 decimals: 0.001 has more.`);
      expect((await tab.handlers['close:log']({ reportId: october })).entries.filter((entry) => entry.action === 'adjusted')).toHaveLength(2);
      const overview = await tab.handlers['invoices:run']({ reportId: october });
      expect(overview.invoices.map((invoice) => [invoice.orgKey, invoice.currency, invoice.lineCount, 'lines' in invoice])).toEqual(
        whole.invoices.map((invoice) => [invoice.orgKey, invoice.currency, invoice.lines.length, false]),
      );
      const items = whole.invoices.flatMap((invoice) => invoice.lines.map((line) => (line as unknown as { item: string }).item));
      expect(overview.items.map((entry) => entry.item).sort()).toEqual([...new Set(items)].sort());
      for (const invoice of overview.invoices) {
        const { orgId, orgKey, currency, po } = invoice;
        const made = whole.invoices.find((entry) => entry.orgKey === orgKey && entry.currency === currency)!;
        expect(await tab.handlers['invoices:lines']({ reportId: october, invoice: { orgId, orgKey, currency, po } }), orgKey).toEqual(made.lines);
      }
      await expect(
        tab.handlers['invoices:lines']({ reportId: october, invoice: { orgId: before.orgId, orgKey: 'gone', currency: before.currency, po: '' } }),
      ).rejects.toMatchObject({ code: 'not-found', message: expect.stringMatching(/is not in the month's invoices now.*Open the Invoices tab again/) });
      // Opened again on an unchanged month, the tab's run is the one kept, not made again; anything it is made from
      // changed, it is made again: a customer's contact renamed (and named back), another invoice date.
      // The adjustments made since the last export change what it would issue: the tab says as much as `invoices run`.
      const changed = (whole as unknown as { changedSinceExport: number | null }).changedSinceExport;
      expect(changed).toBeGreaterThan(0);
      expect(overview.changedSinceExport).toBe(changed);
      const again = await tab.handlers['invoices:run']({ reportId: october });
      expect(again).toEqual(overview);
      expect(again.invoices).toBe(overview.invoices);
      const { mapping } = await tab.handlers['invoices:mapping']({ reportId: october });
      const customer = mapping.customers.find((entry) => entry.orgId === overview.invoices[0]!.orgId)!;
      await tab.handlers['invoices:map']({ reportId: october, customer: { ...customer, contactName: 'Renamed AB' } });
      // Two opens at once (the tab opened twice quickly) share one making of the run.
      const [renamed, renamedTwice] = await Promise.all([1, 2].map(() => tab.handlers['invoices:run']({ reportId: october })));
      expect(renamedTwice!.invoices).toBe(renamed!.invoices);
      expect(new Set(renamed!.invoices.filter((invoice) => invoice.orgId === customer.orgId).map((invoice) => invoice.contactName))).toEqual(
        new Set(['Renamed AB']),
      );
      await tab.handlers['invoices:map']({ reportId: october, customer });
      expect(await tab.handlers['invoices:run']({ reportId: october })).toEqual(overview);
      const dated = await tab.handlers['invoices:run']({ reportId: october, invoiceDate: '2026-11-20' });
      expect(dated.invoices.map((invoice) => invoice.invoiceDate)).toEqual(overview.invoices.map(() => '2026-11-20'));
    } finally {
      await tab.dispose();
      await tabPorts.cleanup();
    }
    // Withdrawn, the fee is gone again; the exclusion stays.
    expect(await cli(['invoices', 'withdraw', october, fee.stdout.trim(), '--reason', 'Waived'])).toMatchObject({ code: 0 });
    const withdrawn = (JSON.parse((await cli(['invoices', 'run', october, '--json'])).stdout) as RunJson).invoices.find(
      (invoice) => invoice.orgId === before.orgId && invoice.currency === before.currency,
    )!;
    expect(withdrawn.lines.map((line) => line.description)).not.toContain('Setup fee');
    expect(withdrawn.lines).toHaveLength(before.lines.length - 1);

    // Exported after the exclusion: that customer's invoice credited and issued anew, the others left as they were;
    // exported once more with nothing changed, the same run written again, byte for byte.
    const excluded = await cli(['invoices', 'export', october, '--format', 'xero', '--out', join(dir, 'excluded'), '--invoice-date', '2026-11-13']);
    expect(excluded).toMatchObject({ code: 0, stderr: expect.stringMatching(/^Exported 2 invoices \(CB-1037–CB-1038\)/) });
    const excludedAgain = await cli(['invoices', 'export', october, '--format', 'xero', '--out', join(dir, 'excluded-again')]);
    expect(excludedAgain).toMatchObject({ code: 0, stderr: expect.stringMatching(/^Wrote again 2 invoices \(CB-1037–CB-1038\)/) });
    const excludedFile = 'xero-invoices-2026-10 (not approved by a second person).csv';
    expect(await readFile(join(dir, 'excluded-again', excludedFile))).toEqual(await readFile(join(dir, 'excluded', excludedFile)));
    // Opened after that export, the tab says nothing changed since it.
    const afterPorts = await testPorts({ dataDir: dir });
    const afterTab = createService(afterPorts.ports);
    try {
      expect((await afterTab.handlers['invoices:run']({ reportId: october })).changedSinceExport).toBe(0);
    } finally {
      await afterTab.dispose();
      await afterPorts.cleanup();
    }

    // A month whose invoices went out is not reopened: its changes are credited instead.
    expect(await cli(['reports', 'reopen', october, '--reason', 'A late credit'])).toMatchObject({
      code: 5,
      stderr: expect.stringMatching(/This month's invoices CB-1001–CB-1038 were exported \(\d{4}-\d\d-\d\d\), so it is not reopened/),
    });
    expect((await cli(['reports', 'log', october])).stdout).not.toMatch(/reopened/);
  }, 400_000);
});
