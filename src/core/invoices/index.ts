/** Invoices out: the mapping to the accounting system, the invoice run of a month ready to invoice, and its files. */
export { createInvoices, type InvoiceExport, type InvoiceRunView, type InvoicesApi, type InvoicesModule } from './handlers';
export type { Broker } from './mapping-store';
