import type { CurrencyTotalRow, ReportColumn, ReportHierarchy, ReportSortInput, TreeRow } from '@shared/contract';
import { isoDay, userLocale } from '@renderer/components/format-time';
import { currenciesOf } from '@shared/model/currency-pair';
import { exactCell } from '@renderer/components/format-number';

// Durations are formatted with every other time, in components/format-time.ts.
export { formatDuration } from '@renderer/components/format-time';

export type ColumnKind = 'amount' | 'unit-price' | 'quantity' | 'percent' | 'text';

export interface ColumnSpec {
  key: ReportColumn;
  label: string;
  kind: ColumnKind;
  /** The sort the header asks for; null where the main process does not sort by it. */
  sortKey: ReportSortInput['key'] | null;
  /** Which of the row's currencies the column is in. */
  currency?: 'cost' | 'sales';
}

/** The tree's columns beside the name, in the order they stand. */
export const REPORT_COLUMNS: readonly ColumnSpec[] = [
  { key: 'quantity', label: 'Quantity', kind: 'quantity', sortKey: 'quantity' },
  { key: 'unitCost', label: 'Unit cost', kind: 'unit-price', sortKey: null, currency: 'cost' },
  { key: 'unitPrice', label: 'Unit price', kind: 'unit-price', sortKey: null, currency: 'sales' },
  { key: 'cost', label: 'Cost', kind: 'amount', sortKey: 'cost', currency: 'cost' },
  { key: 'sales', label: 'Sales', kind: 'amount', sortKey: 'sales', currency: 'sales' },
  { key: 'margin', label: 'Margin', kind: 'amount', sortKey: 'margin', currency: 'sales' },
  { key: 'marginPercent', label: 'Margin %', kind: 'percent', sortKey: 'marginPercent' },
  { key: 'poNumber', label: 'PO number', kind: 'text', sortKey: null },
  { key: 'billingDate', label: 'Billing date', kind: 'text', sortKey: null },
];

/**
 * The money columns stay in view while the tree scrolls sideways (a narrow window with optional columns on): pinned
 * to the right edge, each by its class (tree__pin--<key>) at the offset TreeTable gives it.
 */
export const PINNED_COLUMNS: ReadonlySet<ReportColumn> = new Set(['cost', 'sales', 'margin', 'marginPercent']);

/** The cell class of a column: pinned money columns carry their pin. */
export const columnClass = (key: ReportColumn): string => (PINNED_COLUMNS.has(key) ? ` tree__pin tree__pin--${key}` : '');

/** The chosen columns in the tree's order (unknown or repeated ones dropped). */
export function visibleColumns(chosen: readonly ReportColumn[]): ColumnSpec[] {
  const keys = new Set(chosen);
  return REPORT_COLUMNS.filter((column) => keys.has(column.key));
}

/** The header of the name column: the levels of the tree in the order the hierarchy nests them. */
export function nameHeader(hierarchy: ReportHierarchy): string {
  return hierarchy === 'service' ? 'Service › organization' : 'Organization › service';
}

/**
 * Selected tree rows as a table to paste into a spreadsheet: a header row, then one row per tree row with the
 * visible columns as exact values and the currencies in columns of their own.
 */
export function treeRowsTable(rows: readonly TreeRow[], columns: readonly ColumnSpec[], hierarchy: ReportHierarchy, locale = userLocale): string[][] {
  const header = [nameHeader(hierarchy), 'Level', 'Detail', 'Cost currency', 'Sales currency', ...columns.map((column) => column.label)];
  const body = rows.map((row) => {
    const currencies = currenciesOf(row.currencyKey);
    const values = columns.map((column) => {
      const value = row[column.key] ?? null;
      return column.kind === 'text' ? (value ?? '') : exactCell(value, locale);
    });
    return [row.label, row.level, row.detail, currencies.cost, currencies.sales, ...values];
  });
  return [header, ...body];
}

/** The totals per currency as a table to paste into a spreadsheet (exact values, currencies in their own columns). */
export function totalsTable(totals: readonly CurrencyTotalRow[], locale = userLocale): string[][] {
  const header = ['Cost currency', 'Sales currency', 'Lines', 'Cost', 'Sales', 'Margin', 'Margin %'];
  const body = totals.map((total) => {
    const currencies = currenciesOf(total.currencyKey);
    return [
      currencies.cost,
      currencies.sales,
      String(total.lines),
      ...[total.cost, total.sales, total.margin, total.marginPercent].map((value) => exactCell(value, locale)),
    ];
  });
  return [header, ...body];
}

/** A calendar month (1–12; 0 and 13 roll into the years around it) as a report period: its first to its last day. */
export function monthPeriod(year: number, month: number): { startDate: string; endDate: string } {
  return { startDate: isoDay(new Date(Date.UTC(year, month - 1, 1))), endDate: isoDay(new Date(Date.UTC(year, month, 0))) };
}

/** The month before `today` as a report period. */
export function lastMonth(today = new Date()): { startDate: string; endDate: string } {
  return monthPeriod(today.getFullYear(), today.getMonth());
}
