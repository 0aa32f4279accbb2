import type { DecimalType } from './types';

/**
 * SQL: a column of DECIMAL `type` (its scale > 0) as its shortest exact text ("12.5", not "12.50000000"; "12", not
 * "12.00000000"), as the ledger's decimals are shown and written everywhere (a change's sides and effects, the CSV's
 * numbers). NULL stays NULL. A column of another DECIMAL type (an effect made in the statement) is exact too, as long
 * as its values fit `type`.
 *
 * A value that fits DECIMAL(18, scale) — every amount, price and quantity of a line, most sums — is made text through
 * it (DuckDB writes a 128-bit DECIMAL about five times slower than a 64-bit one: the eight sides of 345,774 changes
 * 0.60 s against 0.13 s), and what is cut from the text's end is counted in 64-bit whole numbers: the value's
 * fraction as an integer of `scale` digits, and how many of its last digits are zero (all of them: the point goes
 * too). `rtrim` cut them a character at a time, and that was most of the cost: at 1,000,000 lines the CSV's five
 * numbers a line took DuckDB 619–804 ms (median 727), against 292–357 ms counted so and 113–143 ms for the text
 * alone. A value of a wider type is made DECIMAL(18, scale) with TRY_CAST, which gives NULL where it does not fit,
 * and only such a value (and NULL) reaches `rtrim` after it in `coalesce`: the eight sides of 345,774 kept changes
 * took 224–271 ms, against 398–414 ms asking first, in a CASE, whether each fits (`abs(…) < 10^…`). Counted in
 * 128-bit numbers instead, a comparison's effects (scale 16) made its listing twice as slow.
 */
export function shortestDecimalText(column: string, type: DecimalType): string {
  const { precision, scale } = type;
  if (!Number.isInteger(scale) || scale < 1 || scale > 17 || scale > precision) throw new Error(`No shortest text for DECIMAL(${precision}, ${scale}).`);
  const small = precision <= 18 ? `(${column})::DECIMAL(18, ${scale})` : `TRY_CAST((${column}) AS DECIMAL(18, ${scale}))`;
  const text = `${small}::VARCHAR`;
  // |fraction| < 1, so the integer is below 10^scale (a negative value's is negative).
  const fraction = `((${small} % 1) * ${10n ** BigInt(scale)})::BIGINT`;
  const arms = [`WHEN ${fraction} = 0 THEN ${scale + 1}`];
  for (let zeros = scale - 1; zeros >= 1; zeros--) arms.push(`WHEN ${fraction} % ${10n ** BigInt(zeros)} = 0 THEN ${zeros}`);
  const counted = `left(${text}, strlen(${text}) - CASE ${arms.join(' ')} ELSE 0 END)`;
  if (precision <= 18) return counted;
  return `coalesce(${counted}, rtrim(rtrim((${column})::VARCHAR, '0'), '.'))`;
}
