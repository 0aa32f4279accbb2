import { counted } from '@shared/counted';
import { minorUnits } from '@shared/currency';
import { money } from '@shared/money';
import { userLocale } from './format-time';

/*
 * One number style for every screen. Amounts show the currency's minor unit (JPY 0, SEK 2), unit prices and
 * quantities up to 4 places; every column keeps its decimal points in line (a hidden pad stands in for digits a
 * value does not show); when rounding hides digits the exact value is in the tooltip. Intl reads the decimal
 * strings exactly (no float on the way). Every formatter takes the locale for tests; the screens use the user's.
 */

/** A number as a cell shows it: its text, the hidden digits that line its decimal point up, and the exact value when rounding hid some. */
export interface NumberText {
  text: string;
  /** Invisible characters after the text (CSS draws them transparent) so shorter fractions align. */
  pad: string;
  /** The full exact value, when the text rounds it. */
  title: string | undefined;
}

const DECIMAL = /^-?\d+(?:\.(\d+))?$/;
/** Decimal places a unit-price or quantity column is aligned to. */
const FINE_PLACES = 4;
/** Decimal places an amount column is aligned to (the common minor unit; JPY pads, KWD sticks out one place). */
const AMOUNT_PLACES = 2;

const numberFormats = new Map<string, Intl.NumberFormat>();

function numberFormat(locale: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${locale}|${JSON.stringify(options)}`;
  let format = numberFormats.get(key);
  if (!format) {
    // No "−0.00" for a tiny negative that rounds to nothing.
    format = new Intl.NumberFormat(locale, { signDisplay: 'negative', ...options });
    numberFormats.set(key, format);
  }
  return format;
}

/** Intl formats a decimal string exactly (Intl.NumberFormat v3); the type still says number. */
function formatDecimal(format: Intl.NumberFormat, decimal: string): string {
  return format.format(decimal as unknown as number);
}

/** The fraction digits a decimal string needs to be shown exactly (trailing zeros need none). */
function exactPlaces(decimal: string): number {
  return (DECIMAL.exec(decimal)?.[1] ?? '').replace(/0+$/, '').length;
}

/** The locale's decimal separator ("," in sv-SE). */
export function decimalSeparator(locale = userLocale): string {
  return (
    numberFormat(locale, {})
      .formatToParts(1.5)
      .find((part) => part.type === 'decimal')?.value ?? '.'
  );
}

/** `decimal` at `places` fraction digits (grouped), padded to `alignTo`, with the exact value as title when that rounds it. */
function numberText(decimal: string, places: number, alignTo: number, locale: string, suffix = ''): NumberText {
  if (!DECIMAL.test(decimal)) return { text: decimal, pad: '', title: undefined };
  const text = formatDecimal(numberFormat(locale, { minimumFractionDigits: places, maximumFractionDigits: places }), decimal);
  const needed = exactPlaces(decimal);
  const title =
    needed > places ? `${formatDecimal(numberFormat(locale, { minimumFractionDigits: needed, maximumFractionDigits: needed }), decimal)}${suffix}` : undefined;
  const pad = places >= alignTo ? '' : `${places === 0 ? decimalSeparator(locale) : ''}${'0'.repeat(alignTo - places)}`;
  return { text, pad, title };
}

/** An amount at its currency's minor unit (ISO 4217: JPY 0, SEK 2). */
export function amountText(decimal: string, currency: string, locale = userLocale): NumberText {
  return numberText(decimal, minorUnits(currency), AMOUNT_PLACES, locale, ` ${currency}`);
}

/** An amount as plain text (e.g. inside a sentence): the currency's minor unit, the locale's separators. */
export function formatAmount(decimal: string, currency: string, locale = userLocale): string {
  return amountText(decimal, currency, locale).text;
}

/** A unit price: as many places as it has, at least the currency's minor unit and at most 4 (more go to the tooltip). */
export function unitPriceText(decimal: string, currency: string, locale = userLocale): NumberText {
  const minor = minorUnits(currency);
  const places = Math.min(Math.max(exactPlaces(decimal), minor), Math.max(FINE_PLACES, minor));
  return numberText(decimal, places, FINE_PLACES, locale, ` ${currency}`);
}

/** A quantity: as many places as it has, at most 4. */
export function quantityText(decimal: string, locale = userLocale): NumberText {
  return numberText(decimal, Math.min(exactPlaces(decimal), FINE_PLACES), FINE_PLACES, locale);
}

/** Margin % (the main process sends `12.34` for 12.34 %) in the locale's percent style: "12.34%", "12,34 %". */
export function percentText(percent: string, locale = userLocale): NumberText {
  if (!DECIMAL.test(percent)) return { text: percent, pad: '', title: undefined };
  // Intl's percent style multiplies by 100: hand it the exact fraction.
  const fraction = money(percent).dividedBy(100).toFixed();
  const places = 2;
  const text = formatDecimal(numberFormat(locale, { style: 'percent', minimumFractionDigits: places, maximumFractionDigits: places }), fraction);
  const needed = exactPlaces(percent);
  const title =
    needed > places
      ? formatDecimal(numberFormat(locale, { style: 'percent', minimumFractionDigits: needed, maximumFractionDigits: needed }), fraction)
      : undefined;
  return { text, pad: '', title };
}

/** A count of things (lines, organizations) in the locale's grouping. */
export function formatCount(count: number, locale = userLocale): string {
  return numberFormat(locale, { maximumFractionDigits: 0 }).format(count);
}

/** A count with its noun in the user's locale, singular for one (counted): "1 line", "2 lines", "1 fetch" / "3 fetches". */
export function countOf(count: number, noun: string, plural = `${noun}s`, locale = userLocale): string {
  return counted(count, noun, plural, (value) => formatCount(value, locale));
}

/**
 * An exact value for a spreadsheet cell: every digit, the locale's decimal separator (so Excel in that locale reads
 * it as a number), no grouping, a plain minus.
 */
export function exactCell(decimal: string | null, locale = userLocale): string {
  if (decimal === null) return '';
  return DECIMAL.test(decimal) ? decimal.replace('.', decimalSeparator(locale)) : decimal;
}
