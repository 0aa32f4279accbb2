/**
 * The date a month's invoices carry: today unless one is chosen. A chosen date before the period it invoices began
 * is a slip (2025 typed for 2026) and is refused; once a month's invoices are exported, exporting them again writes
 * the same files, their dates included.
 */

/** Why `invoiceDate` cannot date invoices for a period beginning on `periodStart`; null when it can. */
export function invoiceDateRefusal(invoiceDate: string, periodStart: string): string | null {
  return invoiceDate < periodStart
    ? `The invoice date ${invoiceDate} is before the period it invoices began (${periodStart}): choose a date on or after ${periodStart}.`
    : null;
}

/** Why the date of invoices exported before cannot be changed by exporting them again. */
export const EXPORTED_DATES_KEPT = 'Invoices exported before are written again as they were, with the dates and numbers they were first exported with';

/** A warning when a date was chosen for invoices written again (said after "Check before importing:"). */
export const datedAsFirstExported = (invoiceDate: string) => `the invoice date ${invoiceDate} was not used. ${EXPORTED_DATES_KEPT}`;
