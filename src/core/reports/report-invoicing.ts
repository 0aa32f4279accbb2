import type { InvoiceFlag, InvoiceRow, InvoiceTotal } from '@shared/contract';
import { roundToMinorUnit } from '@shared/currency';
import { money } from '@shared/money';
import type { ReportFilter } from '@shared/report-filter';
import type { Ledger } from '../ledger/ledger';
import { invoiceRows } from './queries/invoicing';

export interface Invoicing {
  rows: InvoiceRow[];
  totals: InvoiceTotal[];
}

/**
 * What to invoice each organization, per customer currency, for the lines the filter keeps: the exact sum of its
 * sales in that currency over every service (a custom service bought in USD and sold in SEK included), rounded
 * once to the currency's minor unit, with the flags that say why it may need a look.
 */
export async function invoicing(ledger: Ledger, reportId: string, filter: ReportFilter = {}): Promise<Invoicing> {
  const found = await invoiceRows(ledger, reportId, filter);
  const rows = found.map((row): InvoiceRow => {
    const { currency, customer_number: customerNumber } = row;
    const amountToInvoice = roundToMinorUnit(row.sales, currency);
    const flags: InvoiceFlag[] = [];
    if (money(amountToInvoice).lt(0)) flags.push('credit');
    if (row.differs) flags.push('stated-total-differs');
    if (!customerNumber.trim()) flags.push('missing-customer-number');
    return {
      key: `${row.org_key}|${currency}`,
      organization: row.name,
      nameRank: row.org_rank,
      customerNumber,
      orgId: row.org_id,
      groups: JSON.parse(row.groups) as string[],
      currency,
      amountToInvoice,
      exactAmount: row.sales,
      lines: row.lines,
      costs: JSON.parse(row.costs) as InvoiceRow['costs'],
      margin: row.margin,
      marginPartial: row.margin_partial,
      flags,
    };
  });
  return { rows, totals: invoiceTotals(rows) };
}

/** Per currency: how many customers and lines, and what the invoices add up to (the rounded amounts). */
function invoiceTotals(rows: InvoiceRow[]): InvoiceTotal[] {
  const totals = new Map<string, { customers: number; lines: number; amount: ReturnType<typeof money> }>();
  for (const row of rows) {
    const total = totals.get(row.currency) ?? { customers: 0, lines: 0, amount: money(0) };
    totals.set(row.currency, { customers: total.customers + 1, lines: total.lines + row.lines, amount: total.amount.plus(row.amountToInvoice) });
  }
  return [...totals.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, total]) => ({
      currency,
      customers: total.customers,
      lines: total.lines,
      amountToInvoice: roundToMinorUnit(total.amount.toFixed(), currency),
    }));
}
