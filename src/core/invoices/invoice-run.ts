import { minorUnits } from '@shared/currency';
import { Money, money } from '@shared/money';
import { monthInWords } from '@shared/model/month-in-words';
import type {
  CurrencyAmount,
  CurrencyRounding,
  CustomerMapping,
  Invoice,
  InvoiceLine,
  InvoiceMapping,
  InvoiceRunDraft,
  ItemMapping,
  LoggedAdjustment,
  ItemMatch,
  UnmappedCustomer,
  UnmappedItem,
  VatBreakdown,
  VatCategory,
} from '@shared/schemas/invoices';
import { allocateRounded, allocateUnits } from './rounding';
import { atCommonScale, dividedHalfUp, type Fixed, fixed, fixedText, shortestText, tenTo, unitsAt } from './fixed-point';
import { itemKey, looksLikeFormula } from './mapping-store';
import type { InvoiceLineRow, UnmappedCustomerRow, UnmappedItemRow } from './queries';

export type { CurrencyAmount, CurrencyRounding, Invoice, InvoiceLine, InvoiceRunDraft, UnmappedCustomer, UnmappedItem, VatBreakdown };

/** An exact amount's text with its sign turned ("12.50" → "-12.50", "-3" → "3"; a zero stays as it is). */
export const negatedText = (amount: string) => (amount.startsWith('-') ? amount.slice(1) : /^0(\.0+)?$/.test(amount) ? amount : `-${amount}`);

/** "Cloud services October 2026" for a period starting 2026-10-01. */
export function periodText(periodStart: string): string {
  return `Cloud services ${monthInWords(periodStart)}`;
}

/** YYYY-MM-DD plus `days` calendar days. */
export function addDays(date: string, days: number): string {
  const at = new Date(`${date}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() + days);
  return at.toISOString().slice(0, 10);
}

/** Quantities a file can carry (Xero and QuickBooks take at most 4 decimals). */
const FILE_QUANTITY = /^-?\d+(\.\d{1,4})?$/;

/**
 * The quantity and unit price a file carries for a line: the real quantity and a unit price at the currency's minor
 * unit when their product, rounded, is the net amount exactly (what an accounting system computes back); else 1 ×
 * the net amount, the real quantity kept in the description. `quantity` is the real one; `netAmount` is at the minor
 * unit.
 */
function quantityAndPrice(quantity: Fixed, netAmount: string, currency: string): { quantity: string; unitPrice: string; exact: boolean } {
  const places = minorUnits(currency);
  const net = unitsAt(fixed(netAmount), places);
  const plain = shortestText(quantity);
  if (quantity.units !== 0n && FILE_QUANTITY.test(plain)) {
    // net ÷ quantity at the minor unit: (N / 10^p) ÷ (Q / 10^s) = N × 10^s / Q units of 10^-p.
    const sign = quantity.units < 0n ? -1n : 1n;
    const price = dividedHalfUp(net * tenTo(quantity.scale) * sign, quantity.units * sign);
    if (dividedHalfUp(quantity.units * price, tenTo(quantity.scale)) === net) return { quantity: plain, unitPrice: fixedText(price, places), exact: true };
  }
  return { quantity: '1', unitPrice: fixedText(net, places), exact: false };
}

/** The VAT a customer's line carries: the item's, unless the customer's treatment overrides it. */
function vatOf(item: ItemMapping, customer: CustomerMapping): { category: VatCategory; rate: string; reason: string; taxCode: string } {
  if (customer.vatTreatment === 'reverse-charge') return { category: 'AE', rate: '0', reason: 'Reverse charge', taxCode: customer.taxCode };
  if (customer.vatTreatment === 'outside-scope') return { category: 'O', rate: '0', reason: 'Not subject to VAT', taxCode: customer.taxCode };
  return { category: item.vatCategory, rate: shortestText(fixed(item.vatRate)), reason: item.exemptionReason, taxCode: item.taxCode };
}

interface RunContext {
  periodStart: string;
  invoiceDate: string;
  linesPer: 'subscription' | 'product';
}

/** What no mapping reaches yet, summed by the ledger: customers (per currency) and products. */
export interface Unmapped {
  customers: readonly UnmappedCustomerRow[];
  items: readonly UnmappedItemRow[];
}

/**
 * The month's invoices from the invoice lines of its mapped customers and the mapping: one per customer, currency
 * (and PO number, when split), every line of it rounded so the lines add up to the invoice's total exactly — the
 * exact sum of its sales rounded once, as the Invoicing view shows it — and its VAT per category. A customer or a
 * line that is not mapped is listed, never invoiced; amounts never move between customers.
 */
export function buildInvoiceRun(
  given: readonly InvoiceLineRow[],
  unmapped: Unmapped,
  mapping: InvoiceMapping,
  context: RunContext,
  logged: readonly LoggedAdjustment[] = [],
): InvoiceRunDraft {
  const invoices: Invoice[] = [];
  const {
    periodText: text,
    invoiceDate,
    unmappedCustomers,
    unmappedItems,
    refusals,
    adjustments,
  } = makeInvoices(given, unmapped, mapping, context, logged, (invoice) => invoices.push(invoice));
  // The draft's own order of fields (its JSON as the command line prints it).
  return { periodText: text, invoiceDate, invoices, unmappedCustomers, unmappedItems, refusals, currencies: currencyRounding(invoices), adjustments };
}

/**
 * buildInvoiceRun's invoices, each handed to `take` as it is made, in the run's order, and not kept here; the run
 * without them. An export numbers and keeps each as it comes (invoice-store.ts: RunParts), so a million-line
 * month's 10,000 invoices (half a gigabyte as objects) are never held at once.
 */
export function makeInvoices(
  given: readonly InvoiceLineRow[],
  unmapped: Unmapped,
  mapping: InvoiceMapping,
  context: RunContext,
  logged: readonly LoggedAdjustment[],
  take: (invoice: Invoice) => void,
): Omit<InvoiceRunDraft, 'invoices' | 'currencies'> {
  const refusals = new Set<string>();
  const adjustments = inForce(logged);
  const waiting = new Set(unmapped.customers.map((row) => `${row.org_id}|${row.currency}`));
  const rows = adjusted(given, adjustments, waiting, refusals);
  const customers = new Map(mapping.customers.map((customer) => [customer.orgId, customer]));
  const items = new Map(mapping.items.map((item) => [itemKey(item), item]));
  const text = periodText(context.periodStart);
  const groups = new Map<string, InvoiceLineRow[]>();
  for (const row of rows) {
    const key = `${row.org_key}|${row.currency}|${row.po}`;
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  for (const lines of groups.values()) {
    const first = lines[0] as InvoiceLineRow;
    const customer = customers.get(first.org_id) as CustomerMapping;
    // A customer with a line that is not mapped is not invoiced in part: it waits until every item is mapped.
    if (lines.some((line) => !line.item_match)) continue;
    take(invoiceOf(lines, customer, items, context, text, refusals));
  }
  return {
    periodText: text,
    invoiceDate: context.invoiceDate,
    ...listed(unmapped),
    refusals: [...refusals],
    adjustments,
  };
}

/** The adjustments that apply: every one not withdrawn by a later one (withdrawals themselves stay out). */
export function inForce(logged: readonly LoggedAdjustment[]): LoggedAdjustment[] {
  const withdrawn = new Set(logged.flatMap((entry) => (entry.adjustment.kind === 'withdraw' ? [entry.adjustment.withdraws] : [])));
  return logged.filter((entry) => entry.adjustment.kind !== 'withdraw' && !withdrawn.has(entry.adjustment.id));
}

/**
 * The month's invoice lines with the adjustments made: an excluded line left out, a manual line added to its
 * customer's lines in that currency. One that no longer finds its customer or line (a refetch changed them) is
 * refused with its reason, never applied elsewhere. One of a customer that has lines in that currency but is not
 * mapped now (`waiting`: org id and currency) waits: that customer is not invoiced, and the run lists it to map.
 */
function adjusted(
  rows: readonly InvoiceLineRow[],
  adjustments: readonly LoggedAdjustment[],
  waiting: ReadonlySet<string>,
  refusals: Set<string>,
): InvoiceLineRow[] {
  const excluded = new Set<string>();
  const added: InvoiceLineRow[] = [];
  for (const { adjustment, reason } of adjustments) {
    if (adjustment.kind === 'withdraw' || waiting.has(`${adjustment.orgId}|${adjustment.currency}`)) continue;
    if (adjustment.kind === 'exclude') {
      const found = rows.some((row) => row.org_id === adjustment.orgId && row.currency === adjustment.currency && row.line_key === adjustment.lineKey);
      if (found) excluded.add(`${adjustment.orgId}|${adjustment.currency}|${adjustment.lineKey}`);
      else refusals.add(`adjustment ${adjustment.id} ("${reason}"): the line it excludes is not in this fetch any more; withdraw it`);
    } else {
      const customer = rows.find((row) => row.org_id === adjustment.orgId && row.currency === adjustment.currency);
      if (!customer) {
        refusals.add(
          `adjustment ${adjustment.id} ("${reason}"): customer ${adjustment.orgId} has nothing to invoice in ${adjustment.currency} this month; withdraw it`,
        );
        continue;
      }
      const [match, ...id] = adjustment.item.split(':');
      added.push({
        ...customer,
        item_match: match as ItemMatch,
        item_id: id.join(':'),
        description: adjustment.description,
        products: 1,
        quantity: '1',
        unit_price: adjustment.amount,
        sales: adjustment.amount,
        lines: 0,
        first_line: Number.MAX_SAFE_INTEGER,
        line_key: `adjustment:${adjustment.id}`,
        adjustment: adjustment.id,
      });
    }
  }
  const kept = rows.filter((row) => !excluded.has(`${row.org_id}|${row.currency}|${row.line_key}`));
  // Each added line goes after its customer's own lines in that currency (the invoice lists the service's first).
  const result = [...kept];
  for (const line of added) {
    const last = result.findLastIndex((row) => row.org_key === line.org_key && row.currency === line.currency && row.po === line.po);
    result.splice(last + 1, 0, line);
  }
  return result;
}

function addAmount(amounts: CurrencyAmount[], currency: string, amount: string): void {
  const found = amounts.find((entry) => entry.currency === currency);
  if (found) found.amount = money(found.amount).plus(amount).toFixed();
  else amounts.push({ currency, amount: money(amount).toFixed() });
}

/** What is not mapped as the run lists it: a customer once (with its amount per currency), a product once. */
export function listed(unmapped: Unmapped): Pick<InvoiceRunDraft, 'unmappedCustomers' | 'unmappedItems'> {
  return { unmappedCustomers: unmappedCustomersOf(unmapped.customers), unmappedItems: unmappedItemsOf(unmapped.items) };
}

/** One entry per organization (its rows come per currency, in the order organizations are listed). */
function unmappedCustomersOf(rows: readonly UnmappedCustomerRow[]): UnmappedCustomer[] {
  const customers = new Map<string, UnmappedCustomer>();
  for (const row of rows) {
    const customer = customers.get(row.org_key) ?? {
      orgKey: row.org_key,
      orgId: row.org_id,
      organization: row.organization,
      customerNumber: row.customer_number,
      lines: 0,
      amounts: [],
      problem: row.org_id ? null : 'the service gives this organization no id, so it cannot be mapped; give it one at the service',
    };
    customer.lines += row.lines;
    addAmount(customer.amounts, row.currency, row.sales);
    customers.set(row.org_key, customer);
  }
  return [...customers.values()];
}

/** One entry per product (its rows come per currency, in the order to map them). */
function unmappedItemsOf(rows: readonly UnmappedItemRow[]): UnmappedItem[] {
  const items = new Map<string, UnmappedItem>();
  for (const row of rows) {
    const key = `${row.product_id}|${row.item_code}|${row.service_id}`;
    const item = items.get(key) ?? {
      productId: row.product_id,
      productName: row.product_name,
      itemCode: row.item_code,
      serviceId: row.service_id,
      serviceName: row.service_name,
      lines: 0,
      amounts: [],
    };
    item.lines += row.lines;
    addAmount(item.amounts, row.currency, row.sales);
    items.set(key, item);
  }
  return [...items.values()];
}

function invoiceOf(
  rows: InvoiceLineRow[],
  customer: CustomerMapping,
  items: Map<string, ItemMapping>,
  context: RunContext,
  text: string,
  refusals: Set<string>,
): Invoice {
  const first = rows[0] as InvoiceLineRow;
  const { currency } = first;
  const { amounts, total } = allocateRounded(
    rows.map((row) => row.sales),
    currency,
  );
  if (looksLikeFormula(customer.contactName)) refusals.add(`customer ${customer.orgId}: contact name "${customer.contactName}" begins like a formula`);
  const lines = rows.map((row, index): InvoiceLine => {
    const item = items.get(itemKey({ match: row.item_match as ItemMatch, id: row.item_id ?? '' })) as ItemMapping;
    const vat = vatOf(item, customer);
    const netAmount = amounts[index] as string;
    const realQuantity = fixed(row.quantity);
    const shown = quantityAndPrice(realQuantity, netAmount, currency);
    const name = item.description || row.description;
    if (looksLikeFormula(name))
      refusals.add(`item ${itemKey(item)}: the description "${name}" begins like a formula; give the item a description in the mapping`);
    const several = context.linesPer === 'subscription' && row.products > 1 ? `, ${row.products} products` : '';
    const description = shown.exact && !several ? name : `${name} (quantity ${shortestText(realQuantity)}${several})`;
    return {
      description,
      quantity: shown.quantity,
      unitPrice: shown.unitPrice,
      netAmount,
      exactAmount: row.sales,
      realQuantity: shortestText(realQuantity),
      itemCode: item.itemCode,
      account: item.account,
      taxCode: vat.taxCode,
      vatCategory: vat.category,
      vatRate: vat.rate,
      exemptionReason: vat.reason,
      vatAmount: '0',
      unitCode: item.unitCode,
      item: itemKey(item),
      billingLines: row.lines,
      lineKey: row.line_key,
      ...(row.adjustment ? { adjustment: row.adjustment } : {}),
    };
  });
  if (customer.vatTreatment !== 'domestic' && !customer.taxCode)
    refusals.add(`customer ${customer.orgId}: a ${customer.vatTreatment} customer needs the accounting system's tax code for its lines (customerTaxCode)`);
  const vat = vatBreakdown(lines, currency);
  const vatTotal = vat.reduce((sum, entry) => sum.plus(entry.amount), money(0));
  const places = minorUnits(currency);
  return {
    number: null,
    kind: money(total).isNegative() ? 'credit-note' : 'invoice',
    orgKey: first.org_key,
    orgId: customer.orgId,
    organization: first.organization,
    contactName: customer.contactName,
    customerNumber: customer.customerNumber || first.customer_number,
    buyer: { vatId: customer.buyerVatId, country: customer.country, endpoint: customer.endpoint, reference: customer.buyerReference },
    currency,
    po: first.po,
    invoiceDate: context.invoiceDate,
    dueDate: addDays(context.invoiceDate, customer.paymentTermsDays),
    periodText: first.po ? `${text}, PO ${first.po}` : text,
    lines,
    exactTotal: exactSum(rows.map((row) => row.sales)),
    netTotal: total,
    vat,
    vatTotal: vatTotal.toFixed(places),
    grossTotal: money(total).plus(vatTotal).toFixed(places),
  };
}

/**
 * VAT per category and rate: the taxable amount is the sum of its lines' net amounts, its VAT that times the rate,
 * rounded once (EN 16931 BR-CO-17); each line's share is allocated by largest remainder, so the lines' VAT adds up
 * to the category's. Sets each line's vatAmount.
 */
function vatBreakdown(lines: InvoiceLine[], currency: string): VatBreakdown[] {
  const byCategory = new Map<string, InvoiceLine[]>();
  for (const line of lines) {
    const key = `${line.vatCategory}|${line.vatRate}|${line.exemptionReason}`;
    const group = byCategory.get(key);
    if (group) group.push(line);
    else byCategory.set(key, [line]);
  }
  const places = minorUnits(currency);
  return [...byCategory.values()].map((group) => {
    const { vatCategory: category, vatRate: rate, exemptionReason } = group[0] as InvoiceLine;
    const nets = group.map((line) => unitsAt(fixed(line.netAmount), places));
    const taxable = nets.reduce((sum, net) => sum + net, 0n);
    // Each line's exact share, net × rate ÷ 100: units of 10^-(places + the rate's decimals + 2).
    const percent = fixed(rate);
    const { amounts, total } = allocateUnits(
      nets.map((net) => net * percent.units),
      places + percent.scale + 2,
      currency,
    );
    group.forEach((line, index) => (line.vatAmount = amounts[index] as string));
    return { category, rate, exemptionReason: category === 'S' ? '' : exemptionReason, taxable: fixedText(taxable, places), amount: total };
  });
}

/** The exact sum of decimals, as its shortest text. */
function exactSum(amounts: readonly string[]): string {
  const { units, scale } = atCommonScale(amounts);
  return shortestText({ units: units.reduce((sum, value) => sum + value, 0n), scale });
}

function currencyRounding(invoices: readonly Invoice[]): CurrencyRounding[] {
  const byCurrency = new Map<string, Invoice[]>();
  for (const invoice of invoices) byCurrency.set(invoice.currency, [...(byCurrency.get(invoice.currency) ?? []), invoice]);
  return [...byCurrency.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, group]) => {
      const places = minorUnits(currency);
      const exact = group.reduce((sum, invoice) => sum.plus(invoice.exactTotal), money(0));
      const roundedOnce = exact.toDecimalPlaces(places, Money.ROUND_HALF_UP);
      const invoiced = group.reduce((sum, invoice) => sum.plus(invoice.netTotal), money(0));
      const difference = invoiced.minus(roundedOnce);
      const unit = money(1).dividedBy(money(10).pow(places)).toFixed(places);
      return {
        currency,
        invoices: group.length,
        exactTotal: exact.toFixed(),
        roundedOnce: roundedOnce.toFixed(places),
        invoiced: invoiced.toFixed(places),
        roundingDifference: difference.toFixed(places),
        explanation: difference.isZero()
          ? `${group.length === 1 ? 'The invoice is' : `The ${group.length} invoices add up to`} the exact total rounded once.`
          : `Each of the ${group.length} invoices is its customer's exact amount rounded on its own (to ${unit} ${currency}); no amount moves between customers, so their sum differs from the exact total rounded once by ${difference.toFixed(places)} ${currency}.`,
      };
    });
}
