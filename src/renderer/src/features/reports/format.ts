import { fromUnits } from '../../../../shared/fixed-decimal';

const amountFormat = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 4 });
const quantityFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 4 });

/** Formats an exact decimal string for display; Intl reads the string exactly (no float on the way). */
export function formatAmount(decimal: string): string {
  if (decimal === '') return '';
  return amountFormat.format(decimal as unknown as number);
}

export function formatUnits(units: bigint, scale: number): string {
  return formatAmount(fromUnits(units, scale));
}

export function formatQuantity(quantity: number): string {
  return quantityFormat.format(quantity);
}

export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** The month before `today` as a report period. */
export function lastMonth(today = new Date()): { startDate: string; endDate: string } {
  const start = new Date(Date.UTC(today.getFullYear(), today.getMonth() - 1, 1));
  const end = new Date(Date.UTC(today.getFullYear(), today.getMonth(), 0));
  return { startDate: start.toISOString().slice(0, 10), endDate: end.toISOString().slice(0, 10) };
}
