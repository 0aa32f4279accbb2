/**
 * The ledger's number types. Money is DECIMAL, never a binary float: amounts with 6 decimals, unit prices and
 * quantities with 8. All three fit DuckDB's 64-bit DECIMAL (width ≤ 18), whose appender takes the exact decimal
 * text; sums come back as DECIMAL(38, s), exact. A value beyond these bounds is refused at ingest naming the field,
 * never rounded.
 */
export const AMOUNT = { precision: 18, scale: 6 } as const;
export const UNIT_PRICE = { precision: 18, scale: 8 } as const;
export const QUANTITY = { precision: 18, scale: 8 } as const;

/** A DECIMAL type: how many digits in all, how many of them after the point. */
export interface DecimalType {
  precision: number;
  scale: number;
}

const decimal = (type: DecimalType) => `DECIMAL(${type.precision}, ${type.scale})`;
export const MONEY = decimal(AMOUNT);
export const PRICE = decimal(UNIT_PRICE);
export const QTY = decimal(QUANTITY);
/** A sum of amounts: as wide as DuckDB's DECIMAL goes, at the amounts' scale. */
export const MONEY_SUM = `DECIMAL(38, ${AMOUNT.scale})`;
