/** Invoices out: the mapping to the accounting system, the invoice run of a month ready to invoice, and its files. */
export { createInvoices, type InvoiceExport, type InvoiceRunView, type InvoicesApi, type InvoicesModule } from './handlers';
export type { Broker } from './mapping-store';
// For the team ledger, which keeps the mapping, the number sequence and the runs on PostgreSQL (an InvoiceRecord of its own).
export { exportedMeanwhile, insertRun, type InvoiceRecord, LocalInvoiceRecord, type MappingChange, type RunPeriod, runBody } from './invoice-record';
export { type RunSummary, type RunToWriteAgain, type StoredRun, summaryOf } from './invoice-store';
export { issuedInMemory } from './invoice-files';
