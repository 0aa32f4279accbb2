import { AppError } from '@shared/errors';
import { readTypedDecimal } from '@shared/typed-number';
import { type Money, money } from '@shared/money';
import type { ConvertedPair, ExchangeRate, RatesView } from '@shared/schemas/month-close';
import type { Ledger } from '../ledger/ledger';
import { UNIT_PRICE } from '../ledger/schema';
import { monthOf, type MonthRef } from './months';
import { pairTotalRows, type RateRow, reportCurrencies } from './queries/rates';
import { currencyPairKey } from '@shared/model/currency-pair';
import { marginOf } from '@shared/model/margin';

export type { ExchangeRate, RatesView } from '@shared/schemas/month-close';

/*
 * A month's reference currency: the user's own rates (1 unit of a currency = rate × reference), kept with the month
 * in the ledger, give a converted total beside the native amounts. Exact: rates are DECIMAL(18, 8) and every
 * product and sum is a decimal; nothing is rounded.
 */

/** The rates a month keeps: its reference currency and the rates of the other currencies. */
export interface MonthRates {
  referenceCurrency: string | null;
  rates: ExchangeRate[];
}

/** A rate as the user gave it, and where (a line of a file, or a currency of the form), for messages that name it. */
interface GivenRate {
  currency: string;
  rate: string;
  where: string;
  /** From a file that separates with semicolons: there a comma is always the decimal mark. */
  decimalComma?: boolean;
}

/** At most this many problems are listed in one message; the count says how many more. */
const PROBLEMS_SHOWN = 8;
const MAX_RATES = 500;
const ISO_CODE = /^[A-Z]{3}$/;
const DECIMAL_POINT = /^(\d+(\.\d*)?|\.\d+)$/;
const HEADER_WORDS = new Set(['currency', 'ccy', 'code', 'currency code', 'iso', 'valuta']);
const INTEGER_DIGITS = UNIT_PRICE.precision - UNIT_PRICE.scale;

/** ISO 4217 codes the runtime knows (current and historic); a month's own currencies are accepted even if it does not. */
const KNOWN_CURRENCIES = new Set<string>(typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('currency') : []);

/**
 * A typed rate read by the rule of every typed number (a decimal comma is fine, "1,234" is asked about): its text
 * with a point, or why it is not usable.
 */
function readRate(typed: string, decimalComma = false): { rate: string } | { problem: string } {
  const reading = typed === '' ? null : readTypedDecimal(typed, decimalComma);
  if (reading && 'problem' in reading && reading.ambiguous)
    return { problem: `has the rate ${reading.problem.replace(/^(".*") /, '$1, which ').replace(/\.$/, '')}` };
  const rate = reading && 'decimal' in reading ? reading.decimal : typed;
  const problem = rateProblem(rate);
  return problem ? { problem } : { rate };
}

/** Why a rate's text (with a decimal point) is not a usable rate, or null when it is. */
function rateProblem(text: string): string | null {
  if (text === '') return 'has no rate';
  if (/^-\s*[\d.]/.test(text)) return `has the rate ${text}; a rate must be more than 0`;
  if (!DECIMAL_POINT.test(text)) return `has the rate "${text}", which is not a decimal number like 1.0934`;
  const [whole = '', fraction = ''] = text.split('.');
  if (money(text).isZero()) return 'has the rate 0; a rate must be more than 0';
  if (fraction.replace(/0+$/, '').length > UNIT_PRICE.scale)
    return `has the rate ${text} with more than ${UNIT_PRICE.scale} decimal places; Closebook keeps ${UNIT_PRICE.scale} and does not round`;
  if (whole.replace(/^0+/, '').length > INTEGER_DIGITS) return `has the rate ${text}, too large (more than ${INTEGER_DIGITS} digits before the decimal point)`;
  return null;
}

function currencyProblem(code: string, monthCurrencies: ReadonlySet<string>): string | null {
  if (code === '') return 'has no currency';
  if (!ISO_CODE.test(code)) return `has "${code}", which is not a three-letter ISO 4217 currency code`;
  if (KNOWN_CURRENCIES.size && !KNOWN_CURRENCIES.has(code) && !monthCurrencies.has(code)) return `has "${code}", which is not an ISO 4217 currency code`;
  return null;
}

/**
 * Checks rates against each other and the reference currency: ISO codes, positive decimals with a decimal point, no
 * currency twice, the reference's own rate (if given) 1. Returns the rates in canonical form, or throws one
 * validation error naming every problem by its place.
 */
export function validateRates(given: readonly GivenRate[], referenceCurrency: string, monthCurrencies: ReadonlySet<string> = new Set()): ExchangeRate[] {
  const problems: string[] = [];
  const fields: Record<string, string> = {};
  const seen = new Map<string, string>();
  const rates: ExchangeRate[] = [];
  const referenceProblem = currencyProblem(referenceCurrency, monthCurrencies);
  if (referenceProblem)
    throw new AppError('validation', `The reference currency ${referenceProblem.replace(/^has /, 'is ')}.`, {
      referenceCurrency: referenceProblem.replace(/^has /, 'is '),
    });
  for (const entry of given) {
    const currency = entry.currency.trim().toUpperCase();
    const read = readRate(entry.rate.trim(), entry.decimalComma);
    const rate = 'rate' in read ? read.rate : '';
    const problem =
      currencyProblem(currency, monthCurrencies) ??
      ('problem' in read ? read.problem : null) ??
      (seen.has(currency) ? `repeats ${currency}, already given on ${seen.get(currency)}` : null) ??
      (currency === referenceCurrency && !money(rate).equals(1)
        ? `gives ${currency} the rate ${rate}, but ${currency} is the reference currency: its rate is 1`
        : null);
    if (problem) {
      problems.push(`${entry.where} ${problem}`);
      fields[`rates.${currency || entry.where}`] = problem.replace(/^has /, 'is ');
      continue;
    }
    seen.set(currency, entry.where);
    if (currency !== referenceCurrency) rates.push({ currency, rate: money(rate).toFixed() });
  }
  if (given.length > MAX_RATES) problems.unshift(`There are ${given.length} rates; a month takes at most ${MAX_RATES}.`);
  if (problems.length) {
    const shown = problems.slice(0, PROBLEMS_SHOWN).join('; ');
    const more = problems.length > PROBLEMS_SHOWN ? `; and ${problems.length - PROBLEMS_SHOWN} more` : '';
    throw new AppError(
      'validation',
      `${problems.length === 1 ? 'A rate is' : `${problems.length} rates are`} not usable, so nothing was saved: ${shown}${more}.`,
      fields,
    );
  }
  return rates.sort((a, b) => (a.currency < b.currency ? -1 : 1));
}

/**
 * Splits a CSV line on its separator (a semicolon when the line has one outside quotes, else a comma), unquoting
 * "fields" — a quoted rate may hold the separator ("0,0874" in a comma file).
 */
function fieldsOf(line: string): { fields: string[]; separator: ',' | ';' } {
  const separator = line.replace(/"[^"]*"/g, '').includes(';') ? ';' : ',';
  const fields: string[] = [];
  let field = '';
  let inQuotes = false;
  for (const char of line) {
    if (char === '"') inQuotes = !inQuotes;
    else if (char === separator && !inQuotes) {
      fields.push(field.trim());
      field = '';
    } else field += char;
  }
  fields.push(field.trim());
  return { fields, separator };
}

/**
 * Reads a rates file: `currency,rate` per line, a header line optional, comma or semicolon separated, rates as people
 * type them (a decimal comma in a semicolon file, or quoted in a comma file). Blank lines are skipped. Every line is
 * named by its number (as an editor counts them) in messages.
 */
export function parseRatesCsv(text: string, referenceCurrency: string, monthCurrencies: ReadonlySet<string> = new Set()): ExchangeRate[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  const given: GivenRate[] = [];
  const problems: string[] = [];
  let first = true;
  lines.forEach((line, index) => {
    if (!line.trim()) return;
    const { fields, separator } = fieldsOf(line);
    const [currency = '', rate = '', ...extra] = fields;
    const isFirst = first;
    first = false;
    // A header: the first line, when it names the columns (no digits, no currency code) instead of giving a rate.
    if (isFirst && (HEADER_WORDS.has(currency.toLowerCase()) || (!/\d/.test(line) && !ISO_CODE.test(currency)))) return;
    if (fields.length === 1) problems.push(`line ${index + 1} has one field ("${line.trim()}"); a line is currency,rate`);
    else if (extra.some((field) => field !== '')) {
      const decimalComma = fields.length === 3 && /^\d+$/.test(rate) && /^\d+$/.test(extra[0] ?? '');
      problems.push(
        `line ${index + 1} has ${fields.length} fields; a line is currency,rate${decimalComma ? ` (if ${rate},${extra[0]} is one rate, write it in quotes, "${rate},${extra[0]}", or with a decimal point: ${rate}.${extra[0]})` : ''}`,
      );
    } else given.push({ currency, rate, where: `line ${index + 1}`, decimalComma: separator === ';' });
  });
  if (problems.length) {
    throw new AppError(
      'validation',
      `The rates file is not usable, so nothing was saved: ${problems.slice(0, PROBLEMS_SHOWN).join('; ')}${problems.length > PROBLEMS_SHOWN ? `; and ${problems.length - PROBLEMS_SHOWN} more` : ''}.`,
    );
  }
  if (!given.length) throw new AppError('validation', 'The rates file has no rates: write one currency,rate per line, e.g. USD,0.9214.');
  return validateRates(given, referenceCurrency, monthCurrencies);
}

/** Where a month's rates are kept and who may change them: the close's record (the workstation's, or the team's). */
export interface RatesStore {
  rates(month: MonthRef): Promise<RateRow[]>;
  saveRates(month: MonthRef, referenceCurrency: string | null, rates: readonly { currency: string; rate: string }[]): Promise<void>;
  signOff(month: MonthRef): Promise<unknown>;
}

/** The rates kept with a month (the reference currency's own row of 1 marks the choice and is left out). */
export async function monthRates(store: RatesStore, month: MonthRef): Promise<MonthRates> {
  const rows = await store.rates(month);
  const referenceCurrency = rows[0]?.reference_currency ?? null;
  return {
    referenceCurrency,
    rates: rows.filter((row) => row.currency !== referenceCurrency).map((row) => ({ currency: row.currency, rate: money(row.rate).toFixed() })),
  };
}

/** Replaces a month's rates (all or nothing); a null reference currency removes them. */
export async function saveMonthRates(store: RatesStore, month: MonthRef, referenceCurrency: string | null, rates: readonly ExchangeRate[]): Promise<void> {
  await store.saveRates(month, referenceCurrency, referenceCurrency === null ? [] : [{ currency: referenceCurrency, rate: '1' }, ...rates]);
}

/** A currency pair's native totals as the ledger summed them at ingest. */
export interface PairTotal {
  currency: string;
  customerCurrency: string;
  lines: number;
  cost: string;
  sales: string;
}

/**
 * The native totals per currency pair and, where both of a pair's currencies have a rate, converted to the
 * reference currency; the exact sum of what could be converted; and the currencies without a rate (their pairs are
 * left out of the total, never guessed).
 */
export function convertTotals(totals: readonly PairTotal[], rates: MonthRates): Pick<RatesView, 'pairs' | 'converted' | 'missing' | 'currencies'> {
  const reference = rates.referenceCurrency;
  const rateOf = new Map<string, Money>(rates.rates.map((entry) => [entry.currency, money(entry.rate)]));
  if (reference) rateOf.set(reference, money(1));
  const missing = new Set<string>();
  let cost = money(0);
  let sales = money(0);
  let included = 0;
  const pairs: ConvertedPair[] = totals.map((total) => {
    const currencyKey = currencyPairKey(total.currency, total.customerCurrency);
    const native = { currencyKey, lines: total.lines, cost: money(total.cost).toFixed(), sales: money(total.sales).toFixed() };
    const costRate = rateOf.get(total.currency);
    const salesRate = rateOf.get(total.customerCurrency);
    const lacking = reference ? [...new Set([total.currency, total.customerCurrency])].filter((currency) => !rateOf.has(currency)) : [];
    lacking.forEach((currency) => missing.add(currency));
    if (!reference || !costRate || !salesRate) return { ...native, convertedCost: null, convertedSales: null, missing: lacking };
    const convertedCost = money(total.cost).times(costRate);
    const convertedSales = money(total.sales).times(salesRate);
    cost = cost.plus(convertedCost);
    sales = sales.plus(convertedSales);
    included += 1;
    return { ...native, convertedCost: convertedCost.toFixed(), convertedSales: convertedSales.toFixed(), missing: [] };
  });
  const currencies = [...new Set(totals.flatMap((total) => [total.currency, total.customerCurrency]))].sort();
  return {
    pairs,
    converted: reference
      ? { cost: cost.toFixed(), sales: sales.toFixed(), ...marginOf(cost, sales), pairsIncluded: included, pairsLeftOut: totals.length - included }
      : null,
    missing: [...missing].sort(),
    currencies: currencies.map((currency) => ({ currency, rate: reference ? (rateOf.get(currency)?.toFixed() ?? null) : null })),
  };
}

/** The rates of a report's month, what they convert its totals to, and whether they are locked by a sign-off. */
export async function ratesView(ledger: Ledger, store: RatesStore, reportId: string): Promise<RatesView> {
  const month = await monthOf(ledger, reportId);
  const rates = await monthRates(store, month);
  const totals = await pairTotalRows(ledger, reportId);
  const signedOff = (await store.signOff(month)) !== undefined;
  return {
    reportId,
    period: { startDate: month.startDate, endDate: month.endDate },
    signedOff,
    referenceCurrency: rates.referenceCurrency,
    rates: rates.rates,
    ...convertTotals(
      totals.map((row) => ({ currency: row.currency, customerCurrency: row.customer_currency, lines: row.line_count, cost: row.cost, sales: row.sales })),
      rates,
    ),
  };
}

/** Sets (replaces) a month's rates from the form; a null reference currency removes them. */
export async function setRates(
  ledger: Ledger,
  store: RatesStore,
  reportId: string,
  referenceCurrency: string | null,
  given: readonly ExchangeRate[],
): Promise<RatesView> {
  const month = await monthOf(ledger, reportId);
  const reference = referenceCurrency?.trim().toUpperCase() || null;
  const rates = reference
    ? validateRates(
        given.map((entry, index) => ({ ...entry, where: `row ${index + 1}` })),
        reference,
        await reportCurrencies(ledger, reportId),
      )
    : [];
  await saveMonthRates(store, month, reference, rates);
  return ratesView(ledger, store, reportId);
}

/** Replaces a month's rates with a CSV file's; nothing is saved when a line is not usable. */
export async function importRates(ledger: Ledger, store: RatesStore, reportId: string, referenceCurrency: string, csv: string): Promise<RatesView> {
  const month = await monthOf(ledger, reportId);
  const reference = referenceCurrency.trim().toUpperCase();
  const rates = parseRatesCsv(csv, reference, await reportCurrencies(ledger, reportId));
  await saveMonthRates(store, month, reference, rates);
  return ratesView(ledger, store, reportId);
}
