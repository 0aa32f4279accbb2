import { DECIMAL_PATTERN } from './model/decimal';

/** A value the user gave, quoted in a message: cut short, so one pasted paragraph does not bury the message. */
export function quoted(value: string): string {
  return value.length > 60 ? `"${value.slice(0, 57)}…" (${value.length.toLocaleString('en')} characters)` : `"${value}"`;
}

/**
 * A typed number as exact decimal text with a point ("-1250.5"), or what is wrong with it in words; `ambiguous` when
 * it could be a thousand or a decimal ("1,234").
 */
export type DecimalReading = { decimal: string } | { problem: string; ambiguous?: true };

const GROUPED = (mark: ',' | '.') => new RegExp(`^[1-9]\\d{0,2}(\\${mark}\\d{3})+$`);

/**
 * A number as people type or paste it, whatever their spreadsheet's language — a quantity, a rate, a threshold, a
 * VAT rate: every field where a number is typed reads it by this one rule.
 * - spaces and apostrophes between digits group thousands and are dropped ("1 250,5", "1'250.5");
 * - with both a point and a comma, the one further right is the decimal mark and the other groups thousands
 *   ("1,250.5" and "1.250,5" are both 1250.5);
 * - one comma or one point alone is the decimal mark ("12,5" and "12.5" are 12.5) — except a comma with exactly
 *   three digits after it and one to three before ("1,234"): a thousands separator or a decimal comma? That is
 *   refused, asking for 1234 or 1.234;
 * - the same mark twice or more groups thousands ("1,234,567", "1.234.567").
 * `decimalComma` is for a file that says it uses the decimal comma (a ';'-separated CSV): there a comma is always
 * the decimal mark, points before it group thousands ("1.250,5"), and the same point twice or more too
 * ("1.234.567"); one point alone before three digits ("1.500") could be either and is refused, and any other point
 * ("0.125", "1.5") is the decimal mark.
 */
export function readTypedDecimal(value: string, decimalComma = false): DecimalReading {
  const typed = value.trim();
  const notANumber = { problem: `${quoted(typed)} is not a number.` };
  let text = typed.replace(/(?<=\d)[\s\u00a0\u202f'](?=\d)/g, '');
  const sign = /^[+-]/.test(text) ? text.slice(0, 1) : '';
  text = text.slice(sign.length);
  if (decimalComma) {
    const comma = text.indexOf(',');
    if (comma >= 0) {
      // The decimal comma: points before it can only group thousands ("1.250,5").
      const whole = text.slice(0, comma);
      if (whole.includes('.') && !GROUPED('.').test(whole)) return notANumber;
      text = `${whole.replaceAll('.', '')}.${text.slice(comma + 1)}`;
    } else if (GROUPED('.').test(text)) {
      if (text.indexOf('.') === text.lastIndexOf('.')) {
        return {
          ambiguous: true,
          problem: `${quoted(typed)} could be a thousand or a decimal: write ${text.replace('.', '')} for a whole number, or ${text.replace('.', ',')} with a decimal comma.`,
        };
      }
      text = text.replaceAll('.', ''); // "1.234.567"
    }
    // Any other point ("0.125", "1.5", "1234.567") cannot group thousands: it is the decimal mark, as the file's
    // numbers were written by something other than its spreadsheet.
  } else {
    const comma = text.lastIndexOf(',');
    const point = text.lastIndexOf('.');
    if (comma >= 0 && point >= 0) {
      const grouping = comma > point ? '.' : ',';
      const at = Math.max(comma, point);
      const whole = text.slice(0, at);
      if (!/^\d+$/.test(whole) && !GROUPED(grouping).test(whole)) return notANumber;
      text = `${whole.replaceAll(grouping, '')}.${text.slice(at + 1)}`;
    } else if (GROUPED(',').test(text) || GROUPED('.').test(text)) {
      const marks = text.match(/[.,]/g) ?? [];
      if (marks.length === 1 && marks[0] === ',') {
        return {
          ambiguous: true,
          problem: `${quoted(typed)} could be a thousand or a decimal: write ${text.replace(',', '')} for a whole number, or ${text.replace(',', '.')} with a decimal point.`,
        };
      }
      if (marks.length > 1) text = text.replace(/[.,]/g, '');
    } else text = text.replace(',', '.');
  }
  if (!DECIMAL_PATTERN.test(text)) return notANumber;
  return { decimal: `${sign === '-' ? '-' : ''}${text}` };
}
