import { describe, expect, it } from 'vitest';
import type { InvoiceTemplate, Seller } from '@shared/schemas/invoices';
import { invoiceFiles, issuedInMemory, templatePieces } from './invoice-files';
import type { Invoice } from './invoice-run';
import { storedInvoice, taken, testInvoice as invoice, testLine } from '@testing/stored-invoices';

const SELLER = { name: '', vatId: '', companyId: '', country: '', street: '', city: '', postcode: '', endpoint: '', iban: '' } satisfies Seller;
const run = (issued: Invoice[], template: InvoiceTemplate | null = null) => ({
  issued: issuedInMemory(issued),
  dateFormat: 'DD/MM/YYYY' as const,
  approved: true,
  seller: SELLER,
  period: { start: '2026-10-01', end: '2026-10-31' },
  template,
});

/** A user's own template: a row per line, ISO dates, decimal comma, semicolons, a header that looks like a formula. */
const FORTNOX: InvoiceTemplate = {
  name: 'Fortnox import',
  rowsPer: 'line',
  dateFormat: 'YYYY-MM-DD',
  decimalSeparator: ',',
  delimiter: ';',
  columns: [
    { header: 'Fakturanr', field: 'invoiceNumber' },
    { header: 'Kund', field: 'contactName' },
    { header: 'Datum', field: 'invoiceDate' },
    { header: 'Rad', field: 'lineNumber' },
    { header: 'Antal', field: 'quantity' },
    { header: 'Belopp', field: 'netAmount' },
    { header: '=Konto', field: 'account' },
  ],
};

describe('invoice files', () => {
  it('splits Xero files at 500 invoices, an invoice never across two files', async () => {
    const many = Array.from({ length: 1001 }, (_, index) => invoice(`INV-${index + 1}`));
    const files = await taken((await invoiceFiles('xero', run(many))).files);
    expect(files.map((file) => [file.name, file.invoices])).toEqual([
      ['xero-invoices-2026-10-part-1-of-3.csv', 500],
      ['xero-invoices-2026-10-part-2-of-3.csv', 500],
      ['xero-invoices-2026-10-part-3-of-3.csv', 1],
    ]);
    expect((await taken(files[2]!.pieces())).join('').split('\r\n').filter(Boolean)).toHaveLength(1 + 2); // header and the last invoice's two lines
  });

  it('splits QuickBooks files at 100 invoices and 1,000 rows per currency and kind, an invoice never across two files', async () => {
    // SEK: 250 invoices of 2 lines, an EUR one between them; then 3 SEK invoices of 400 lines (1,200 rows).
    const issued = [
      ...Array.from({ length: 120 }, (_, index) => storedInvoice(index + 1, index)),
      { ...storedInvoice(121, 120), currency: 'EUR' },
      ...Array.from({ length: 130 }, (_, index) => storedInvoice(index + 122, index + 121)),
      ...Array.from({ length: 3 }, (_, index) => storedInvoice(index + 252, index + 251, 400)),
    ];
    const files = await taken((await invoiceFiles('qbo', run(issued))).files);
    expect(files.map((file) => [file.name, file.invoices])).toEqual([
      ['quickbooks-invoices-2026-10-EUR.csv', 1],
      ['quickbooks-invoices-2026-10-SEK-part-1-of-4.csv', 100],
      ['quickbooks-invoices-2026-10-SEK-part-2-of-4.csv', 100],
      ['quickbooks-invoices-2026-10-SEK-part-3-of-4.csv', 52], // 50 of 2 lines and two of 400: 900 rows
      ['quickbooks-invoices-2026-10-SEK-part-4-of-4.csv', 1],
    ]);
    const numbers: string[] = [];
    for (const file of files.slice(1)) {
      const rows = (await taken(file.pieces())).join('').split('\r\n').slice(1, -1);
      expect(rows.length, file.name).toBeLessThanOrEqual(999);
      const inFile = [...new Set(rows.map((row) => row.split(',')[0]!))];
      expect(inFile, file.name).toHaveLength(file.invoices);
      numbers.push(...inFile);
    }
    expect(numbers).toEqual(issued.filter((entry) => entry.currency === 'SEK').map((entry) => entry.number));
  });

  it('names a QuickBooks invoice too long for any file, written alone in its part, and what to do', async () => {
    const issued = [storedInvoice(1, 0), storedInvoice(2, 1, 1000), storedInvoice(3, 2, 999), storedInvoice(4, 3, 1200, 'credit-note')];
    const made = await invoiceFiles('qbo', run(issued));
    expect(made.refused).toEqual([]);
    expect(made.warnings).toEqual([
      'Invoice INV-2 (Customer 1, SEK, 1,000 lines) has more lines than the 999 QuickBooks reads from one file: it is written alone in ' +
        'quickbooks-invoices-2026-10-SEK-part-2-of-3.csv, and QuickBooks would import it cut short. A line per subscription rather than per ' +
        'product (the invoice settings) gives it fewer lines; or enter it in QuickBooks by hand',
    ]);
    const files = await taken(made.files);
    expect(files.map((file) => [file.name, file.invoices])).toEqual([
      ['quickbooks-invoices-2026-10-SEK-part-1-of-3.csv', 1],
      ['quickbooks-invoices-2026-10-SEK-part-2-of-3.csv', 1],
      ['quickbooks-invoices-2026-10-SEK-part-3-of-3.csv', 1], // 999 lines: one file, whole
      ['quickbooks-credit-memos-2026-10-SEK.csv', 1], // entered by hand, whatever its length
    ]);
    // Xero and the template have no such limit.
    expect((await invoiceFiles('xero', run(issued))).warnings).toEqual([]);
  });

  it('writes no QuickBooks file for invoices numbered longer than the 21 characters QuickBooks Online takes, and says so', async () => {
    const numbered = (number: string) => ({ ...storedInvoice(1, 0), number });
    const within = await invoiceFiles('qbo', run([numbered('NORDLYS-CLOUD-INV-1001'.slice(0, 21))]));
    expect(within.refused).toEqual([]);
    const past = await invoiceFiles('qbo', run([numbered('CB-1'), numbered('NORDLYS-CLOUD-INV-1002')]));
    expect(past.refused).toEqual([
      'QuickBooks Online takes invoice numbers of at most 21 characters, and NORDLYS-CLOUD-INV-1002 has 22: a shorter prefix (the invoice settings) gives shorter numbers, or export these in another format',
    ]);
    expect(await taken(past.files)).toEqual([]);
    expect((await invoiceFiles('xero', run([numbered('NORDLYS-CLOUD-INV-1002')]))).refused).toEqual([]);
  });

  it("writes the user's own template: their columns and order, dates, decimal comma, numbers as numbers", async () => {
    const template = FORTNOX;
    expect((await taken(templatePieces(template, [invoice('F-1')]))).join('')).toBe(
      "\uFEFFFakturanr;Kund;Datum;Rad;Antal;Belopp;'=Konto\r\n" +
        'F-1;"Åkerberg; ""North""";2026-11-09;1;20;3611,40;3010\r\n' +
        'F-1;"Åkerberg; ""North""";2026-11-09;2;-1;-10,50;3010\r\n',
    );
    const perInvoice: InvoiceTemplate = {
      ...template,
      rowsPer: 'invoice',
      delimiter: 'tab',
      decimalSeparator: '.',
      columns: [
        { header: 'No', field: 'invoiceNumber' },
        { header: 'Total', field: 'grossTotal' },
      ],
    };
    expect((await taken(templatePieces(perInvoice, [invoice('F-1'), invoice('F-2', { kind: 'credit-note', grossTotal: '-5.00' })]))).join('')).toBe(
      '\uFEFFNo\tTotal\r\nF-1\t4501.12\r\nF-2\t-5.00\r\n',
    );
    expect((await taken((await invoiceFiles('template', run([invoice('F-1')], template))).files)).map((file) => file.name)).toEqual([
      'Fortnox-import-2026-10.csv',
    ]);
  });

  it("refuses a template file carrying a service's value that would run as a formula, naming it, rather than write it escaped", async () => {
    const template: InvoiceTemplate = {
      ...FORTNOX,
      rowsPer: 'invoice',
      columns: [
        { header: 'No', field: 'invoiceNumber' },
        { header: 'PO', field: 'po' },
        { header: 'Customer no', field: 'customerNumber' },
      ],
    };
    const issued = [
      invoice('F-1', { po: '-' }),
      invoice('F-2', { po: '-' }),
      invoice('F-3', { po: 'PO 7' }),
      invoice('F-4', { po: '-' }),
      invoice('F-5', { po: '-' }),
      invoice('F-6', { customerNumber: '@ACME' }),
    ];
    const made = await invoiceFiles('template', run(issued, template));
    expect(made.refused).toEqual([
      `your template's PO "-" (4 invoices: F-1, F-2, F-4 …) would run as a formula in a spreadsheet; change it in the service or the mapping, or leave the column out of the template`,
      `your template's Customer no "@ACME" (invoice F-6) would run as a formula in a spreadsheet; change it in the service or the mapping, or leave the column out of the template`,
    ]);
    expect(await taken(made.files)).toEqual([]);
    // Without those columns the same invoices are written.
    const without = { ...template, columns: template.columns.slice(0, 1) };
    expect((await invoiceFiles('template', run(issued, without))).refused).toEqual([]);
  });

  it('writes QuickBooks files per currency in code order, credit notes as credit memos of their own with their amounts positive', async () => {
    const credit = invoice('Q-3', {
      kind: 'credit-note',
      lines: [testLine({ quantity: '1', unitPrice: '-180.57', netAmount: '-180.57' }), testLine({ quantity: '-2', unitPrice: '10.50', netAmount: '-21.00' })],
    });
    const issued = [invoice('Q-1'), invoice('Q-2', { currency: 'EUR' }), credit, invoice('Q-4')];
    const files = await taken((await invoiceFiles('qbo', run(issued))).files);
    expect(files.map((file) => [file.name, file.invoices])).toEqual([
      ['quickbooks-invoices-2026-10-EUR.csv', 1],
      ['quickbooks-invoices-2026-10-SEK.csv', 2],
      ['quickbooks-credit-memos-2026-10-SEK.csv', 1],
    ]);
    const rows = async (file: (typeof files)[number]) =>
      (await taken(file.pieces()))
        .join('')
        .split('\r\n')
        .slice(1, -1)
        .map((row) => row.split(',').slice(0, 1).concat(row.split(',').slice(-4)));
    expect(await rows(files[1]!)).toEqual([
      ['Q-1', '20', '180.57', '3611.40', 'MP1'],
      ['Q-1', '-1', '10.50', '-10.50', 'MP1'],
      ['Q-4', '20', '180.57', '3611.40', 'MP1'],
      ['Q-4', '-1', '10.50', '-10.50', 'MP1'],
    ]);
    // The memo's lines: a negative price turned positive, else the quantity; the amount positive either way.
    expect(await rows(files[2]!)).toEqual([
      ['Q-3', '1', '180.57', '180.57', 'MP1'],
      ['Q-3', '2', '10.50', '21.00', 'MP1'],
    ]);
  });
});
