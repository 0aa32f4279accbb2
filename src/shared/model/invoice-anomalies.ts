import type { BillingException } from '../schemas/month-close';
import { currenciesOf } from './currency-pair';
import { organizationKey } from './organization-key';
import { type ShownReviewState, shownReviewState } from './review-state';

/**
 * The billing checks that question what a customer is invoiced: an invoice row whose organization has one of these,
 * open or accepted, says so beside its amount. The other checks (a price change, a quantity jump, a margin far from
 * usual …) are about the month, not about whether this invoice is right.
 */
export const INVOICE_ANOMALY_RULES: ReadonlySet<string> = new Set(['negative-margin', 'unbilled', 'sales-without-cost', 'line-total-mismatch']);

/** One exception as an Invoicing row shows it: what it is, where, and how far its review has come. */
export interface InvoiceAnomaly {
  exceptionId: string;
  title: string;
  message: string;
  /** The currency pair its figures are in (their words are written in the user's locale by it). */
  currencyKey: string;
  state: ShownReviewState;
}

/** An Invoicing row's key for its anomalies: organization and customer (sales) currency. */
export function anomalyKey(row: { orgId: string; organization: string; customerNumber: string }, salesCurrency: string): string {
  return `${organizationKey(row)}\u0000${salesCurrency}`;
}

/**
 * The month's exceptions that question an invoice, by the Invoicing row they fall on (organization and the currency
 * the customer is invoiced in). A resolved exception was put right elsewhere and is left out; open, suspended and
 * accepted ones stay — an accepted one is still a fact of the invoice.
 */
export function anomaliesByInvoiceRow(exceptions: readonly BillingException[]): Map<string, InvoiceAnomaly[]> {
  const byRow = new Map<string, InvoiceAnomaly[]>();
  for (const exception of exceptions) {
    if (!INVOICE_ANOMALY_RULES.has(exception.rule) || exception.currencyKey === null) continue;
    const state = shownReviewState(exception.review);
    if (state === 'resolved') continue;
    const key = anomalyKey(exception, currenciesOf(exception.currencyKey).sales);
    const anomalies = byRow.get(key) ?? [];
    anomalies.push({ exceptionId: exception.id, title: exception.title, message: exception.message, currencyKey: exception.currencyKey, state });
    byRow.set(key, anomalies);
  }
  return byRow;
}
