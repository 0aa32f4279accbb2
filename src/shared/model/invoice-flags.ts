import type { InvoiceFlag } from '../contract';

/**
 * Why an invoice row may need a look, in one wording for the screen, the printout and the workbook's Flags column
 * (the core and the renderer used to word them differently): a short label, and what it means.
 */
export const INVOICE_FLAGS: Record<InvoiceFlag, { label: string; hint: string }> = {
  credit: { label: 'Credit note', hint: 'The amount is negative: a credit note, not an invoice.' },
  'stated-total-differs': {
    label: 'Stated total differs',
    hint: 'A total the service stated differs from the sum of its billing lines; the amount is the sum of the lines.',
  },
  'missing-customer-number': { label: 'No customer number', hint: 'The organization has no customer number: the ERP cannot match it.' },
};

/** Flags as one text, in the order given (a cell, a copied table, the printout). */
export function flagLabels(flags: readonly InvoiceFlag[], separator = ', '): string {
  return flags.map((flag) => INVOICE_FLAGS[flag].label).join(separator);
}
