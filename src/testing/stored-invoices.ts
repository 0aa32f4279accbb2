import type { Invoice, InvoiceLine } from '@shared/schemas/invoices';
import type { StoredRun } from '@core/invoices/invoice-store';

/** An invoice line of 20 × 180.57 SEK at 25 % VAT, with what `overrides` changes. */
export const testLine = (overrides: Partial<InvoiceLine> = {}): InvoiceLine => ({
  description: 'Microsoft 365 E3',
  quantity: '20',
  unitPrice: '180.57',
  netAmount: '3611.40',
  exactAmount: '3611.4',
  realQuantity: '20',
  itemCode: 'M365-E3',
  account: '3010',
  taxCode: 'MP1',
  vatCategory: 'S',
  vatRate: '25',
  exemptionReason: '',
  vatAmount: '902.85',
  unitCode: 'C62',
  item: 'service:x',
  billingLines: 1,
  lineKey: 'subscription:s-1|service:x',
  ...overrides,
});
/** An invoice of two lines (one a small credit) to a contact whose name holds a semicolon and quotes. */
export const testInvoice = (number: string, overrides: Partial<Invoice> = {}): Invoice => ({
  number,
  kind: 'invoice',
  orgKey: 'o',
  orgId: 'o',
  organization: 'Org',
  contactName: 'Åkerberg; "North"',
  customerNumber: 'C-1',
  buyer: { vatId: '', country: 'SE', endpoint: '', reference: '' },
  currency: 'SEK',
  po: '',
  invoiceDate: '2026-11-09',
  dueDate: '2026-12-09',
  periodText: 'Cloud services October 2026',
  lines: [testLine(), testLine({ description: 'Credit', quantity: '-1', unitPrice: '10.50', netAmount: '-10.50', vatAmount: '-2.63' })],
  exactTotal: '3600.9',
  netTotal: '3600.90',
  vat: [{ category: 'S', rate: '25', exemptionReason: '', taxable: '3600.90', amount: '900.22' }],
  vatTotal: '900.22',
  grossTotal: '4501.12',
  ...overrides,
});
/** An invoice numbered `number` (INV-…) of a customer, with `lines` lines of 10.00 at 25 % VAT, as a kept run holds it. */
export function storedInvoice(number: number, customer: number, lines = 2, kind: Invoice['kind'] = 'invoice'): Invoice {
  const line = (index: number) =>
    testLine({
      description: `Subscription ${customer}-${index} ✓ "quoted"`,
      quantity: '1',
      unitPrice: '10.00',
      netAmount: '10.00',
      exactAmount: '10',
      realQuantity: '1',
      vatAmount: '2.50',
      lineKey: `subscription:${customer}-${index}|service:svc`,
    });
  return testInvoice(`INV-${number}`, {
    kind,
    orgKey: `org-${customer}`,
    orgId: `org-${customer}`,
    organization: `Customer ${customer}`,
    contactName: `Customer ${customer} (AR)`,
    lines: Array.from({ length: lines }, (_, index) => line(index)),
    exactTotal: String(10 * lines),
    netTotal: `${10 * lines}.00`,
    vat: [{ category: 'S', rate: '25', exemptionReason: '', taxable: `${10 * lines}.00`, amount: `${2.5 * lines}0` }],
    vatTotal: `${2.5 * lines}0`,
    grossTotal: `${12.5 * lines}0`,
  });
}

/** An exported run of October as the ledger keeps it. */
export const storedRun = (runId: string, issued: Invoice[], inForce: Invoice[], exportedAt: string): StoredRun => ({
  runId,
  reportId: 'report-1',
  contentHash: 'a'.repeat(64),
  issued,
  inForce,
  dateFormat: 'YYYY-MM-DD',
  approved: true,
  seller: { name: 'Nordlys Cloud AB', vatId: '', companyId: '', country: 'SE', street: '', city: '', postcode: '', endpoint: '', iban: '' },
  firstNumber: issued[0]?.number ?? '',
  lastNumber: issued.at(-1)?.number ?? '',
  exportedAt,
  exportedBy: 'anna',
});

/** Everything an iterable gives, held or read as taken (a run's files, their pieces, its invoices). */
export async function taken<T>(items: Iterable<T> | AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
