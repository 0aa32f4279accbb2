import { describe, expect, it } from 'vitest';
import type { InvoiceTemplate, Seller } from '@shared/schemas/invoices';
import { invoiceFiles, templatePieces } from './invoice-files';
import type { Invoice } from './invoice-run';
import { testInvoice as invoice } from '@testing/stored-invoices';

const SELLER = { name: '', vatId: '', companyId: '', country: '', street: '', city: '', postcode: '', endpoint: '', iban: '' } satisfies Seller;
const run = (issued: Invoice[], template: InvoiceTemplate | null = null) => ({
  issued,
  dateFormat: 'DD/MM/YYYY' as const,
  approved: true,
  seller: SELLER,
  period: { start: '2026-10-01', end: '2026-10-31' },
  template,
});

describe('invoice files', () => {
  it('splits Xero files at 500 invoices, an invoice never across two files', () => {
    const many = Array.from({ length: 1001 }, (_, index) => invoice(`INV-${index + 1}`));
    const files = [...invoiceFiles('xero', run(many)).files];
    expect(files.map((file) => [file.name, file.invoices])).toEqual([
      ['xero-invoices-2026-10-part-1-of-3.csv', 500],
      ['xero-invoices-2026-10-part-2-of-3.csv', 500],
      ['xero-invoices-2026-10-part-3-of-3.csv', 1],
    ]);
    expect([...files[2]!.pieces()].join('').split('\r\n').filter(Boolean)).toHaveLength(1 + 2); // header and the last invoice's two lines
  });

  it("writes the user's own template: their columns and order, dates, decimal comma, numbers as numbers", () => {
    const template: InvoiceTemplate = {
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
    expect([...templatePieces(template, [invoice('F-1')])].join('')).toBe(
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
    expect([...templatePieces(perInvoice, [invoice('F-1'), invoice('F-2', { kind: 'credit-note', grossTotal: '-5.00' })])].join('')).toBe(
      '\uFEFFNo\tTotal\r\nF-1\t4501.12\r\nF-2\t-5.00\r\n',
    );
    expect([...invoiceFiles('template', run([invoice('F-1')], template)).files].map((file) => file.name)).toEqual(['Fortnox-import-2026-10.csv']);
  });
});
