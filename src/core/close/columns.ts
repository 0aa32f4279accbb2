import { findingName } from '@shared/model/findings';
import { money } from '@shared/money';
import { shownReviewState } from '@shared/model/review-state';
import type { MonthChange, MonthCloseView } from '@shared/schemas/month-close';
import type { CellKind } from '../xlsx';

/** A column of a month-close sheet: each header, width, kind and number format is written here and nowhere else. */
export interface SheetColumn<T, F extends string> {
  /** Its name in the code: the rows below the data (totals, the sales bridge) find their column by it. */
  key: string;
  /** The sheet's header (a date column's names its time zone after it). */
  header: string;
  width: number;
  kind: CellKind;
  format: F;
  /** The cell: exact text (numbers as exact decimals), or null for an empty cell. */
  value: (row: T) => string | null;
}

const blankIfEmpty = (value: string | null | undefined) => (value === null || value === undefined || value === '' ? null : value);

const KIND_WORDS: Record<MonthChange['kind'], string> = {
  new: 'New',
  lost: 'Lost',
  quantity: 'Quantity changed',
  price: 'Unit price changed',
  amount: 'Amount changed',
};
const LEVEL_WORDS: Record<MonthChange['level'], string> = {
  organization: 'Organization',
  service: 'Service',
  subscription: 'Subscription',
  line: 'Product line',
};

/**
 * How Changes formats a column: a quantity, an amount or unit price in the change's sales currency (`sales`,
 * `unit-sales`) or an amount in its purchase currency (`cost`) — or as text.
 */
export type ChangeFormat = 'quantity' | 'unit-sales' | 'sales' | 'cost' | 'text';

/** `Changes`: one row per change since the month before, in this column order. */
// A table: one column a line reads best.
// prettier-ignore
export const CHANGES_COLUMNS = [
  { key: 'kind', header: 'Kind', width: 18, kind: 'text', format: 'text', value: (change) => KIND_WORDS[change.kind] },
  { key: 'level', header: 'Level', width: 14, kind: 'text', format: 'text', value: (change) => LEVEL_WORDS[change.level] },
  { key: 'organization', header: 'Organization', width: 34, kind: 'text', format: 'text', value: (change) => change.organization },
  { key: 'customerNumber', header: 'Customer number', width: 16, kind: 'text', format: 'text', value: (change) => blankIfEmpty(change.customerNumber) },
  { key: 'orgId', header: 'Org ID', width: 38, kind: 'text', format: 'text', value: (change) => blankIfEmpty(change.orgId) },
  { key: 'service', header: 'Service', width: 30, kind: 'text', format: 'text', value: (change) => blankIfEmpty(change.service) },
  { key: 'subscription', header: 'Subscription', width: 34, kind: 'text', format: 'text', value: (change) => blankIfEmpty(change.subscription) },
  { key: 'subscriptionId', header: 'Subscription ID', width: 38, kind: 'text', format: 'text', value: (change) => blankIfEmpty(change.subscriptionId) },
  { key: 'product', header: 'Product', width: 34, kind: 'text', format: 'text', value: (change) => blankIfEmpty(change.product) },
  { key: 'productId', header: 'Product ID', width: 38, kind: 'text', format: 'text', value: (change) => blankIfEmpty(change.productId) },
  { key: 'currency', header: 'Currency', width: 10, kind: 'text', format: 'text', value: (change) => change.currencyKey },
  { key: 'quantityBefore', header: 'Quantity before', width: 14, kind: 'number', format: 'quantity', value: (change) => blankIfEmpty(change.before?.quantity) },
  { key: 'unitPriceBefore', header: 'Unit price before', width: 16, kind: 'number', format: 'unit-sales', value: (change) => blankIfEmpty(change.before?.unitPrice) },
  { key: 'salesBefore', header: 'Sales before', width: 18, kind: 'number', format: 'sales', value: (change) => blankIfEmpty(change.before?.sales) },
  { key: 'quantityAfter', header: 'Quantity after', width: 14, kind: 'number', format: 'quantity', value: (change) => blankIfEmpty(change.after?.quantity) },
  { key: 'unitPriceAfter', header: 'Unit price after', width: 16, kind: 'number', format: 'unit-sales', value: (change) => blankIfEmpty(change.after?.unitPrice) },
  { key: 'salesAfter', header: 'Sales after', width: 18, kind: 'number', format: 'sales', value: (change) => blankIfEmpty(change.after?.sales) },
  {
    key: 'change', header: 'Change in sales', width: 18, kind: 'number', format: 'sales',
    value: (change) => money(change.after?.sales ?? 0).minus(change.before?.sales ?? 0).toFixed(),
  },
  { key: 'priceEffect', header: 'Price effect', width: 16, kind: 'number', format: 'sales', value: (change) => change.effects.price },
  { key: 'quantityEffect', header: 'Quantity effect', width: 16, kind: 'number', format: 'sales', value: (change) => change.effects.quantity },
  { key: 'newLostEffect', header: 'New/lost effect', width: 16, kind: 'number', format: 'sales', value: (change) => change.effects.newLost },
  { key: 'otherEffect', header: 'Other effect', width: 16, kind: 'number', format: 'sales', value: (change) => change.effects.other },
  { key: 'costBefore', header: 'Cost before', width: 18, kind: 'number', format: 'cost', value: (change) => blankIfEmpty(change.before?.cost) },
  { key: 'costAfter', header: 'Cost after', width: 18, kind: 'number', format: 'cost', value: (change) => blankIfEmpty(change.after?.cost) },
] as const satisfies readonly SheetColumn<MonthChange, ChangeFormat>[];

export type ChangeColumnKey = (typeof CHANGES_COLUMNS)[number]['key'];

/** An exception of the Checks sheet, and its review time in the workbook's time zone (no zone: the header names it). */
export interface CheckRow {
  exception: MonthCloseView['exceptions'][number];
  reviewedAt: string | null;
}

/** How Checks formats a column: as text, or a date and time. */
export type CheckFormat = 'datetime' | 'text';

/** `Checks`: every exception with its evidence and review, in this column order. */
// A table: one column a line reads best.
// prettier-ignore
export const CHECKS_COLUMNS = [
  { key: 'finding', header: 'Finding', width: 40, kind: 'text', format: 'text', value: ({ exception }) => findingName(exception) },
  { key: 'rule', header: 'Rule', width: 22, kind: 'text', format: 'text', value: ({ exception }) => exception.rule },
  { key: 'severity', header: 'Severity', width: 10, kind: 'text', format: 'text', value: ({ exception }) => exception.severity },
  { key: 'title', header: 'Title', width: 30, kind: 'text', format: 'text', value: ({ exception }) => exception.title },
  { key: 'message', header: 'Message', width: 70, kind: 'text', format: 'text', value: ({ exception }) => exception.message },
  { key: 'organization', header: 'Organization', width: 34, kind: 'text', format: 'text', value: ({ exception }) => exception.organization },
  { key: 'customerNumber', header: 'Customer number', width: 16, kind: 'text', format: 'text', value: ({ exception }) => blankIfEmpty(exception.customerNumber) },
  { key: 'orgId', header: 'Org ID', width: 38, kind: 'text', format: 'text', value: ({ exception }) => blankIfEmpty(exception.orgId) },
  { key: 'service', header: 'Service', width: 30, kind: 'text', format: 'text', value: ({ exception }) => exception.service },
  { key: 'serviceId', header: 'Service ID', width: 38, kind: 'text', format: 'text', value: ({ exception }) => exception.serviceId },
  { key: 'subscription', header: 'Subscription', width: 34, kind: 'text', format: 'text', value: ({ exception }) => exception.subscription },
  { key: 'subscriptionId', header: 'Subscription ID', width: 38, kind: 'text', format: 'text', value: ({ exception }) => exception.subscriptionId },
  { key: 'product', header: 'Product', width: 34, kind: 'text', format: 'text', value: ({ exception }) => exception.product },
  { key: 'productId', header: 'Product ID', width: 38, kind: 'text', format: 'text', value: ({ exception }) => exception.productId },
  { key: 'currency', header: 'Currency', width: 10, kind: 'text', format: 'text', value: ({ exception }) => exception.currencyKey },
  { key: 'reviewState', header: 'Review state', width: 12, kind: 'text', format: 'text', value: ({ exception }) => shownReviewState(exception.review) },
  { key: 'note', header: 'Note', width: 40, kind: 'text', format: 'text', value: ({ exception }) => blankIfEmpty(exception.review?.note) },
  { key: 'reviewedBy', header: 'Reviewed by', width: 20, kind: 'text', format: 'text', value: ({ exception }) => blankIfEmpty(exception.review?.reviewedBy) },
  { key: 'reviewedAt', header: 'Reviewed at', width: 18, kind: 'date', format: 'datetime', value: ({ reviewedAt }) => reviewedAt },
  { key: 'exceptionId', header: 'Exception ID', width: 60, kind: 'text', format: 'text', value: ({ exception }) => exception.id },
] as const satisfies readonly SheetColumn<CheckRow, CheckFormat>[];

/** Column numbers (1-based) by key: what the rows below the data write to. */
export function columnNumbers<K extends string>(columns: readonly { key: K }[]): Record<K, number> {
  return Object.fromEntries(columns.map((column, index) => [column.key, index + 1])) as Record<K, number>;
}
