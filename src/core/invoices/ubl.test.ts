import { describe, expect, it } from 'vitest';
import type { CustomerMapping, ItemMapping, Seller } from '@shared/schemas/invoices';
import { validateEn16931 } from '@testing/en16931';
import { buildInvoiceRun, type Invoice } from './invoice-run';
import type { InvoiceLineRow } from './queries';
import { ublInvoice } from './ubl';

const SELLER: Seller = {
  name: 'Nordlys Cloud AB',
  vatId: 'SE556677889901',
  companyId: '5566778899',
  country: 'SE',
  street: 'Kungsgatan 1',
  city: 'Stockholm',
  postcode: '111 43',
  endpoint: '0007:5566778899',
  iban: 'SE4550000000058398257466',
};
const PERIOD = { start: '2026-10-01', end: '2026-10-31' };

const customer = (orgId: string, overrides: Partial<CustomerMapping> = {}): CustomerMapping => ({
  orgId,
  contactName: `Kund ${orgId} & Co <AB>`,
  customerNumber: `C-${orgId}`,
  paymentTermsDays: 30,
  vatTreatment: 'domestic',
  buyerVatId: '',
  country: 'SE',
  endpoint: '0007:5560360793',
  buyerReference: 'Ref 42',
  taxCode: 'Reverse',
  ...overrides,
});
const item = (id: string, overrides: Partial<ItemMapping> = {}): ItemMapping => ({
  match: 'service',
  id,
  itemCode: `ITEM-${id}`,
  account: '3010',
  taxCode: 'MP1',
  vatCategory: 'S',
  vatRate: '25',
  exemptionReason: '',
  unitCode: 'C62',
  description: '',
  ...overrides,
});
let lineNo = 0;
const row = (orgId: string, sales: string, quantity: string, overrides: Partial<InvoiceLineRow> = {}): InvoiceLineRow => ({
  org_key: orgId,
  org_id: orgId,
  organization: orgId,
  customer_number: '',
  currency: 'SEK',
  po: '',
  item_match: 'service',
  item_id: 'cloud',
  description: `Microsoft 365 Business Premium, subscription ${++lineNo}`,
  products: 1,
  quantity,
  unit_price: null,
  sales,
  lines: 1,
  first_line: lineNo,
  line_key: `subscription:s-${lineNo}|service:${overrides.item_id ?? 'svc'}`,
  ...overrides,
});

/** The run's invoices, numbered as an export numbers them. */
function invoices(rows: InvoiceLineRow[], customers: CustomerMapping[], items: ItemMapping[] = [item('cloud')]): Invoice[] {
  const run = buildInvoiceRun(
    rows,
    { customers: [], items: [] },
    { customers, items },
    { periodStart: PERIOD.start, invoiceDate: '2026-11-09', linesPer: 'subscription' },
  );
  expect(run.refusals).toEqual([]);
  return run.invoices.map((invoice, index) => ({ ...invoice, number: `CB-${1001 + index}` }));
}

function document(invoice: Invoice): string {
  const made = ublInvoice(invoice, SELLER, PERIOD);
  if ('refused' in made) throw new Error(made.refused);
  return made.content;
}

const fatal = (xml: string) => validateEn16931(xml).filter((finding) => finding.flag === 'fatal');

describe('UBL e-invoices under the official CEN EN 16931 and Peppol BIS 3.0 rules', () => {
  it('a domestic invoice (S, 25 %) with a line at 1 × its amount and a negative line: no fatal finding', () => {
    const [invoice] = invoices([row('A', '3611.40', '20'), row('A', '100.004', '3'), row('A', '-10.50', '1'), row('A', '0.333', '1')], [customer('A')]);
    const xml = document(invoice!);
    expect(xml).toContain('<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>');
    expect(xml).toContain('Kund A &amp; Co &lt;AB&gt;');
    expect(fatal(xml)).toEqual([]);
  }, 300_000);

  it('a reverse-charge invoice (AE) to a customer in another member state: no fatal finding', () => {
    const [invoice] = invoices(
      [row('NL', '1000', '10'), row('NL', '12.345', '1')],
      [customer('NL', { vatTreatment: 'reverse-charge', buyerVatId: 'NL123456789B01', country: 'NL', endpoint: '9944:NL123456789B01', taxCode: 'ECSALES' })],
    );
    const xml = document(invoice!);
    expect(xml).toMatch(
      /<cac:TaxCategory><cbc:ID>AE<\/cbc:ID><cbc:Percent>0<\/cbc:Percent><cbc:TaxExemptionReasonCode>VATEX-EU-AE<\/cbc:TaxExemptionReasonCode>/,
    );
    expect(fatal(xml)).toEqual([]);
  }, 300_000);

  it('a credit note for a negative total, and the credit note that cancels an exported invoice: no fatal finding', () => {
    const [credit] = invoices([row('C', '-250.125', '5'), row('C', '20', '1')], [customer('C')]);
    expect(credit!.kind).toBe('credit-note');
    const xml = document(credit!);
    expect(xml).toMatch(/^<\?xml[^>]*>\n<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"/);
    expect(xml).toContain('<cbc:PayableAmount currencyID="SEK">287.66</cbc:PayableAmount>'); // (250.13 − 20.00) × 1.25
    expect(fatal(xml)).toEqual([]);
    const cancelling: Invoice = { ...credit!, replaces: 'CB-0999' };
    expect(document(cancelling)).toContain('<cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>CB-0999</cbc:ID>');
    expect(fatal(document(cancelling))).toEqual([]);
  }, 300_000);

  it('an exempt item (E) and a customer outside the scope of VAT (O): no fatal finding', () => {
    const [exempt] = invoices(
      [row('E', '500', '2', { item_id: 'care' })],
      [customer('E')],
      [item('care', { vatCategory: 'E', vatRate: '0', exemptionReason: 'Exempt under Article 132' })],
    );
    expect(fatal(document(exempt!))).toEqual([]);
    const [outside] = invoices([row('US', '99.99', '1')], [customer('US', { vatTreatment: 'outside-scope', country: 'US', endpoint: '0060:123456789' })]);
    expect(fatal(document(outside!))).toEqual([]);
    // Outside the scope of VAT the seller carries no VAT id, so its registration number is what identifies it (BR-CO-26).
    const unidentified = ublInvoice(outside!, { ...SELLER, companyId: '' }, PERIOD);
    expect(unidentified).toEqual({ refused: expect.stringMatching(/registration number is not set \(invoices settings --seller-company-id\)/) });
    const content = document(outside!).replace(/<cbc:CompanyID>5566778899<\/cbc:CompanyID>/, '');
    expect(fatal(content).map((finding) => finding.id)).toContain('BR-CO-26');
  }, 300_000);

  it('the rules find a broken e-invoice (so a clean result means something)', () => {
    const [invoice] = invoices([row('A', '100', '1')], [customer('A')]);
    const broken = document(invoice!).replace(/<cbc:PayableAmount currencyID="SEK">125.00</, '<cbc:PayableAmount currencyID="SEK">126.00<');
    expect(fatal(broken).map((finding) => [finding.rules, finding.id])).toContainEqual(['CEN', 'BR-CO-16']);
    // And Peppol's own: a Swedish organisation number that fails its check digit.
    const [badEndpoint] = invoices([row('A', '100', '1')], [customer('A', { endpoint: '0007:1234567890' })]);
    expect(fatal(document(badEndpoint!)).map((finding) => [finding.rules, finding.id])).toEqual([['Peppol', 'PEPPOL-COMMON-R049']]);
  }, 300_000);

  it('refuses what the standard cannot carry, with its reason', () => {
    const [kwd] = invoices([row('A', '1.234', '1', { currency: 'KWD' })], [customer('A')]);
    expect(ublInvoice(kwd!, SELLER, PERIOD)).toEqual({ refused: expect.stringMatching(/at most two decimals, and KWD has 3/) });
    const [noEndpoint] = invoices([row('B', '1', '1')], [customer('B', { endpoint: '' })]);
    expect(ublInvoice(noEndpoint!, SELLER, PERIOD)).toEqual({ refused: expect.stringMatching(/customer B has no e-invoice endpoint/) });
    const [noReference] = invoices([row('B', '1', '1')], [customer('B', { buyerReference: '' })]);
    expect(ublInvoice(noReference!, SELLER, PERIOD)).toEqual({ refused: expect.stringMatching(/no buyer reference/) });
    const [noVatId] = invoices([row('B', '1', '1')], [customer('B', { vatTreatment: 'reverse-charge', taxCode: 'EC' })]);
    expect(ublInvoice(noVatId!, SELLER, PERIOD)).toEqual({ refused: expect.stringMatching(/needs its VAT id/) });
    expect(ublInvoice(noVatId!, { ...SELLER, endpoint: '' }, PERIOD)).toEqual({ refused: expect.stringMatching(/the seller's endpoint are not set/) });
    // A country outside EN 16931's list (ISO 3166 and XI) fails BR-CL-14; the common slips are named.
    const [inUk] = invoices([row('B', '1', '1')], [customer('B', { country: 'UK' })]);
    expect(ublInvoice(inUk!, SELLER, PERIOD)).toEqual({
      refused: expect.stringMatching(/in the mapping, customer B's country UK is not an ISO 3166 country code: write GB \(the United Kingdom\)$/),
    });
    const [inNorthernIreland] = invoices([row('B', '1', '1')], [customer('B', { country: 'XI' })]);
    expect(ublInvoice(inNorthernIreland!, SELLER, PERIOD)).not.toHaveProperty('refused');
    expect(ublInvoice(inNorthernIreland!, { ...SELLER, country: 'EL' }, PERIOD)).toEqual({
      refused: expect.stringMatching(/the seller's country EL is not an ISO 3166 country code: write GR \(Greece; EL is its VAT prefix\)/),
    });
  });
});
