import { minorUnits } from '@shared/currency';
import { countryCodeProblem } from '@shared/model/countries';
import { money } from '@shared/money';
import type { Seller } from '@shared/schemas/invoices';
import { xmlText } from '@core/xlsx';
import type { Invoice, InvoiceLine } from './invoice-run';

/**
 * The e-invoice a customer receives through the reseller's Peppol access point: EN 16931 in UBL 2.1, as Peppol BIS
 * Billing 3.0 specifies it — an Invoice (380), or a CreditNote (381) for a negative total, with its amounts turned
 * positive. The accounting systems import UBL as purchase invoices, so this is the customer's copy, not the
 * bookkeeping import. What the standard cannot carry is refused with its reason, never written half right.
 */

const CUSTOMIZATION = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0';
const PROFILE = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';
const NAMESPACES =
  'xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"';

/** The VAT exemption reason codes (VATEX) of the categories that need one. */
const EXEMPTION_CODES: Partial<Record<string, string>> = { AE: 'VATEX-EU-AE', K: 'VATEX-EU-IC', G: 'VATEX-EU-G', O: 'VATEX-EU-O' };

/** An element with text (escaped), or nothing when the text is empty. */
function element(name: string, text: string, attributes: Record<string, string> = {}): string {
  if (text === '') return '';
  const attributeText = Object.entries(attributes)
    .map(([key, value]) => ` ${key}="${xmlText(value)}"`)
    .join('');
  return `<${name}${attributeText}>${xmlText(text)}</${name}>`;
}

const wrap = (name: string, ...children: string[]) => (children.join('') ? `<${name}>${children.join('')}</${name}>` : '');

function endpoint(value: string): string {
  const [scheme = '', id = ''] = value.split(/:(.*)/s);
  return element('cbc:EndpointID', id, { schemeID: scheme });
}

export type UblResult = { name: string; content: string } | { refused: string };

/** Why an invoice cannot be an EN 16931 / Peppol e-invoice as it is, in words that say what to fix; null when it can. */
export function ublRefusal(invoice: Invoice, seller: Seller): string | null {
  const what = `${invoice.number ?? 'The invoice'} to ${invoice.contactName} (${invoice.currency})`;
  if (minorUnits(invoice.currency) > 2)
    return `${what}: EN 16931 carries amounts with at most two decimals, and ${invoice.currency} has ${minorUnits(invoice.currency)}; send this invoice another way`;
  const sellerMissing = (['name', 'country', 'endpoint'] as const).filter((field) => !seller[field]);
  if (sellerMissing.length) return `${what}: the seller's ${sellerMissing.join(', ')} are not set (invoices settings --seller-…)`;
  const sellerCountry = countryCodeProblem(seller.country);
  if (sellerCountry) return `${what}: the seller's country ${sellerCountry} (invoices settings --seller-country)`;
  const categories = new Set(invoice.vat.map((entry) => entry.category));
  if (!seller.vatId && [...categories].some((category) => category !== 'O'))
    return `${what}: the seller's VAT id is not set (invoices settings --seller-vat-id)`;
  // BR-CO-26: a buyer finds the seller by its VAT id or its registration number; outside the scope of VAT there is no VAT id.
  if (!seller.companyId && [...categories].every((category) => category === 'O'))
    return `${what}: the seller's company registration number is not set (invoices settings --seller-company-id); outside the scope of VAT it is what identifies the seller`;
  const customer = `customer ${invoice.orgId}`;
  if (!invoice.buyer.endpoint) return `${what}: ${customer} has no e-invoice endpoint (Peppol id) in the mapping`;
  if (!invoice.buyer.country) return `${what}: ${customer} has no country in the mapping`;
  const buyerCountry = countryCodeProblem(invoice.buyer.country);
  if (buyerCountry) return `${what}: in the mapping, ${customer}'s country ${buyerCountry}`;
  if (!invoice.buyer.reference && !invoice.po) return `${what}: ${customer} has no buyer reference in the mapping (Peppol requires one, or a PO number)`;
  if ((categories.has('AE') || categories.has('K')) && !invoice.buyer.vatId)
    return `${what}: ${customer} is invoiced with reverse charge and needs its VAT id (buyerVatId) in the mapping`;
  if (categories.has('O') && categories.size > 1) return `${what}: a line outside the scope of VAT cannot share an invoice with VAT lines`;
  return null;
}

/** A line as a UBL line carries it: the price never negative (a negative amount has a negative quantity instead). */
function lineValues(line: InvoiceLine, sign: 1 | -1): { quantity: string; price: string; amount: string } {
  const amount = money(line.netAmount).times(sign);
  const price = money(line.unitPrice).times(sign);
  const quantity = money(line.quantity);
  return price.isNegative()
    ? { quantity: quantity.negated().toFixed(), price: price.negated().toFixed(), amount: amount.toFixed() }
    : { quantity: quantity.toFixed(), price: price.toFixed(), amount: amount.toFixed() };
}

/** One invoice as a UBL document; `period` is the month invoiced (YYYY-MM-DD…YYYY-MM-DD). */
export function ublInvoice(invoice: Invoice, seller: Seller, period: { start: string; end: string }): UblResult {
  const refused = ublRefusal(invoice, seller);
  if (refused) return { refused };
  const credit = invoice.kind === 'credit-note';
  const sign = credit ? -1 : 1;
  const places = minorUnits(invoice.currency);
  const amount = (name: string, value: string) => element(name, money(value).times(sign).toFixed(places), { currencyID: invoice.currency });
  const root = credit ? 'CreditNote' : 'Invoice';
  const categories = new Set(invoice.vat.map((entry) => entry.category));
  const outsideScope = categories.has('O');
  const category = (id: string, rate: string, reason: string) =>
    [
      element('cbc:ID', id),
      id === 'O' ? '' : element('cbc:Percent', money(rate).toFixed()),
      element('cbc:TaxExemptionReasonCode', id === 'S' || id === 'Z' ? '' : (EXEMPTION_CODES[id] ?? '')),
      element('cbc:TaxExemptionReason', id === 'S' || id === 'Z' ? '' : reason),
      wrap('cac:TaxScheme', element('cbc:ID', 'VAT')),
    ].join('');
  const lines = invoice.lines.map((line, index) => {
    const values = lineValues(line, sign);
    return wrap(
      credit ? 'cac:CreditNoteLine' : 'cac:InvoiceLine',
      element('cbc:ID', String(index + 1)),
      element(credit ? 'cbc:CreditedQuantity' : 'cbc:InvoicedQuantity', values.quantity, { unitCode: line.unitCode }),
      element('cbc:LineExtensionAmount', money(values.amount).toFixed(places), { currencyID: invoice.currency }),
      wrap(
        'cac:Item',
        element('cbc:Name', line.description),
        line.itemCode ? wrap('cac:SellersItemIdentification', element('cbc:ID', line.itemCode)) : '',
        wrap(
          'cac:ClassifiedTaxCategory',
          element('cbc:ID', line.vatCategory),
          line.vatCategory === 'O' ? '' : element('cbc:Percent', money(line.vatRate).toFixed()),
          wrap('cac:TaxScheme', element('cbc:ID', 'VAT')),
        ),
      ),
      wrap('cac:Price', element('cbc:PriceAmount', values.price, { currencyID: invoice.currency })),
    );
  });
  const intraCommunity = categories.has('K');
  const document = [
    '<?xml version="1.0" encoding="UTF-8"?>\n',
    `<${root} xmlns="urn:oasis:names:specification:ubl:schema:xsd:${root}-2" ${NAMESPACES}>`,
    element('cbc:CustomizationID', CUSTOMIZATION),
    element('cbc:ProfileID', PROFILE),
    element('cbc:ID', invoice.number ?? ''),
    element('cbc:IssueDate', invoice.invoiceDate),
    credit ? '' : element('cbc:DueDate', invoice.dueDate),
    element(credit ? 'cbc:CreditNoteTypeCode' : 'cbc:InvoiceTypeCode', credit ? '381' : '380'),
    element('cbc:Note', invoice.periodText),
    element('cbc:DocumentCurrencyCode', invoice.currency),
    element('cbc:BuyerReference', invoice.buyer.reference || invoice.po),
    wrap('cac:InvoicePeriod', element('cbc:StartDate', period.start), element('cbc:EndDate', period.end)),
    invoice.po ? wrap('cac:OrderReference', element('cbc:ID', invoice.po)) : '',
    invoice.replaces ? wrap('cac:BillingReference', wrap('cac:InvoiceDocumentReference', element('cbc:ID', invoice.replaces))) : '',
    wrap(
      'cac:AccountingSupplierParty',
      wrap(
        'cac:Party',
        endpoint(seller.endpoint),
        wrap('cac:PartyName', element('cbc:Name', seller.name)),
        wrap(
          'cac:PostalAddress',
          element('cbc:StreetName', seller.street),
          element('cbc:CityName', seller.city),
          element('cbc:PostalZone', seller.postcode),
          wrap('cac:Country', element('cbc:IdentificationCode', seller.country)),
        ),
        outsideScope ? '' : wrap('cac:PartyTaxScheme', element('cbc:CompanyID', seller.vatId), wrap('cac:TaxScheme', element('cbc:ID', 'VAT'))),
        wrap('cac:PartyLegalEntity', element('cbc:RegistrationName', seller.name), element('cbc:CompanyID', seller.companyId)),
      ),
    ),
    wrap(
      'cac:AccountingCustomerParty',
      wrap(
        'cac:Party',
        endpoint(invoice.buyer.endpoint),
        invoice.customerNumber ? wrap('cac:PartyIdentification', element('cbc:ID', invoice.customerNumber)) : '',
        wrap('cac:PartyName', element('cbc:Name', invoice.contactName)),
        wrap('cac:PostalAddress', wrap('cac:Country', element('cbc:IdentificationCode', invoice.buyer.country))),
        outsideScope || !invoice.buyer.vatId
          ? ''
          : wrap('cac:PartyTaxScheme', element('cbc:CompanyID', invoice.buyer.vatId), wrap('cac:TaxScheme', element('cbc:ID', 'VAT'))),
        wrap('cac:PartyLegalEntity', element('cbc:RegistrationName', invoice.contactName)),
      ),
    ),
    intraCommunity
      ? wrap('cac:Delivery', wrap('cac:DeliveryLocation', wrap('cac:Address', wrap('cac:Country', element('cbc:IdentificationCode', invoice.buyer.country)))))
      : '',
    seller.iban ? wrap('cac:PaymentMeans', element('cbc:PaymentMeansCode', '30'), wrap('cac:PayeeFinancialAccount', element('cbc:ID', seller.iban))) : '',
    credit ? '' : wrap('cac:PaymentTerms', element('cbc:Note', `Due ${invoice.dueDate}`)),
    wrap(
      'cac:TaxTotal',
      amount('cbc:TaxAmount', invoice.vatTotal),
      ...invoice.vat.map((entry) =>
        wrap(
          'cac:TaxSubtotal',
          amount('cbc:TaxableAmount', entry.taxable),
          amount('cbc:TaxAmount', entry.amount),
          wrap('cac:TaxCategory', category(entry.category, entry.rate, entry.exemptionReason)),
        ),
      ),
    ),
    wrap(
      'cac:LegalMonetaryTotal',
      amount('cbc:LineExtensionAmount', invoice.netTotal),
      amount('cbc:TaxExclusiveAmount', invoice.netTotal),
      amount('cbc:TaxInclusiveAmount', invoice.grossTotal),
      amount('cbc:PayableAmount', invoice.grossTotal),
    ),
    ...lines,
    `</${root}>\n`,
  ].join('');
  return { name: `${(invoice.number ?? 'draft').replace(/[^A-Za-z0-9._-]/g, '_')}.xml`, content: document };
}
