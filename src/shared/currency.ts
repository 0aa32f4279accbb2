import { Money, money } from './money';

/**
 * ISO 4217 minor units that are not 2 (the places an invoice in that currency carries). Every other code, and any
 * code the table does not know, has 2.
 */
const MINOR_UNITS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

/** Decimal places of a currency's minor unit (JPY 0, SEK 2, KWD 3). */
export function minorUnits(currency: string): number {
  return MINOR_UNITS[currency.toUpperCase()] ?? 2;
}

/** An exact amount rounded once to the currency's minor unit, half away from zero (as invoices round); exact text out. */
export function roundToMinorUnit(amount: string, currency: string): string {
  return money(amount).toDecimalPlaces(minorUnits(currency), Money.ROUND_HALF_UP).toFixed(minorUnits(currency));
}
