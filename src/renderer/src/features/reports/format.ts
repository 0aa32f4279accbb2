import { isoDay } from '../../components/format-time';

// Durations are formatted with every other time, in components/format-time.ts.
export { formatDuration } from '../../components/format-time';

const amountFormat = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 4 });
const quantityFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 4 });

/** Formats an exact decimal string for display; Intl reads the string exactly (no float on the way). */
export function formatAmount(decimal: string): string {
  if (decimal === '') return '';
  return amountFormat.format(decimal as unknown as number);
}

/** A quantity as an exact decimal string (or null where a row has none). */
export function formatQuantity(quantity: string | null): string {
  if (quantity === null || quantity === '') return '';
  return quantityFormat.format(quantity as unknown as number);
}

/** A calendar month (1–12; 0 and 13 roll into the years around it) as a report period: its first to its last day. */
export function monthPeriod(year: number, month: number): { startDate: string; endDate: string } {
  return { startDate: isoDay(new Date(Date.UTC(year, month - 1, 1))), endDate: isoDay(new Date(Date.UTC(year, month, 0))) };
}

/** The month before `today` as a report period. */
export function lastMonth(today = new Date()): { startDate: string; endDate: string } {
  return monthPeriod(today.getFullYear(), today.getMonth());
}
