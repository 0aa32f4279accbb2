import type { ReportFilter } from '@shared/report-filter';
import type { Ledger } from '@core/ledger/ledger';
import { DATE_FORMAT, moneyFormat, QUANTITY_FORMAT, rowXml, SheetSeries, type Sheets, styleIndex, styleOf, unitPriceFormat, type Writer } from '@core/xlsx';
import { BILLING_LINE_COLUMNS, LINE_FIELDS, type LineFormat } from '../billing-line-columns';
import { exportLines } from '../queries/export-lines';

const KINDS = BILLING_LINE_COLUMNS.map((column) => column.kind);
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
      const [unitCost, unitSales, cost, sales] = [
        unitPriceFormat(currency),
        unitPriceFormat(customerCurrency),
        moneyFormat(currency),
        moneyFormat(customerCurrency),
      ].map((format) => styleIndex(workbook, styleOf(format), 'number'));
      const byFormat: Record<LineFormat, number> = {
        quantity,
        'unit-cost': unitCost as number,
        'unit-sales': unitSales as number,
        cost: cost as number,
        sales: sales as number,
        date,
        text: 0,
      };
      styles = BILLING_LINE_COLUMNS.map((column) => byFormat[column.sheet.format]);
      byPair.set(key, styles);
    }
    return styles;
  };
}

/** Streams the lines into "Billing lines", "Billing lines (2)" …; returns how many and in which sheets. */
export async function writeBillingLines(
  sheets: Sheets,
  ledger: Ledger,
  reportId: string,
  filter: ReportFilter | undefined,
  onProgress?: (lines: number) => void,
): Promise<{ lines: number; sheets: string[] }> {
  const series = new SheetSeries(
    sheets,
    'Billing lines',
    BILLING_LINE_COLUMNS.map((column) => ({ header: column.sheet.header, width: column.sheet.width })),
  );
  series.ensureStarted();
  const stylesOf = lineStyles(sheets.workbook);
  const dates = new Map<string, number | null>();
  let count = 0;
  for await (const batch of exportLines(ledger, reportId, filter)) {
    for (const line of batch) {
      const styles = stylesOf(String(line[CURRENCY]), String(line[CUSTOMER_CURRENCY]));
      series.nextXml((rowNumber) => rowXml(rowNumber, line, KINDS, styles, dates));
    }
    count += batch.length;
    onProgress?.(count);
    await series.caughtUp();
  }
  series.commit();
  return { lines: count, sheets: series.names };
}
