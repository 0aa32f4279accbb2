import type ExcelJS from 'exceljs';
import { marginPercent, money } from '@shared/money';
import { type Row, rowShape } from '@core/ledger/rows';
import { ORGANIZATION_ORDER } from '../queries/export-lines';
import { CURRENCY_KEY } from '@core/ledger/keys';
import { cellNumber, moneyFormat, PERCENT_FORMAT, styleOf, TEXT_FORMAT } from '@core/xlsx/number-formats';
import { cellsRowXml, type RowOutline, styleIndex, type XmlCell } from '@core/xlsx/row-xml';
import type { Writer } from '@core/xlsx/workbook-file';
import { type Column, letter, type SheetSeries } from '@core/xlsx/sheet-series';

export interface Amounts {
  currency: string;
  costCurrency: string;
  salesCurrency: string;
  cost: string;
  sales: string;
  /** Null where cost and sales are in different currencies. */
  margin: string | null;
}

/** A currency pair of the lines table: "SEK", or "USD→SEK" (never added together). */
export const PAIR = `currency, customer_currency, ${CURRENCY_KEY} AS currency_key`;
/** Exact sums as text from DuckDB (DECIMAL(38, 6)); margin only means something within one currency. */
export const SUMS = `sum(cost)::VARCHAR AS cost, sum(sales)::VARCHAR AS sales, (sum(sales) - sum(cost))::VARCHAR AS margin`;

/** The columns PAIR and SUMS give a row, typed: what every amount row of Summary, Services and the totals holds. */
export const AMOUNT_FIELDS = {
  currency: 'text',
  customer_currency: 'text',
  currency_key: 'text',
  cost: 'decimal',
  sales: 'decimal',
  margin: 'decimal',
} as const;
export const AMOUNT_ROW = rowShape(AMOUNT_FIELDS);

export function amountsOf(row: Row<typeof AMOUNT_FIELDS>): Amounts {
  return {
    currency: row.currency_key,
    costCurrency: row.currency,
    salesCurrency: row.customer_currency,
    cost: row.cost,
    sales: row.sales,
    margin: row.currency === row.customer_currency ? row.margin : null,
  };
}

/** Margin % as a fraction for a % cell; null without sales or across currencies. */
export function percentOf(cost: string, sales: string): number | null {
  return marginPercent(money(cost), money(sales))?.dividedBy(100).toNumber() ?? null;
}

/** The columns Summary and Services share after their labels (written by writeAmountCells). */
export const AMOUNT_COLUMNS: Column[] = [
  { header: 'Currency', width: 11 },
  { header: 'Cost', width: 18 },
  { header: 'Sales', width: 18 },
  { header: 'Margin', width: 18 },
  { header: 'Margin %', width: 10 },
];

/**
 * Each organization (ORG_KEY) in ORGANIZATION_ORDER with its groups from every billing entry it appears in, as one
 * text ("CC-100 Nordics, Jane Doe"). $1 is the report.
 */
export const ORGANIZATIONS = `
  organization AS (${ORGANIZATION_ORDER}),
  organization_group_names AS (
    SELECT o.org_key, array_to_string(list_sort(list(DISTINCT g.group_name)), ', ') AS names
    FROM organization_groups g JOIN organization o ON o.org_no = g.org_no WHERE g.report_id = $1 GROUP BY o.org_key)`;

/**
 * The grand total of each currency pair, below a blank row and outside the filter: SUMIFS on the Currency column
 * over the data rows of every sheet (subtotal rows among them do not match), stored with the exact SQL sums.
 */
export function writeTotalRows(series: SheetSeries, labelCount: number, totals: Amounts[]) {
  series.startTotals(totals.length);
  const [currencyAt, costAt, salesAt, marginAt, percentAt] = [1, 2, 3, 4, 5].map((offset) => labelCount + offset) as [number, number, number, number, number];
  for (const total of totals) {
    const { row, rowNumber } = series.next();
    const cell = (column: number, value: ExcelJS.CellValue, numFmt: string | null = null) => {
      row.getCell(column).value = value;
      row.getCell(column).style = styleOf(numFmt, 'total');
    };
    cell(1, `Total ${total.currency}`);
    for (let column = 2; column < currencyAt; column++) cell(column, null);
    cell(currencyAt, total.currency);
    cell(costAt, { formula: series.sumIfs(costAt, currencyAt, rowNumber), result: cellNumber(total.cost) }, moneyFormat(total.costCurrency));
    cell(salesAt, { formula: series.sumIfs(salesAt, currencyAt, rowNumber), result: cellNumber(total.sales) }, moneyFormat(total.salesCurrency));
    const [c, f, m] = [letter(costAt), letter(salesAt), letter(marginAt)];
    const percent = total.margin === null ? null : percentOf(total.cost, total.sales);
    cell(
      marginAt,
      total.margin === null ? null : { formula: `${f}${rowNumber}-${c}${rowNumber}`, result: cellNumber(total.margin) },
      total.margin === null ? null : moneyFormat(total.currency),
    );
    cell(
      percentAt,
      percent === null ? null : { formula: `IF(${f}${rowNumber}=0,"",${m}${rowNumber}/${f}${rowNumber})`, result: percent },
      percent === null ? null : PERCENT_FORMAT,
    );
    row.commit();
  }
}

/** The style index of each number format of the amount rows, registered with exceljs once each. */
export function amountStyles(workbook: Writer): (format: string, kind: 'number' | 'text') => number {
  const indexes = new Map<string, number>();
  return (format, kind) => {
    let index = indexes.get(format);
    if (index === undefined) indexes.set(format, (index = styleIndex(workbook, styleOf(format), kind)));
    return index;
  };
}

/**
 * A data row of Summary or Services as XML: its label columns (the customer number, second, as text: an ERP's keeps
 * its leading zeros), then Currency, Cost, Sales, Margin and Margin % (the last two only when both amounts share a
 * currency). The cells and bytes a row object would give exceljs (the golden digests hold them to it), at a fraction
 * of its cost: Services at 1,000,000 lines took 3.4 s as row objects.
 */
export function amountRowXml<F extends string>(
  styleOfFormat: ReturnType<typeof amountStyles>,
  rowNumber: number,
  labels: readonly { field: F }[],
  row: Record<F, string> & Row<typeof AMOUNT_FIELDS>,
  outline?: RowOutline,
): string {
  const amounts = amountsOf(row);
  const cells: XmlCell[] = labels.map((column) => ({ value: row[column.field], style: 0 }));
  (cells[1] as XmlCell).style = styleOfFormat(TEXT_FORMAT, 'text');
  const money = (amount: string, currency: string) => ({ value: cellNumber(amount), style: styleOfFormat(moneyFormat(currency), 'number') });
  cells.push({ value: amounts.currency, style: 0 }, money(amounts.cost, amounts.costCurrency), money(amounts.sales, amounts.salesCurrency));
  if (amounts.margin !== null) {
    cells.push(money(amounts.margin, amounts.currency));
    const percent = percentOf(amounts.cost, amounts.sales);
    if (percent !== null) cells.push({ value: percent, style: styleOfFormat(PERCENT_FORMAT, 'number') });
  }
  return cellsRowXml(rowNumber, cells, outline);
}
