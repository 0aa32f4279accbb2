import type { ReportFilter } from '@shared/report-filter';
import type { Ledger } from '@core/ledger/ledger';
import { exportLines, LINE_FIELDS } from '../report-export-lines';
import { DATE_FORMAT, moneyFormat, QUANTITY_FORMAT, styleOf, unitPriceFormat } from '@core/xlsx/number-formats';
import { type CellKind, rowXml, styleIndex } from '@core/xlsx/row-xml';
import { SheetSeries, type Sheets } from '@core/xlsx/sheet-series';
import type { Writer } from '@core/xlsx/workbook-file';

/** The `Billing lines` headers, exactly and in this order, for ERP import. */
export const BILLING_LINE_HEADERS = [
  'Organization', 'Customer number', 'Org ID', 'Organization groups', 'Service', 'Service ID', 'Subscription', 'Subscription ID',
  'PO number', 'Product', 'Product ID', 'Item code', 'Quantity', 'Reseller price per unit', 'Customer price per unit',
  'Total reseller price', 'Total customer price', 'Margin', 'Currency', 'Customer currency', 'Billing date', 'Item details',
] as const;

/** How each billing-line column is written, by its place in LINE_FIELDS. */
const LINE_KINDS: CellKind[] = LINE_FIELDS.map((field) =>
  ['quantity', 'cost_per_unit', 'sales_per_unit', 'cost', 'sales', 'margin'].includes(field) ? 'number' : field === 'billing_date' ? 'date' : 'text',
);
const CURRENCY = LINE_FIELDS.indexOf('currency');
const CUSTOMER_CURRENCY = LINE_FIELDS.indexOf('customer_currency');

/** Style indexes of the billing-line columns per currency pair (number formats name their currency), built once each. */
function lineStyles(workbook: Writer) {
  const byPair = new Map<string, number[]>();
  const quantity = styleIndex(workbook, styleOf(QUANTITY_FORMAT), 'number');
  const date = styleIndex(workbook, styleOf(DATE_FORMAT), 'date');
  return (currency: string, customerCurrency: string): number[] => {
    const key = `${currency}|${customerCurrency}`;
    let styles = byPair.get(key);
    if (!styles) {
      const [unitCost, unitSales, cost, sales] = [unitPriceFormat(currency), unitPriceFormat(customerCurrency), moneyFormat(currency), moneyFormat(customerCurrency)].map((format) =>
        styleIndex(workbook, styleOf(format), 'number'),
      );
      const byField: Partial<Record<(typeof LINE_FIELDS)[number], number>> = {
        quantity, cost_per_unit: unitCost, sales_per_unit: unitSales, cost, sales, margin: sales, billing_date: date,
      };
      styles = LINE_FIELDS.map((field) => byField[field] ?? 0);
      byPair.set(key, styles);
    }
    return styles;
  };
}

/** Streams the lines into "Billing lines", "Billing lines (2)" …; returns how many and in which sheets. */
export async function writeBillingLines(sheets: Sheets, ledger: Ledger, reportId: string, filter: ReportFilter | undefined, onProgress?: (lines: number) => void): Promise<{ lines: number; sheets: string[] }> {
  const widths = [34, 16, 38, 34, 30, 38, 40, 38, 14, 38, 38, 20, 10, 16, 16, 18, 18, 16, 9, 9, 12, 30];
  const series = new SheetSeries(sheets, 'Billing lines', BILLING_LINE_HEADERS.map((header, index) => ({ header, width: widths[index] as number })));
  series.ensureStarted();
  const stylesOf = lineStyles(sheets.workbook);
  const dates = new Map<string, number | null>();
  let count = 0;
  for await (const batch of exportLines(ledger, reportId, filter)) {
    for (const line of batch) {
      const styles = stylesOf(String(line[CURRENCY]), String(line[CUSTOMER_CURRENCY]));
      series.nextXml((rowNumber) => rowXml(rowNumber, line, LINE_KINDS, styles, dates));
    }
    count += batch.length;
    onProgress?.(count);
    await series.caughtUp();
  }
  series.commit();
  return { lines: count, sheets: series.names };
}
