import { z } from 'zod';
import { OptionalCountryCode } from './common';

/**
 * Invoices out: how the month's customers and products map to the accounting system's codes, and the invoice run
 * made from a month ready to invoice — as the renderer, the CLI and the mapping CSV see them.
 */

/** How VAT applies to a customer: the item's domestic rate, EU reverse charge (AE), or outside the scope of VAT (O). */
export const VatTreatment = z.enum(['domestic', 'reverse-charge', 'outside-scope']);
export type VatTreatment = z.infer<typeof VatTreatment>;

/** UNCL 5305 VAT category codes that EN 16931 allows. */
export const VatCategory = z.enum(['S', 'Z', 'E', 'AE', 'K', 'G', 'O', 'L', 'M']);
export type VatCategory = z.infer<typeof VatCategory>;

const text = (max: number) => z.string().trim().max(max);
/** A VAT rate in percent as exact text: 25, 12.5, 0. */
export const VatRate = z
  .string()
  .trim()
  .regex(/^\d{1,3}(\.\d{1,4})?$/, 'a VAT rate is a percentage like 25 or 12.5');

/** One customer (an organization of the service, by its id) as the accounting system knows it. */
export const CustomerMapping = z.object({
  orgId: text(200).min(1),
  /** The contact's name exactly as the accounting system has it (Xero matches contacts by exact name). */
  contactName: text(255).min(1),
  customerNumber: text(100).default(''),
  paymentTermsDays: z.number().int().min(0).max(365),
  vatTreatment: VatTreatment,
  buyerVatId: text(50).default(''),
  /** ISO 3166-1 alpha-2. */
  country: OptionalCountryCode.default(''),
  /** Peppol endpoint as scheme:id (0007:5567321707). */
  endpoint: z
    .string()
    .trim()
    .regex(/^(\d{4}:[^\s]{1,100})?$/, 'an e-invoice endpoint is a Peppol scheme and id like 0007:5567321707')
    .default(''),
  buyerReference: text(200).default(''),
  /** The accounting system's tax code for this customer's lines when its treatment is not domestic (reverse charge, outside scope). */
  taxCode: text(100).default(''),
});
export type CustomerMapping = z.infer<typeof CustomerMapping>;

/** What an item mapping is keyed by, most specific first: a product id, an item code, a service id (the service's default). */
export const ItemMatch = z.enum(['product', 'item-code', 'service']);
export type ItemMatch = z.infer<typeof ItemMatch>;

/** What a product is invoiced as: the accounting system's item, revenue account and tax code, and its VAT. */
export const ItemMapping = z
  .object({
    match: ItemMatch,
    id: text(200).min(1),
    /** The accounting system's item (Xero InventoryItemCode, QuickBooks Product/Service); may be empty. */
    itemCode: text(100).default(''),
    account: text(50).min(1, 'an item needs the revenue account it is booked to'),
    /** The accounting system's tax code or rate name (Xero TaxType, QuickBooks Item tax code). */
    taxCode: text(100).min(1, 'an item needs the tax code of the accounting system'),
    vatCategory: VatCategory,
    vatRate: VatRate,
    /** Why a line carries no VAT, where its category needs one (E, and others by the buyer's country). */
    exemptionReason: text(300).default(''),
    /** UN/ECE Recommendation 20 unit code: C62 (one), HUR (hour), MON (month). */
    unitCode: z
      .string()
      .trim()
      .regex(/^[A-Z0-9]{2,3}$/, 'a unit code is a UN/ECE Recommendation 20 code like C62 or HUR')
      .default('C62'),
    /** Replaces the service's product name on the invoice, when it should read otherwise. */
    description: text(300).default(''),
  })
  .superRefine((item, context) => {
    if (item.vatCategory === 'S' && Number(item.vatRate) === 0)
      context.addIssue({ code: 'custom', path: ['vatRate'], message: 'a standard-rated (S) item needs a rate above 0' });
    if (item.vatCategory !== 'S' && Number(item.vatRate) !== 0)
      context.addIssue({ code: 'custom', path: ['vatRate'], message: `a ${item.vatCategory} item carries a rate of 0` });
    if (item.vatCategory === 'E' && !item.exemptionReason)
      context.addIssue({ code: 'custom', path: ['exemptionReason'], message: 'an exempt (E) item needs the reason it is exempt' });
  });
export type ItemMapping = z.infer<typeof ItemMapping>;

export const InvoiceMapping = z.object({ customers: z.array(CustomerMapping), items: z.array(ItemMapping) });
export type InvoiceMapping = z.infer<typeof InvoiceMapping>;

/** How dates are written in an import file: as the accounting system's region reads them. */
export const DATE_FORMATS = ['DD/MM/YYYY', 'MM/DD/YYYY', 'YYYY-MM-DD', 'DD.MM.YYYY'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

/** The Broker as the seller on an e-invoice (EN 16931): who issues the invoices, and where they are paid. */
export const Seller = z.object({
  name: text(200).default(''),
  /** VAT identifier with its country prefix (SE556677889901). */
  vatId: text(50).default(''),
  /** The legal registration number (organisation number). */
  companyId: text(50).default(''),
  country: OptionalCountryCode.default(''),
  street: text(200).default(''),
  city: text(100).default(''),
  postcode: text(20).default(''),
  /** The seller's Peppol endpoint as scheme:id (0007:5567321707). */
  endpoint: z
    .string()
    .trim()
    .regex(/^(\d{4}:[^\s]{1,100})?$/, 'an e-invoice endpoint is a Peppol scheme and id like 0007:5567321707')
    .default(''),
  /** Where customers pay (credit transfer), printed on the e-invoice. */
  iban: text(34).default(''),
});
export type Seller = z.infer<typeof Seller>;

/** What a column of the user's own template may carry: of the invoice, or (one row per line) of its line. */
export const INVOICE_FIELDS = [
  'invoiceNumber',
  'kind',
  'contactName',
  'customerNumber',
  'orgId',
  'invoiceDate',
  'dueDate',
  'periodText',
  'currency',
  'po',
  'buyerVatId',
  'country',
  'netTotal',
  'vatTotal',
  'grossTotal',
] as const;
export const LINE_FIELDS = [
  'lineNumber',
  'description',
  'quantity',
  'unitPrice',
  'netAmount',
  'vatAmount',
  'vatCategory',
  'vatRate',
  'itemCode',
  'account',
  'taxCode',
  'unitCode',
] as const;

/** An import file of the user's own, for any other accounting system: its columns, their order, dates and decimals. */
export const InvoiceTemplate = z
  .object({
    name: text(80).min(1),
    rowsPer: z.enum(['line', 'invoice']),
    dateFormat: z.enum(DATE_FORMATS),
    decimalSeparator: z.enum(['.', ',']),
    delimiter: z.enum([',', ';', 'tab']),
    columns: z
      .array(z.object({ header: text(100).min(1), field: z.enum([...INVOICE_FIELDS, ...LINE_FIELDS]) }))
      .min(1)
      .max(60),
  })
  .superRefine((template, context) => {
    if (template.rowsPer === 'invoice')
      template.columns.forEach((column, index) => {
        if ((LINE_FIELDS as readonly string[]).includes(column.field))
          context.addIssue({
            code: 'custom',
            path: ['columns', index, 'field'],
            message: `${column.field} is a line's; a file with a row per invoice has none`,
          });
      });
    if (template.decimalSeparator === ',' && template.delimiter === ',')
      context.addIssue({ code: 'custom', path: ['delimiter'], message: 'a decimal comma needs another delimiter (; or tab)' });
  });
export type InvoiceTemplate = z.infer<typeof InvoiceTemplate>;

/** The number the next invoice takes, as a person may set it (the sequence's own moves are the exports'). */
export const NextInvoiceNumber = z.number().min(1, 'is at least 1').max(999_999_999, 'is at most 999,999,999').int('is a whole number');

/** How a Broker's invoices are made and numbered; the next number is kept beside them and moved only by an export. */
export const InvoiceSettings = z.object({
  prefix: z
    .string()
    .trim()
    .max(20)
    .regex(/^([A-Za-z0-9][A-Za-z0-9/_.-]*)?$/, 'a prefix is letters, digits and - / _ . (not starting with a sign)'),
  dateFormat: z.enum(DATE_FORMATS),
  /** An invoice line per subscription, or per product and unit price. */
  linesPer: z.enum(['subscription', 'product']),
  /** One invoice per PO number of a customer, rather than one per customer and currency. */
  splitByPo: z.boolean(),
  seller: Seller.prefault({}),
  template: InvoiceTemplate.nullable().default(null),
});
export type InvoiceSettings = z.infer<typeof InvoiceSettings>;

export const InvoiceFormat = z.enum(['xero', 'qbo', 'ubl', 'template']);
export type InvoiceFormat = z.infer<typeof InvoiceFormat>;

/**
 * A change to the month's invoices made by hand, with its reason; kept as an entry of the month's close log (who and
 * when are the log's), so it is logged with the month and cannot be edited — a withdrawal is an adjustment too.
 * - manual: a line added to a customer's invoice in a currency, booked as the item `item` ("service:…") says;
 * - exclude: an invoice line (by its `lineKey`) left out of the customer's invoice;
 * - withdraw: an earlier adjustment (by id) no longer applies.
 */
const ManualAdjustment = z.object({
  kind: z.literal('manual'),
  orgId: text(200).min(1),
  currency: z.string().regex(/^[A-Z]{3}$/, 'a currency is a three-letter code like SEK'),
  description: text(300).min(1),
  amount: z.string().regex(/^-?\d{1,15}(\.\d{1,6})?$/, 'an amount is a decimal like 1250.00 or -99.5'),
  item: text(300).min(1),
});
const ExcludeAdjustment = z.object({
  kind: z.literal('exclude'),
  orgId: text(200).min(1),
  currency: z.string(),
  lineKey: text(600).min(1),
  /** The line as it read when it was left out, for people (the key is what matches it). */
  label: text(300).optional(),
});
const WithdrawAdjustment = z.object({ kind: z.literal('withdraw'), withdraws: z.string().uuid() });

/** An adjustment as asked for: its id is given when it is logged. */
export const AdjustmentInput = z.discriminatedUnion('kind', [ManualAdjustment, ExcludeAdjustment, WithdrawAdjustment]);
export type AdjustmentInput = z.infer<typeof AdjustmentInput>;

const id = { id: z.string().uuid() };
export const InvoiceAdjustment = z.discriminatedUnion('kind', [ManualAdjustment.extend(id), ExcludeAdjustment.extend(id), WithdrawAdjustment.extend(id)]);
export type InvoiceAdjustment = z.infer<typeof InvoiceAdjustment>;

/** An adjustment as the month's log has it: with its reason, who made it and when. */
export const LoggedAdjustment = z.object({ adjustment: InvoiceAdjustment, reason: z.string(), by: z.string(), at: z.string(), seq: z.number().int() });
export type LoggedAdjustment = z.infer<typeof LoggedAdjustment>;

const Decimal = z.string();

/** One line of an invoice as the files carry it: the net amount rounded so the lines add up to the invoice's total. */
export const InvoiceLine = z.object({
  description: z.string(),
  /** What the files carry: the real quantity when quantity × unit price gives the net amount, else 1. */
  quantity: Decimal,
  unitPrice: Decimal,
  netAmount: Decimal,
  /** The exact sum of the line's billing lines' sales, before rounding. */
  exactAmount: Decimal,
  realQuantity: Decimal,
  itemCode: z.string(),
  account: z.string(),
  taxCode: z.string(),
  vatCategory: VatCategory,
  vatRate: Decimal,
  exemptionReason: z.string(),
  vatAmount: Decimal,
  unitCode: z.string(),
  /** The item mapping the line took ("product:P-1"), and how many billing lines it sums. */
  item: z.string(),
  billingLines: z.number().int(),
  /** What an adjustment names the line by, the same in every fetch: its subscription (or product and price) and item. */
  lineKey: z.string(),
  /** The adjustment that added the line by hand, if one did. */
  adjustment: z.string().optional(),
});
export type InvoiceLine = z.infer<typeof InvoiceLine>;

/** VAT per category and rate, as EN 16931 requires it: the taxable amount and its VAT, rounded once per category. */
export const VatBreakdown = z.object({ category: VatCategory, rate: Decimal, exemptionReason: z.string(), taxable: Decimal, amount: Decimal });
export type VatBreakdown = z.infer<typeof VatBreakdown>;

export const Invoice = z.object({
  /** Given when the run is exported (numbering); null in a draft. */
  number: z.string().nullable(),
  kind: z.enum(['invoice', 'credit-note']),
  /** The invoice a credit note cancels (after a change to an exported run). */
  replaces: z.string().nullable().optional(),
  orgKey: z.string(),
  orgId: z.string(),
  organization: z.string(),
  contactName: z.string(),
  customerNumber: z.string(),
  /** What an e-invoice needs of the buyer, from the customer's mapping. */
  buyer: z.object({ vatId: z.string(), country: z.string(), endpoint: z.string(), reference: z.string() }),
  currency: z.string(),
  po: z.string(),
  invoiceDate: z.string(),
  dueDate: z.string(),
  periodText: z.string(),
  lines: z.array(InvoiceLine),
  exactTotal: Decimal,
  netTotal: Decimal,
  vat: z.array(VatBreakdown),
  vatTotal: Decimal,
  grossTotal: Decimal,
});
export type Invoice = z.infer<typeof Invoice>;

/** An amount to invoice in one currency (exact, before rounding). */
export const CurrencyAmount = z.object({ currency: z.string(), amount: Decimal });
export type CurrencyAmount = z.infer<typeof CurrencyAmount>;

/** A customer the mapping does not have: what it would be invoiced, per currency. */
export const UnmappedCustomer = z.object({
  orgKey: z.string(),
  orgId: z.string(),
  organization: z.string(),
  customerNumber: z.string(),
  lines: z.number().int(),
  amounts: z.array(CurrencyAmount),
  /** Why it cannot be mapped as it is, when it cannot (no organization id). */
  problem: z.string().nullable(),
});
export type UnmappedCustomer = z.infer<typeof UnmappedCustomer>;

/** A product no item mapping reaches (by product id, item code or its service): its lines and sales per currency. */
export const UnmappedItem = z.object({
  productId: z.string(),
  productName: z.string(),
  itemCode: z.string(),
  serviceId: z.string(),
  serviceName: z.string(),
  lines: z.number().int(),
  amounts: z.array(CurrencyAmount),
});
export type UnmappedItem = z.infer<typeof UnmappedItem>;

/** Per currency: the invoices' net totals beside the exact sum rounded once, and why they differ. */
export const CurrencyRounding = z.object({
  currency: z.string(),
  invoices: z.number().int(),
  exactTotal: Decimal,
  roundedOnce: Decimal,
  invoiced: Decimal,
  roundingDifference: Decimal,
  explanation: z.string(),
});
export type CurrencyRounding = z.infer<typeof CurrencyRounding>;

export const InvoiceRunDraft = z.object({
  periodText: z.string(),
  invoiceDate: z.string(),
  invoices: z.array(Invoice),
  unmappedCustomers: z.array(UnmappedCustomer),
  unmappedItems: z.array(UnmappedItem),
  /** Values the files would carry that a spreadsheet would run as a formula, each naming the mapping entry to fix. */
  refusals: z.array(z.string()),
  currencies: z.array(CurrencyRounding),
  /** The adjustments in force (withdrawn ones left out), oldest first. */
  adjustments: z.array(LoggedAdjustment),
});
export type InvoiceRunDraft = z.infer<typeof InvoiceRunDraft>;

export const InvoiceRunView = InvoiceRunDraft.extend({
  reportId: z.string(),
  /** The month close's stamp: whether it may be invoiced, in the words every file repeats. */
  readiness: z.object({
    word: z.enum(['DRAFT', 'PREPARED', 'APPROVED', 'CHANGED AFTER SIGN-OFF']),
    line: z.string(),
    ready: z.boolean(),
    openSinceSignOff: z.number().int(),
  }),
  /** Why the run cannot be exported now, each in words that say what to do; empty when it can. */
  blockers: z.array(z.string()),
  /**
   * After an export, how many invoices the next one would issue (credit notes and new invoices for what changed since);
   * null before the first.
   */
  changedSinceExport: z.number().int().nullable(),
  /** The runs already exported for the month, oldest first. */
  exported: z.array(
    z.object({
      runId: z.string(),
      firstNumber: z.string(),
      lastNumber: z.string(),
      exportedAt: z.string(),
      exportedBy: z.string(),
      invoices: z.number().int(),
    }),
  ),
});
export type InvoiceRunView = z.infer<typeof InvoiceRunView>;

/**
 * An invoice as the Invoices tab lists it: without its lines (a month of a million billing lines has 600,000 invoice
 * lines, 327 MB as JSON), which are asked for when the invoice is opened ('invoices:lines').
 */
export const InvoiceSummary = Invoice.omit({ lines: true }).extend({ lineCount: z.number().int() });
export type InvoiceSummary = z.infer<typeof InvoiceSummary>;

/** The month's run as the Invoices tab shows it: each invoice summed, and the items its lines are booked as. */
export const InvoiceRunOverview = InvoiceRunView.omit({ invoices: true }).extend({
  invoices: z.array(InvoiceSummary),
  /** Each item the invoices' lines take, with the account and tax code it books them to: what a manual line may be. */
  items: z.array(z.object({ item: z.string(), account: z.string(), taxCode: z.string() })),
});
export type InvoiceRunOverview = z.infer<typeof InvoiceRunOverview>;

/** Names one invoice of a month's run: its customer, currency and PO number (when invoices are split by PO). */
export const InvoiceKey = z.object({ orgId: z.string().max(200), orgKey: z.string().max(400), currency: z.string().max(10), po: z.string().max(200) });
export type InvoiceKey = z.infer<typeof InvoiceKey>;
