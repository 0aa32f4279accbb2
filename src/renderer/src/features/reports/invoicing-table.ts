import type { InvoiceFlag, InvoiceRow } from '@shared/contract';
import { money } from '@shared/money';
import { userLocale } from '@renderer/components/format-time';
import { amountText, exactCell } from '@renderer/components/format-number';
import { flagLabels } from '@shared/model/invoice-flags';
import { INVOICING_HEADERS, INVOICING_SCREEN_ORDER, type InvoicingColumn } from '@shared/model/invoicing-columns';

/** Every column of the Invoicing view sorts it. */
export type InvoiceSortKey = InvoicingColumn;
export interface InvoiceSort {
  key: InvoiceSortKey;
  direction: 'asc' | 'desc';
}

export function flagWords(flags: InvoiceFlag[]): string {
  return flagLabels(flags);
}

const collator = new Intl.Collator(userLocale, { numeric: true, sensitivity: 'base' });

/** Money columns: compared within one currency (never across), so they are grouped by it first. */
const MONEY_KEYS = new Set<InvoiceSortKey>(['amount', 'cost', 'margin']);

/** The purchase currencies of a row's costs, as one key ("SEK+USD"): costs are compared only among rows with the same ones. */
function costCurrencies(row: InvoiceRow): string {
  return row.costs.map((cost) => cost.currency).join('+');
}

interface Keyed {
  row: InvoiceRow;
  /** The currency group a money column is compared within. */
  group: string;
  /** Exact decimal strings; null: n/a (sorts last in either direction). */
  amounts: string[] | null;
  /** The same as floats: a fast first comparison (see compareAmounts). */
  approximations: number[] | null;
}

function keyed(row: InvoiceRow, key: InvoiceSortKey): Keyed {
  const amounts = key === 'amount' ? [row.exactAmount] : key === 'margin' ? (row.margin === null ? null : [row.margin]) : row.costs.map((cost) => cost.amount);
  return { row, group: key === 'cost' ? costCurrencies(row) : row.currency, amounts, approximations: amounts?.map(Number) ?? null };
}

/**
 * Exact order of two lists of decimals. Rounding to the nearest float never reverses an order, so floats that
 * differ already decide it; only floats that tie are compared as exact decimals.
 */
function compareAmounts(a: Keyed, b: Keyed): number {
  const length = Math.min(a.amounts!.length, b.amounts!.length);
  for (let i = 0; i < length; i += 1) {
    const x = a.approximations![i]!;
    const y = b.approximations![i]!;
    if (x !== y) return x < y ? -1 : 1;
    const order = money(a.amounts![i]!).comparedTo(b.amounts![i]!);
    if (order !== 0) return order;
  }
  return a.amounts!.length - b.amounts!.length;
}

function compareText(a: InvoiceRow, b: InvoiceRow, key: InvoiceSortKey): number {
  switch (key) {
    case 'customerNumber':
      return collator.compare(a.customerNumber, b.customerNumber);
    case 'organization':
      return a.nameRank - b.nameRank; // the report's name order, as the tree and the files have it
    case 'groups':
      return collator.compare(a.groups.join(', '), b.groups.join(', '));
    case 'currency':
      return a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0;
    case 'lines':
      return a.lines - b.lines;
    case 'flags':
      return a.flags.length - b.flags.length || flagWords(a.flags).localeCompare(flagWords(b.flags));
    default:
      return 0;
  }
}

/** Ties read in a stable, familiar order: organization (in the report's name order), then currency. */
function tieBreak(a: InvoiceRow, b: InvoiceRow): number {
  return a.nameRank - b.nameRank || (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/**
 * The rows in the order of `sort`. Money columns group the rows by currency (A→Z whatever the direction) and sort
 * the amounts within each: an amount in SEK is never ranked against one in EUR. n/a (a margin across currencies)
 * comes last in either direction.
 */
export function sortInvoiceRows(rows: readonly InvoiceRow[], sort: InvoiceSort): InvoiceRow[] {
  const sign = sort.direction === 'asc' ? 1 : -1;
  if (!MONEY_KEYS.has(sort.key)) {
    return [...rows].sort((a, b) => sign * compareText(a, b, sort.key) || tieBreak(a, b));
  }
  // Parse each amount once, not once per comparison.
  const entries = rows.map((row) => keyed(row, sort.key));
  entries.sort((a, b) => {
    // Currency codes are ASCII: a plain comparison is their order, and much faster than a collator.
    if (a.group !== b.group) return a.group < b.group ? -1 : 1;
    if (a.amounts === null || b.amounts === null) return (a.amounts === null ? 1 : 0) - (b.amounts === null ? 1 : 0) || tieBreak(a.row, b.row);
    return sign * compareAmounts(a, b) || tieBreak(a.row, b.row);
  });
  return entries.map((entry) => entry.row);
}

/** The full exact value of an amount (every digit, the locale's separators) with its currency: for tooltips. */
export function exactAmountText(decimal: string, currency: string, locale = userLocale): string {
  const shown = amountText(decimal, currency, locale);
  return shown.title ?? `${shown.text} ${currency}`;
}

/**
 * Invoicing rows as the cells of a table to paste into a spreadsheet: exact values with the locale's decimal
 * separator and no thousands separators, so each pastes as a number. A row's cost may be in several purchase
 * currencies: one column per currency among the rows ("Cost EUR", "Cost USD"), never two currencies in one cell.
 */
export function invoiceTable(rows: readonly InvoiceRow[], locale = userLocale): string[][] {
  // Currency codes are ASCII: a plain sort is their order.
  const costCurrencies = [...new Set(rows.flatMap((row) => row.costs.map((cost) => cost.currency)))].sort();
  const columns = (each: (column: InvoicingColumn) => string | string[]) => INVOICING_SCREEN_ORDER.flatMap(each);
  return [
    columns((column) => (column === 'cost' ? costCurrencies.map((currency) => `${INVOICING_HEADERS.cost} ${currency}`) : INVOICING_HEADERS[column])),
    ...rows.map((row) => {
      const cells: Record<Exclude<InvoicingColumn, 'cost'>, string> = {
        customerNumber: row.customerNumber,
        organization: row.organization,
        groups: row.groups.join('; '),
        currency: row.currency,
        amount: exactCell(row.amountToInvoice, locale),
        lines: String(row.lines),
        margin: exactCell(row.margin, locale),
        // The margin cell stays a number; the flags say when it covers only the part bought in the invoice currency.
        flags: [flagWords(row.flags), row.marginPartial ? `Margin of the part bought in ${row.currency}` : ''].filter(Boolean).join(', '),
      };
      const costIn = (currency: string) => exactCell(row.costs.find((cost) => cost.currency === currency)?.amount ?? null, locale);
      return columns((column) => (column === 'cost' ? costCurrencies.map(costIn) : cells[column]));
    }),
  ];
}
