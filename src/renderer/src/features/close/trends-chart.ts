import { foldForSearch } from '@shared/search-fold';
import type { TrendMonth, TrendPoint, TrendScope, TrendScopes, TrendSeries } from '@shared/schemas/month-close';
import { userLocale } from '@renderer/components/format-time';
import { monthLabel } from './month-label';

/*
 * What the trend charts draw. Positions on a chart are JS numbers (a pixel needs no more); every figure a person
 * reads — the tooltip, the table — is the exact decimal from the main process, formatted in the app's style.
 */

/** A month on the chart's x axis, with the exact figures of its point. */
export interface ChartRow {
  month: string;
  sales: number;
  cost: number;
  /** Null where cost and sales are in different currencies (never subtracted). */
  margin: number | null;
  point: TrendPoint;
}

const monthFormats = new Map<string, Intl.DateTimeFormat>();

/** A period on the chart's axis: "Oct 2026" for a calendar month (the short form of monthLabel); other periods by their days. */
export function periodLabel(period: TrendMonth['period'], locale = userLocale): string {
  const long = monthLabel(period, locale);
  if (long.includes(' – ')) return long;
  let format = monthFormats.get(locale);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, { month: 'short', year: 'numeric', timeZone: 'UTC' });
    monthFormats.set(locale, format);
  }
  return format.format(Date.parse(`${period.startDate}T00:00:00Z`));
}

/** One row per month for a series: `series.points[i]` belongs to `months[i]`. */
export function chartRows(months: readonly TrendMonth[], series: TrendSeries, locale = userLocale): ChartRow[] {
  return series.points.map((point, index) => ({
    month: periodLabel((months[index] as TrendMonth).period, locale),
    sales: Number(point.sales),
    cost: Number(point.cost),
    margin: point.margin === null ? null : Number(point.margin),
    point,
  }));
}

const compactFormats = new Map<string, Intl.NumberFormat>();

/** An axis tick: short ("1.2K", "3,4 mn") in the user's locale; the exact values are in the tooltip and the table. */
export function axisTick(value: number, locale = userLocale): string {
  let format = compactFormats.get(locale);
  if (!format) {
    format = new Intl.NumberFormat(locale, { notation: 'compact', maximumFractionDigits: 1 });
    compactFormats.set(locale, format);
  }
  return format.format(value);
}

/** What a series is in: "SEK", or "Cost in USD, sales in SEK" for a pair of two currencies. */
export function seriesTitle(series: TrendSeries): string {
  return series.costCurrency === series.salesCurrency ? series.salesCurrency : `Cost in ${series.costCurrency}, sales in ${series.salesCurrency}`;
}

/** The scope in words, for the heading (and the printout, where the pickers are not shown). */
export function scopeLabel(scope: TrendScope, scopes: TrendScopes | null): string {
  if (scope.kind === 'all') return 'All customers';
  const choices = scope.kind === 'organization' ? scopes?.organizations : scope.kind === 'service' ? scopes?.services : scopes?.groups;
  const choice = choices?.find((entry) => entry.key === scope.key);
  const name = choice ? `${choice.label}${choice.detail ? ` (${choice.detail})` : ''}` : scope.key;
  return `${{ organization: 'Customer', service: 'Service', group: 'Group' }[scope.kind]}: ${name}`;
}

/** At most this many matches are listed in the picker; typing narrows them. */
export const CHOICES_LISTED = 200;

/** The choices whose name or detail (customer number) holds every word typed, case-insensitive. */
export function matchingChoices<T extends { label: string; detail: string }>(choices: readonly T[], text: string): T[] {
  const words = foldForSearch(text).split(/\s+/).filter(Boolean);
  if (!words.length) return [...choices];
  return choices.filter((choice) => {
    const haystack = foldForSearch(`${choice.label} ${choice.detail}`);
    return words.every((word) => haystack.includes(word));
  });
}
