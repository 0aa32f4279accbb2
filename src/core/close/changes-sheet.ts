import type ExcelJS from 'exceljs';
import { currenciesOf } from '@shared/model/currency-pair';
import { cellNumber, letter, moneyFormat, QUANTITY_FORMAT, rowXml, SheetSeries, type Sheets, styleIndex, styleOf, unitPriceFormat } from '../xlsx';
import { type ChangeColumnKey, type ChangeFormat, CHANGES_COLUMNS, columnNumbers } from './columns';
import type { MonthComparison } from './month-compare';

const KINDS = CHANGES_COLUMNS.map((column) => column.kind);
const COLUMN = columnNumbers(CHANGES_COLUMNS);

/** Style indexes of the Changes columns per currency pair (amounts in their currency's format), built once each. */
function changeStyles(workbook: Sheets['workbook']) {
  const byPair = new Map<string, number[]>();
  const quantity = styleIndex(workbook, styleOf(QUANTITY_FORMAT), 'number');
  return (currencyKey: string): number[] => {
    let styles = byPair.get(currencyKey);
    if (!styles) {
      const { cost: costCurrency, sales: salesCurrency } = currenciesOf(currencyKey);
      const [unitPrice, sales, cost] = [unitPriceFormat(salesCurrency), moneyFormat(salesCurrency), moneyFormat(costCurrency)].map((format) =>
        styleIndex(workbook, styleOf(format), 'number'),
      );
      const byFormat: Record<ChangeFormat, number> = { quantity, 'unit-sales': unitPrice as number, sales: sales as number, cost: cost as number, text: 0 };
      styles = CHANGES_COLUMNS.map((column) => byFormat[column.format]);
      byPair.set(currencyKey, styles);
    }
    return styles;
  };
}

/**
 * `Changes`: one row per change since the month before (streamed into the sheet in batches, continuing on
 * "Changes (2)" … when full), then below a blank row, outside the filter, each currency's sales bridge: sales
 * before + price + quantity + new/lost + other = sales after, and under them each currency's cost bridge alike. The effects and the change are SUMIFS over the rows
 * above (stored with their exact results); sales before is the month before's total (unchanged lines are not
 * listed), and sales after is the sum across the row, so the bridge adds up in Excel too.
 */
export async function writeChangesSheet(sheets: Sheets, comparison: MonthComparison | null, noComparison: string): Promise<string[]> {
  const series = new SheetSeries(
    sheets,
    'Changes',
    CHANGES_COLUMNS.map(({ header, width }) => ({ header, width })),
  );
  series.ensureStarted();
  if (!comparison) {
    series.nextXml((rowNumber) => rowXml(rowNumber, [noComparison], ['text'], [0], new Map()));
    series.commit();
    return series.names;
  }
  const stylesOf = changeStyles(sheets.workbook);
  const dates = new Map<string, number | null>();
  for await (const batch of comparison.batches()) {
    for (const change of batch) {
      const styles = stylesOf(change.currencyKey);
      const values = CHANGES_COLUMNS.map((column) => column.value(change));
      series.nextXml((rowNumber) => rowXml(rowNumber, values, KINDS, styles, dates));
    }
    await series.caughtUp();
  }
  writeBridgeRows(series, comparison);
  series.commit();
  return series.names;
}

function writeBridgeRows(series: SheetSeries, comparison: MonthComparison) {
  series.startTotals(comparison.bridges.length * 2);
  const at = (key: ChangeColumnKey) => letter(COLUMN[key]);
  for (const bridge of comparison.bridges) {
    const { row, rowNumber } = series.next();
    const salesCurrency = currenciesOf(bridge.currencyKey).sales;
    const cell = (column: number, value: ExcelJS.CellValue, numFmt: string | null = null) => {
      row.getCell(column).value = value;
      row.getCell(column).style = styleOf(numFmt, 'total');
    };
    const sumOf = (key: ChangeColumnKey, result: string) => ({ formula: series.sumIfs(COLUMN[key], COLUMN.currency, rowNumber), result: cellNumber(result) });
    for (let column = 1; column <= CHANGES_COLUMNS.length; column++) cell(column, null);
    cell(1, `Total ${bridge.currencyKey}`);
    cell(COLUMN.organization, 'Sales bridge: sales before + price + quantity + new/lost + other = sales after');
    cell(COLUMN.currency, bridge.currencyKey);
    const format = moneyFormat(salesCurrency);
    cell(COLUMN.salesBefore, cellNumber(bridge.salesBefore), format);
    const effects = (['priceEffect', 'quantityEffect', 'newLostEffect', 'otherEffect'] as const).map((key) => `${at(key)}${rowNumber}`).join('+');
    cell(COLUMN.salesAfter, { formula: `${at('salesBefore')}${rowNumber}+${effects}`, result: cellNumber(bridge.salesAfter) }, format);
    cell(COLUMN.change, sumOf('change', bridge.change), format);
    cell(COLUMN.priceEffect, sumOf('priceEffect', bridge.effects.price), format);
    cell(COLUMN.quantityEffect, sumOf('quantityEffect', bridge.effects.quantity), format);
    cell(COLUMN.newLostEffect, sumOf('newLostEffect', bridge.effects.newLost), format);
    cell(COLUMN.otherEffect, sumOf('otherEffect', bridge.effects.other), format);
    row.commit();
  }
  // The same split of the cost, in the purchase currency, under the sales: its figures as numbers (the rows above
  // list changes to sales, so there is nothing of the cost to sum), cost after still a formula across the row.
  for (const bridge of comparison.bridges) {
    const { row, rowNumber } = series.next();
    const cell = (column: number, value: ExcelJS.CellValue, numFmt: string | null = null) => {
      row.getCell(column).value = value;
      row.getCell(column).style = styleOf(numFmt, 'total');
    };
    const { cost } = bridge;
    for (let column = 1; column <= CHANGES_COLUMNS.length; column++) cell(column, null);
    cell(1, `Cost ${bridge.currencyKey}`);
    cell(COLUMN.organization, 'Cost bridge, in the purchase currency: cost before + price + quantity + new/lost + other = cost after');
    cell(COLUMN.currency, bridge.currencyKey);
    const format = moneyFormat(currenciesOf(bridge.currencyKey).cost);
    cell(COLUMN.costBefore, cellNumber(cost.before), format);
    cell(COLUMN.change, cellNumber(cost.change), format);
    const effects = [
      [COLUMN.priceEffect, cost.effects.price],
      [COLUMN.quantityEffect, cost.effects.quantity],
      [COLUMN.newLostEffect, cost.effects.newLost],
      [COLUMN.otherEffect, cost.effects.other],
    ] as const;
    for (const [column, value] of effects) cell(column, cellNumber(value), format);
    const across = effects.map(([column]) => `${letter(column)}${rowNumber}`).join('+');
    cell(COLUMN.costAfter, { formula: `${letter(COLUMN.costBefore)}${rowNumber}+${across}`, result: cellNumber(cost.after) }, format);
    row.commit();
  }
}
