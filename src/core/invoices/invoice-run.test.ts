import { describe, expect, it } from 'vitest';
import { money } from '@shared/money';
import type { CustomerMapping, InvoiceMapping, ItemMapping, LoggedAdjustment } from '@shared/schemas/invoices';
import { createHash } from 'node:crypto';
import { buildInvoiceRun } from './invoice-run';
import { INVOICE_RULES_VERSION } from './run-inputs';
import type { InvoiceLineRow } from './queries';

const customer = (orgId: string, overrides: Partial<CustomerMapping> = {}): CustomerMapping => ({
  orgId,
  contactName: `Contact ${orgId}`,
  customerNumber: '',
  paymentTermsDays: 30,
  vatTreatment: 'domestic',
  buyerVatId: '',
  country: 'SE',
  endpoint: '',
  buyerReference: '',
  taxCode: '',
  ...overrides,
});
const item = (match: ItemMapping['match'], id: string, overrides: Partial<ItemMapping> = {}): ItemMapping => ({
  match,
  id,
  itemCode: '',
  account: '3010',
  taxCode: '25% (VAT on Income)',
  vatCategory: 'S',
  vatRate: '25',
  exemptionReason: '',
  unitCode: 'C62',
  description: '',
  ...overrides,
});
let lineNo = 0;
const row = (orgId: string, sales: string, overrides: Partial<InvoiceLineRow> = {}): InvoiceLineRow => ({
  org_key: orgId,
  org_id: orgId,
  organization: `Org ${orgId}`,
  customer_number: 'C-1',
  currency: 'SEK',
  po: '',
  item_match: 'service',
  item_id: 'svc',
  description: `Subscription ${++lineNo}`,
  products: 1,
  quantity: '1',
  unit_price: null,
  sales,
  lines: 1,
  first_line: lineNo,
  line_key: `subscription:s-${lineNo}|service:${overrides.item_id ?? 'svc'}`,
  ...overrides,
});
/** A month whose customers and products are all mapped. */
const NOTHING_UNMAPPED = { customers: [], items: [] };
const context = { periodStart: '2026-10-01', invoiceDate: '2026-11-08', linesPer: 'subscription' as const };
const mapping = (customers: CustomerMapping[], items: ItemMapping[] = [item('service', 'svc')]): InvoiceMapping => ({ customers, items });

describe('buildInvoiceRun', () => {
  it("makes one invoice per customer and currency whose lines add up to the customer's exact amount rounded once, VAT per category", () => {
    const run = buildInvoiceRun(
      [
        row('A', '100.004', { quantity: '3' }),
        row('A', '0.333'),
        row('A', '0.333'),
        row('A', '-10.5', { quantity: '-1' }),
        row('A', '12.5', { currency: 'EUR' }),
        row('B', '7.777'),
      ],
      NOTHING_UNMAPPED,
      mapping([customer('A'), customer('B', { paymentTermsDays: 10 })]),
      context,
    );
    expect(run.invoices.map((invoice) => [invoice.orgId, invoice.currency, invoice.netTotal])).toEqual([
      ['A', 'SEK', '90.17'], // 100.004 + 0.333 + 0.333 − 10.5 = 90.170
      ['A', 'EUR', '12.50'],
      ['B', 'SEK', '7.78'],
    ]);
    const [sek] = run.invoices;
    expect(sek!.lines.map((line) => line.netAmount)).toEqual(['100.01', '0.33', '0.33', '-10.50']); // remainders 0.4, 0.3, 0.3, 0: the cent goes to 0.4
    expect(sek!.lines.reduce((sum, line) => sum.plus(line.netAmount), money(0)).toFixed(2)).toBe(sek!.netTotal);
    // VAT once per category: 25 % of 90.17 = 22.5425 → 22.54, shared out over the lines so they add up to it.
    expect(sek!.vat).toEqual([{ category: 'S', rate: '25', exemptionReason: '', taxable: '90.17', amount: '22.54' }]);
    expect(sek!.lines.reduce((sum, line) => sum.plus(line.vatAmount), money(0)).toFixed(2)).toBe('22.54');
    expect([sek!.vatTotal, sek!.grossTotal, sek!.dueDate, run.invoices[2]!.dueDate]).toEqual(['22.54', '112.71', '2026-12-08', '2026-11-18']);
    expect(sek!.periodText).toBe('Cloud services October 2026');
  });

  it('keeps the real quantity where quantity × unit price gives the line amount, else 1 × the amount with the quantity in the description', () => {
    const run = buildInvoiceRun(
      [row('A', '3611.40', { quantity: '20' }), row('A', '100.004', { quantity: '3' })],
      NOTHING_UNMAPPED,
      mapping([customer('A')]),
      context,
    );
    const [exact, inexact] = run.invoices[0]!.lines;
    expect([exact!.quantity, exact!.unitPrice, exact!.description]).toEqual(['20', '180.57', 'Subscription 7']);
    // 100.00 / 3 = 33.33; 3 × 33.33 = 99.99 ≠ 100.00: one unit at the amount, and the quantity said.
    expect([inexact!.quantity, inexact!.unitPrice, inexact!.netAmount, inexact!.description]).toEqual(['1', '100.00', '100.00', 'Subscription 8 (quantity 3)']);
  });

  it("overrides the item's VAT with the customer's treatment: reverse charge (AE) and outside scope (O), with their tax codes", () => {
    const run = buildInvoiceRun(
      [row('EU', '1000'), row('US', '500')],
      NOTHING_UNMAPPED,
      mapping([
        customer('EU', { vatTreatment: 'reverse-charge', buyerVatId: 'NL123456789B01', country: 'NL', taxCode: 'Zero Rated EC Services' }),
        customer('US', { vatTreatment: 'outside-scope', country: 'US', taxCode: 'No VAT' }),
      ]),
      context,
    );
    expect(run.invoices.map((invoice) => invoice.vat)).toEqual([
      [{ category: 'AE', rate: '0', exemptionReason: 'Reverse charge', taxable: '1000.00', amount: '0.00' }],
      [{ category: 'O', rate: '0', exemptionReason: 'Not subject to VAT', taxable: '500.00', amount: '0.00' }],
    ]);
    expect(run.invoices.map((invoice) => invoice.lines[0]!.taxCode)).toEqual(['Zero Rated EC Services', 'No VAT']);
    expect(run.refusals).toEqual([]);
    // Without the customer's tax code the run says what is missing.
    const missing = buildInvoiceRun([row('EU', '1')], NOTHING_UNMAPPED, mapping([customer('EU', { vatTreatment: 'reverse-charge' })]), context);
    expect(missing.refusals).toEqual([expect.stringContaining('customer EU: a reverse-charge customer needs')]);
  });

  it('lists unmapped customers once with their amount per currency, and leaves out a customer with an unmapped line, never invoicing part of it', () => {
    const unmapped = (orgKey: string, orgId: string, currency: string, sales: string) => ({
      org_key: orgKey,
      org_id: orgId,
      organization: `Org ${orgKey}`,
      customer_number: '',
      currency,
      lines: 2,
      sales,
    });
    const run = buildInvoiceRun(
      [row('A', '10'), row('A', '5', { item_match: null, item_id: null })],
      { customers: [unmapped('B', 'B', 'SEK', '3.000000'), unmapped('B', 'B', 'EUR', '4.500000'), unmapped('X|1', '', 'SEK', '1')], items: [] },
      mapping([customer('A')]),
      context,
    );
    expect(run.invoices).toEqual([]);
    expect(run.unmappedCustomers.map((entry) => [entry.orgKey, entry.lines, entry.amounts, entry.problem !== null])).toEqual([
      [
        'B',
        4,
        [
          { currency: 'SEK', amount: '3' },
          { currency: 'EUR', amount: '4.5' },
        ],
        false,
      ],
      ['X|1', 2, [{ currency: 'SEK', amount: '1' }], true],
    ]);
  });

  it('refuses a contact name or description a spreadsheet would run as a formula, naming the mapping entry', () => {
    const run = buildInvoiceRun(
      [row('A', '10', { description: '=HYPERLINK("http://x")' }), row('B', '1', { item_match: 'product', item_id: 'P' })],
      NOTHING_UNMAPPED,
      mapping([customer('A', { contactName: '@Acme' }), customer('B')], [item('service', 'svc'), item('product', 'P', { description: '-Promo' })]),
      context,
    );
    expect(run.refusals).toEqual([
      'customer A: contact name "@Acme" begins like a formula',
      expect.stringMatching(/^item service:svc: the description "=HYPERLINK.*give the item a description in the mapping$/),
      expect.stringMatching(/^item product:P: the description "-Promo"/),
    ]);
  });

  it('makes a credit note of a negative total, and shows each currency’s rounding difference with why', () => {
    const run = buildInvoiceRun(
      [row('A', '-20.004'), row('B', '0.004'), row('C', '0.004')],
      NOTHING_UNMAPPED,
      mapping([customer('A'), customer('B'), customer('C')]),
      context,
    );
    expect(run.invoices.map((invoice) => [invoice.kind, invoice.netTotal])).toEqual([
      ['credit-note', '-20.00'],
      ['invoice', '0.00'],
      ['invoice', '0.00'],
    ]);
    // Exact −19.996 rounds once to −20.00; the three invoices add up to −20.00: no difference.
    expect(run.currencies).toEqual([
      expect.objectContaining({ currency: 'SEK', invoices: 3, roundedOnce: '-20.00', invoiced: '-20.00', roundingDifference: '0.00' }),
    ]);
    const split = buildInvoiceRun([row('A', '0.005'), row('B', '0.005')], NOTHING_UNMAPPED, mapping([customer('A'), customer('B')]), context);
    expect(split.currencies[0]).toMatchObject({ roundedOnce: '0.01', invoiced: '0.02', roundingDifference: '0.01' });
    expect(split.currencies[0]!.explanation).toMatch(/rounded on its own .* no amount moves between customers/);
  });
});

describe('adjustments', () => {
  const logged = (adjustment: LoggedAdjustment['adjustment'], seq: number, reason = 'why'): LoggedAdjustment => ({
    adjustment,
    reason,
    by: 'anna',
    at: '2026-11-09T10:00:00.000Z',
    seq,
  });
  const ids = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000003'] as const;

  it('leaves an excluded line out and adds a manual one after the customer’s own lines; a withdrawn one no longer applies', () => {
    const rows = [row('A', '100', { line_key: 'subscription:s1|service:svc' }), row('A', '50', { line_key: 'subscription:s2|service:svc' })];
    const run = buildInvoiceRun(rows, NOTHING_UNMAPPED, mapping([customer('A')]), context, [
      logged({ kind: 'exclude', id: ids[0], orgId: 'A', currency: 'SEK', lineKey: 'subscription:s2|service:svc' }, 1),
      logged({ kind: 'manual', id: ids[1], orgId: 'A', currency: 'SEK', description: 'Setup fee', amount: '25.005', item: 'service:svc' }, 2),
      logged({ kind: 'manual', id: ids[2], orgId: 'A', currency: 'SEK', description: 'Travel', amount: '10', item: 'service:svc' }, 3),
      logged({ kind: 'withdraw', id: '00000000-0000-4000-8000-000000000004', withdraws: ids[2] }, 4),
    ]);
    expect(run.invoices[0]!.lines.map((line) => [line.description.replace(/ \d+$/, ''), line.netAmount, line.adjustment ?? null])).toEqual([
      ['Subscription', '100.00', null],
      ['Setup fee', '25.01', ids[1]],
    ]);
    expect(run.invoices[0]!.netTotal).toBe('125.01'); // 100 + 25.005, rounded once
    expect(run.adjustments.map((entry) => entry.adjustment.id)).toEqual([ids[0], ids[1]]);
  });

  it('refuses an adjustment whose line or customer a refetch took away, rather than applying it elsewhere', () => {
    const run = buildInvoiceRun([row('A', '100')], NOTHING_UNMAPPED, mapping([customer('A')]), context, [
      logged({ kind: 'exclude', id: ids[0], orgId: 'A', currency: 'SEK', lineKey: 'subscription:gone|service:svc' }, 1, 'Double billed'),
      logged({ kind: 'manual', id: ids[1], orgId: 'B', currency: 'SEK', description: 'Fee', amount: '5', item: 'service:svc' }, 2, 'Fee'),
    ]);
    expect(run.refusals).toEqual([
      `adjustment ${ids[0]} ("Double billed"): the line it excludes is not in this fetch any more; withdraw it`,
      `adjustment ${ids[1]} ("Fee"): customer B has nothing to invoice in SEK this month; withdraw it`,
    ]);
  });

  it('keeps waiting, neither applied nor refused, an adjustment of a customer with lines that is not mapped now', () => {
    const unmappedB = { org_key: 'B', org_id: 'B', organization: 'Org B', customer_number: '', currency: 'SEK', lines: 1, sales: '40' };
    const run = buildInvoiceRun([row('A', '100')], { customers: [unmappedB], items: [] }, mapping([customer('A')]), context, [
      logged({ kind: 'exclude', id: ids[0], orgId: 'B', currency: 'SEK', lineKey: 'subscription:s9|service:svc' }, 1),
      logged({ kind: 'manual', id: ids[1], orgId: 'B', currency: 'SEK', description: 'Fee', amount: '5', item: 'service:svc' }, 2),
      logged({ kind: 'manual', id: ids[2], orgId: 'B', currency: 'EUR', description: 'Fee', amount: '5', item: 'service:svc' }, 3, 'Fee in euros'),
    ]);
    expect(run.invoices.map((invoice) => [invoice.orgId, invoice.netTotal])).toEqual([['A', '100.00']]);
    expect(run.unmappedCustomers.map((entry) => [entry.orgId, entry.amounts])).toEqual([['B', [{ currency: 'SEK', amount: '40' }]]]);
    // B has no lines in EUR: that one is refused, as for a customer the refetch took away.
    expect(run.refusals).toEqual([`adjustment ${ids[2]} ("Fee in euros"): customer B has nothing to invoice in EUR this month; withdraw it`]);
  });

  it('makes a fixed month as the rules version kept with each run says (a change to the making needs a new version)', () => {
    // An export made from what the last run was made from writes that run again (run-inputs.ts): invoices made
    // otherwise by a change here must come with a new INVOICE_RULES_VERSION, and this pin with it.
    const fixed = (orgId: string, n: number, sales: string, overrides: Partial<InvoiceLineRow> = {}) =>
      row(orgId, sales, { description: `Line ${n}`, first_line: n, line_key: `subscription:f-${n}|service:svc`, ...overrides });
    const run = buildInvoiceRun(
      [
        fixed('a', 1, '1200.005', { quantity: '3', products: 2 }),
        fixed('a', 2, '-10.5', { quantity: '-1', unit_price: '10.5' }),
        fixed('b', 3, '999.9999', { currency: 'JPY', quantity: '7' }),
        fixed('c', 4, '0.0005', { currency: 'KWD' }),
        fixed('d', 5, '250', { po: 'PO-1' }),
      ],
      NOTHING_UNMAPPED,
      mapping([customer('a'), customer('b', { vatTreatment: 'reverse-charge', taxCode: 'RC' }), customer('c'), customer('d', { paymentTermsDays: 14 })]),
      context,
    );
    expect([run.invoices.length, run.refusals]).toEqual([4, []]);
    const made = createHash('sha256').update(JSON.stringify(run)).digest('hex');
    expect({ version: INVOICE_RULES_VERSION, made }).toEqual({ version: 1, made: '2eef645105a6d630f759cf3b74f167e3d30861c23ee2d82c4ce2a5a4eb0238d1' });
  });
});
