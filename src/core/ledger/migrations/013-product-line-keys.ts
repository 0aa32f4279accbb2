import { PRODUCT_LINE_TABLES } from '../product-lines';

/**
 * The months' product lines made again with each key's hash (`key_hash`, what two months are joined on). They are
 * derived, so they are let go rather than hashed here: each month sums its own again at its next comparison (at
 * 1,000,000 lines about 2 s a month, once), as a month saved before migration 11 does.
 */
export const PRODUCT_LINE_KEYS: string[] = [
  'DROP TABLE product_lines',
  ...Object.entries(PRODUCT_LINE_TABLES).map(([table, columns]) => `CREATE TABLE ${table} (${columns})`),
];
