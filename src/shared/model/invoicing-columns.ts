/**
 * The Invoicing table's column headers, each written once: the screen, its printout and the table it copies use
 * them in INVOICING_SCREEN_ORDER; the workbook's Invoicing sheet uses some of them in an order of its own (an ERP
 * imports it; cost and margin are in its Summary sheet).
 */
export const INVOICING_HEADERS = {
  customerNumber: 'Customer number',
  organization: 'Organization',
  groups: 'Groups',
  currency: 'Currency',
  amount: 'Amount to invoice',
  lines: 'Billing lines',
  cost: 'Cost',
  margin: 'Margin',
  flags: 'Flags',
} as const;

export type InvoicingColumn = keyof typeof INVOICING_HEADERS;

/** The columns of the Invoicing view, its printout and its copied table, in their order. */
export const INVOICING_SCREEN_ORDER: readonly InvoicingColumn[] = [
  'customerNumber',
  'organization',
  'groups',
  'currency',
  'amount',
  'lines',
  'cost',
  'margin',
  'flags',
];

/** The columns that hold amounts and counts: aligned right. */
export const NUMERIC_INVOICING_COLUMNS: ReadonlySet<InvoicingColumn> = new Set(['amount', 'lines', 'cost', 'margin']);
