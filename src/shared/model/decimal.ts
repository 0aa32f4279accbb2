import { z } from 'zod';

/**
 * Decimals as text — how money and quantities travel everywhere in Closebook (never as floats).
 * DECIMAL_PATTERN: what the service and a user may write ("1234.56", "-0.5", ".5", "+3."): a point for the decimals,
 * no grouping, no exponent. PLAIN_DECIMAL: what Closebook itself writes (the ledger's and decimal.js's text:
 * "-12.500000", "3") — a number in every spreadsheet, never a formula.
 */
export const DECIMAL_PATTERN = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
export const PLAIN_DECIMAL = /^-?\d+(?:\.\d+)?$/;

export const DecimalText = z.string().regex(DECIMAL_PATTERN, 'must be a decimal number like 1234.56');
