import type ExcelJS from 'exceljs';
import { marginPercent, money } from '@shared/money';
import type { LedgerRow } from '@core/ledger/ledger';
import { ORGANIZATION_ORDER } from '../report-export-lines';
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

export function amountsOf(row: LedgerRow): Amounts {
  const single = row.currency === row.customer_currency;
  return {
    currency: String(row.currency_key),
    costCurrency: String(row.currency),
    salesCurrency: String(row.customer_currency),
    cost: String(row.cost),
    sales: String(row.sales),
    margin: single ? String(row.margin) : null,
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
 * A customer's subtotal in one customer currency: sales always; cost (and margin) only where its rows share one
 * purchase currency (and it is the sales currency). The Currency cell stays empty, so the grand totals' SUMIFS
 * on it pass over subtotal rows.
 */
export function writeSubtotalRow(series: SheetSeries, labelCount: number, mark: ReturnType<SheetSeries['mark']>, block: LedgerRow) {
  const { row, rowNumber } = series.next();
  const salesCurrency = String(block.customer_currency);
  const costCurrency = block.block_one_cost_currency === true ? String(block.block_cost_currency) : null;
  const [currencyAt, costAt, salesAt, marginAt, percentAt] = [1, 2, 3, 4, 5].map((offset) => labelCount + offset) as [number, number, number, number, number];
  const cell = (column: number, value: ExcelJS.CellValue, numFmt: string | null = null) => {
    row.getCell(column).value = value;
    row.getCell(column).style = styleOf(numFmt, 'subtotal');
  };
  cell(1, `${String(block.name)} — ${salesCurrency} total`);
  cell(2, String(block.customer_number), TEXT_FORMAT);
  for (let column = 3; column <= currencyAt; column++) cell(column, null);
  const subtotal = (column: number) => `SUBTOTAL(9,${series.rangesSince(mark, column)})`;
  cell(salesAt, { formula: subtotal(salesAt), result: cellNumber(String(block.block_sales)) }, moneyFormat(salesCurrency));
  cell(costAt, costCurrency ? { formula: subtotal(costAt), result: cellNumber(String(block.block_cost)) } : null, costCurrency ? moneyFormat(costCurrency) : null);
  const margin = costCurrency === salesCurrency ? money(String(block.block_sales)).minus(String(block.block_cost)).toFixed() : null;
  cell(marginAt, margin === null ? null : { formula: subtotal(marginAt), result: cellNumber(margin) }, margin === null ? null : moneyFormat(salesCurrency));
  const percent = margin === null ? null : percentOf(String(block.block_cost), String(block.block_sales));
  const [m, f] = [letter(marginAt), letter(salesAt)];
  cell(percentAt, percent === null ? null : { formula: `IF(${f}${rowNumber}=0,"",${m}${rowNumber}/${f}${rowNumber})`, result: percent }, percent === null ? null : PERCENT_FORMAT);
  row.commit();
}

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
    cell(marginAt, total.margin === null ? null : { formula: `${f}${rowNumber}-${c}${rowNumber}`, result: cellNumber(total.margin) }, total.margin === null ? null : moneyFormat(total.currency));
    cell(percentAt, percent === null ? null : { formula: `IF(${f}${rowNumber}=0,"",${m}${rowNumber}/${f}${rowNumber})`, result: percent }, percent === null ? null : PERCENT_FORMAT);
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
