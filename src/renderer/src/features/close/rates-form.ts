import type { ExchangeRate, RatesView } from '@shared/schemas/month-close';

/** The rates form as typed: the reference currency and a rate text per currency (empty: no rate). */
export interface RatesDraft {
  referenceCurrency: string;
  rates: Record<string, string>;
}

/** A currency the reference is suggested as when the month has none yet. */
const USUAL_REFERENCE = 'EUR';

/** The form filled from what the month keeps: every currency of the month, and any other one it has a rate for. */
export function draftOf(view: RatesView): RatesDraft {
  const rates: Record<string, string> = {};
  for (const { currency, rate } of view.currencies) rates[currency] = rate ?? '';
  for (const { currency, rate } of view.rates) rates[currency] = rate;
  const suggested = view.currencies.some((entry) => entry.currency === USUAL_REFERENCE) ? USUAL_REFERENCE : (view.currencies[0]?.currency ?? USUAL_REFERENCE);
  return { referenceCurrency: view.referenceCurrency ?? suggested, rates };
}

/** The currencies the form asks a rate for: all but the reference, in code order. */
export function rateCurrencies(draft: RatesDraft): string[] {
  const reference = draft.referenceCurrency.trim().toUpperCase();
  return Object.keys(draft.rates)
    .filter((currency) => currency !== reference)
    .sort();
}

/** What is sent: the rates typed (blank ones are "no rate"), for every currency but the reference. */
export function ratesToSave(draft: RatesDraft): ExchangeRate[] {
  return rateCurrencies(draft)
    .map((currency) => ({ currency, rate: (draft.rates[currency] ?? '').trim() }))
    .filter((entry) => entry.rate !== '');
}

/** The heading of the converted figures: plain about whose rates they are. */
export function convertedLabel(referenceCurrency: string): string {
  return `Converted to ${referenceCurrency} at your rates (not the service's)`;
}

/** A file too large to be a rates file is refused before it is read. */
export const MAX_RATES_FILE_BYTES = 1_000_000;
