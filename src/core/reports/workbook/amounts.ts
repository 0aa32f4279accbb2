import type ExcelJS from 'exceljs';
import { marginPercent, money } from '@shared/money';
import { type Row, rowShape } from '@core/ledger/rows';
import { ORGANIZATION_ORDER } from '../queries/export-lines';
import { CURRENCY_KEY } from '@core/ledger/keys';
import { cellNumber, moneyFormat, PERCENT_FORMAT, styleOf, TEXT_FORMAT } from '@core/xlsx/number-formats';
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

/** Label cells, then Currency, Cost, Sales, Margin and Margin % (the last two only when both amounts share a currency). */
export function writeAmountCells(row: ExcelJS.Row, labels: string[], amounts: Amounts) {
  labels.forEach((label, index) => (row.getCell(index + 1).value = label));
  const at = labels.length + 1;
  row.getCell(at).value = amounts.currency;
  row.getCell(at + 1).value = cellNumber(amounts.cost);
  row.getCell(at + 1).style = styleOf(moneyFormat(amounts.costCurrency));
  row.getCell(at + 2).value = cellNumber(amounts.sales);
  row.getCell(at + 2).style = styleOf(moneyFormat(amounts.salesCurrency));
  if (amounts.margin !== null) {
    row.getCell(at + 3).value = cellNumber(amounts.margin);
    row.getCell(at + 3).style = styleOf(moneyFormat(amounts.currency));
    const percent = percentOf(amounts.cost, amounts.sales);
    if (percent !== null) {
      row.getCell(at + 4).value = percent;
      row.getCell(at + 4).style = styleOf(PERCENT_FORMAT);
    }
  }
  row.commit();
}

/** A data row of Summary or Services: its label columns (the customer number, second, as text), then its amounts. */
export function writeAmountRow<F extends string>(next: ExcelJS.Row, labels: readonly { field: F }[], row: Record<F, string> & Row<typeof AMOUNT_FIELDS>): void {
  next.getCell(2).style = styleOf(TEXT_FORMAT); // an ERP's customer number keeps its leading zeros
  writeAmountCells(
    next,
    labels.map((column) => row[column.field]),
    amountsOf(row),
  );
}
