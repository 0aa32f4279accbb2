import { z } from 'zod';
import { JsonNumber } from './report-reader';

/** Longer text is refused before any other work: no single hostile value may cost more than a glance. */
const MAX_LENGTH = 64;
/** A JSON number with more significant digits than a double holds may already have been rounded by the sender. */
const MAX_NUMBER_DIGITS = 15;
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,3}))?$/;

/**
 * An exact decimal for a ledger column of DECIMAL(precision, scale): a string ("12.50") or a JSON number as
 * written; returned as canonical text ("12.5"). A value that does not fit is refused with the reason — never
 * rounded. Exponents are allowed in JSON numbers ("1.5E3"), shifted exactly.
 */
export function ledgerDecimal(bounds: { precision: number; scale: number }) {
  return z.union([z.string(), z.instanceof(JsonNumber)]).transform((value, context) => {
    const isNumber = value instanceof JsonNumber;
    const text = (isNumber ? value.text : value).trim();
    const fail = (message: string) => {
      context.addIssue({ code: 'custom', message });
      return z.NEVER;
    };
    if (text.length > MAX_LENGTH) return fail(`is ${text.length} characters long; an amount has at most ${MAX_LENGTH}`);
    const match = DECIMAL.exec(text);
    if (!match || (match[2] === '' && !match[3]) || (!isNumber && match[4] !== undefined)) return fail('must be a decimal number like 1234.56');
    const [, sign, whole = '', fraction = '', exponent] = match;
    let digits = `${whole}${fraction}`;
    let point = whole.length + Number(exponent ?? 0);
    if (point < 0) {
      digits = `${'0'.repeat(-point)}${digits}`;
      point = 0;
    } else if (point > digits.length) digits = digits.padEnd(point, '0');
    const integer = digits.slice(0, point).replace(/^0+/, '');
    const decimals = digits.slice(point).replace(/0+$/, '');
    if (isNumber && `${integer}${decimals}`.replace(/^0+/, '').length > MAX_NUMBER_DIGITS) {
      return fail(
        `has more than ${MAX_NUMBER_DIGITS} significant digits as a JSON number, so it may already have been rounded; the service must send it as text`,
      );
    }
    if (decimals.length > bounds.scale) return fail(`has ${decimals.length} decimal places; Closebook keeps at most ${bounds.scale} and refuses to round`);
    if (integer.length > bounds.precision - bounds.scale)
      return fail(`is too large (more than ${bounds.precision - bounds.scale} digits before the decimal point)`);
    const canonical = `${integer || '0'}${decimals ? `.${decimals}` : ''}`;
    return sign === '-' && canonical !== '0' ? `-${canonical}` : canonical;
  });
}
