import type ExcelJS from 'exceljs';
import type { Ledger, LedgerRow } from '@core/ledger/ledger';
import { CURRENCY_KEY } from '@core/ledger/keys';
import { styleOf, TEXT_FORMAT } from '@core/xlsx/number-formats';
import { type Column, SheetSeries, type Sheets } from '@core/xlsx/sheet-series';
import { AMOUNT_COLUMNS, type Amounts, amountsOf, ORGANIZATIONS, writeAmountCells, writeSubtotalRow, writeTotalRows } from './amounts';
import type { Lines } from './lines';

/**
 * One row per organization and currency pair, in organization order and, within one, by customer currency: each
 * customer's rows of one customer currency are an outline group (level 1) closed by its subtotal row (SUBTOTAL(9, …),
 * so sums and the grand totals never count it twice). Grand totals per currency pair follow below a blank row.
 */
export async function writeSummary(sheets: Sheets, ledger: Ledger, lines: Lines, totals: Amounts[]): Promise<string[]> {
  const labels: Column[] = [{ header: 'Organization', width: 36 }, { header: 'Customer number', width: 16 }, { header: 'Organization groups', width: 36 }];
  const series = new SheetSeries(sheets, 'Summary', [...labels, ...AMOUNT_COLUMNS], { properties: { outlineLevelRow: 1, outlineProperties: { summaryBelow: true } } as ExcelJS.WorksheetProperties });
  series.ensureStarted();
  let block = null as { key: string; mark: ReturnType<SheetSeries['mark']>; row: LedgerRow } | null;
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
    for (const row of rows) {
      const key = `${String(row.org_key)}|${String(row.customer_currency)}`;
      if (block?.key !== key) {
        closeBlock();
        block = { key, mark: series.mark(), row };
      }
      const next = series.next().row;
      next.outlineLevel = 1;
      next.getCell(2).style = styleOf(TEXT_FORMAT);
      writeAmountCells(next, [String(row.name), String(row.customer_number), String(row.groups)], amountsOf(row));
    }
    await series.caughtUp();
  }
  closeBlock();
  writeTotalRows(series, labels.length, totals);
  series.commit();
  return series.names;
}
