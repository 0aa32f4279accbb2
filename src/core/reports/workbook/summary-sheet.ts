import type ExcelJS from 'exceljs';
import type { Ledger } from '@core/ledger/ledger';
import { type Row, rowShape } from '@core/ledger/rows';
import { CURRENCY_KEY } from '@core/ledger/keys';
import { money } from '@shared/money';
import { cellNumber, moneyFormat, PERCENT_FORMAT, styleOf, TEXT_FORMAT } from '@core/xlsx/number-formats';
import { type Column, letter, SheetSeries, type Sheets } from '@core/xlsx/sheet-series';
import { AMOUNT_COLUMNS, AMOUNT_FIELDS, type Amounts, ORGANIZATIONS, percentOf, amountRowXml, amountStyles, writeTotalRows } from './amounts';
import type { Lines } from './lines';

/**
 * One row per organization and currency pair, in organization order and, within one, by customer currency: each
 * customer's rows of one customer currency are an outline group (level 1) closed by its subtotal row (SUBTOTAL(9, …),
 * so sums and the grand totals never count it twice). Grand totals per currency pair follow below a blank row.
 */
const SUMMARY_ROW = rowShape({
  ...AMOUNT_FIELDS,
  org_key: 'text',
  name: 'text',
  customer_number: 'text',
  groups: 'text',
  block_cost: 'decimal',
  block_sales: 'decimal',
  block_one_cost_currency: 'bool',
  block_cost_currency: 'text',
});
type SummaryRow = Row<typeof SUMMARY_ROW.columns>;

/** The `Summary` table: these label columns, then the amount columns (AMOUNT_COLUMNS); each label's header, width and field. */
const SUMMARY_LABELS: (Column & { field: 'name' | 'customer_number' | 'groups' })[] = [
  { header: 'Organization', width: 36, field: 'name' },
  { header: 'Customer number', width: 16, field: 'customer_number' },
  { header: 'Organization groups', width: 36, field: 'groups' },
];

/**
 * A customer's rows sit one outline level under its subtotal, so Excel's outline buttons fold them. Marked collapsed,
 * as exceljs marks a row at the sheet's outline level (outlineLevelRow below): the file is what it was.
 */
const CUSTOMER_ROWS = { level: 1, collapsed: true };

export async function writeSummary(sheets: Sheets, ledger: Ledger, lines: Lines, totals: Amounts[]): Promise<string[]> {
  const labels = SUMMARY_LABELS;
  const series = new SheetSeries(sheets, 'Summary', [...labels, ...AMOUNT_COLUMNS], {
    properties: { outlineLevelRow: 1, outlineProperties: { summaryBelow: true } } as ExcelJS.WorksheetProperties,
  });
  series.ensureStarted();
  const styles = amountStyles(sheets.workbook);
  let block = null as { key: string; mark: ReturnType<SheetSeries['mark']>; row: SummaryRow } | null;
  const closeBlock = () => {
    if (block) writeSubtotalRow(series, labels.length, block.mark, block.row);
    block = null;
  };
  for await (const rows of ledger.stream(
    `WITH ${ORGANIZATIONS}
     SELECT a.currency, a.customer_currency, ${CURRENCY_KEY} AS currency_key,
       o.org_key, any_value(o.name) AS name, any_value(o.customer_number) AS customer_number, coalesce(any_value(g.names), '') AS groups,
       sum(a.cost)::VARCHAR AS cost, sum(a.sales)::VARCHAR AS sales, (sum(a.sales) - sum(a.cost))::VARCHAR AS margin,
       sum(sum(a.cost)) OVER block AS block_cost, sum(sum(a.sales)) OVER block AS block_sales,
       min(a.currency) OVER block = max(a.currency) OVER block AS block_one_cost_currency, min(a.currency) OVER block AS block_cost_currency
     FROM (SELECT org_no, currency, customer_currency, sum(cost) AS cost, sum(sales) AS sales FROM billing_lines l WHERE ${lines.where} GROUP BY ALL) a
     JOIN organization o ON o.org_no = a.org_no
     LEFT JOIN organization_group_names g ON g.org_key = o.org_key
     GROUP BY o.org_rank, o.org_key, a.currency, a.customer_currency
     WINDOW block AS (PARTITION BY o.org_key, a.customer_currency)
     ORDER BY o.org_rank, a.customer_currency, a.currency`,
    lines.params,
  )) {
    for (const row of SUMMARY_ROW.all(rows)) {
      const key = `${row.org_key}|${row.customer_currency}`;
      if (block?.key !== key) {
        closeBlock();
        block = { key, mark: series.mark(), row };
      }
      series.nextXml((rowNumber) => amountRowXml(styles, rowNumber, labels, row, CUSTOMER_ROWS));
    }
    await series.caughtUp();
  }
  closeBlock();
  writeTotalRows(series, labels.length, totals);
  series.commit();
  return series.names;
}

/**
 * A customer's subtotal in one customer currency: sales always; cost (and margin) only where its rows share one
 * purchase currency (and it is the sales currency). The Currency cell stays empty, so the grand totals' SUMIFS
 * on it pass over subtotal rows.
 */
function writeSubtotalRow(series: SheetSeries, labelCount: number, mark: ReturnType<SheetSeries['mark']>, block: SummaryRow) {
  const { row, rowNumber } = series.next();
  const salesCurrency = block.customer_currency;
  const costCurrency = block.block_one_cost_currency ? block.block_cost_currency : null;
  const [currencyAt, costAt, salesAt, marginAt, percentAt] = [1, 2, 3, 4, 5].map((offset) => labelCount + offset) as [number, number, number, number, number];
  const cell = (column: number, value: ExcelJS.CellValue, numFmt: string | null = null) => {
    row.getCell(column).value = value;
    row.getCell(column).style = styleOf(numFmt, 'subtotal');
  };
  cell(1, `${block.name} — ${salesCurrency} total`);
  cell(2, block.customer_number, TEXT_FORMAT);
  for (let column = 3; column <= currencyAt; column++) cell(column, null);
  const subtotal = (column: number) => `SUBTOTAL(9,${series.rangesSince(mark, column)})`;
  cell(salesAt, { formula: subtotal(salesAt), result: cellNumber(block.block_sales) }, moneyFormat(salesCurrency));
  cell(costAt, costCurrency ? { formula: subtotal(costAt), result: cellNumber(block.block_cost) } : null, costCurrency ? moneyFormat(costCurrency) : null);
  const margin = costCurrency === salesCurrency ? money(block.block_sales).minus(block.block_cost).toFixed() : null;
  cell(marginAt, margin === null ? null : { formula: subtotal(marginAt), result: cellNumber(margin) }, margin === null ? null : moneyFormat(salesCurrency));
  const percent = margin === null ? null : percentOf(block.block_cost, block.block_sales);
  const [m, f] = [letter(marginAt), letter(salesAt)];
  cell(
    percentAt,
    percent === null ? null : { formula: `IF(${f}${rowNumber}=0,"",${m}${rowNumber}/${f}${rowNumber})`, result: percent },
    percent === null ? null : PERCENT_FORMAT,
  );
  row.commit();
}
