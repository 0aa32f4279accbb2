import { PRODUCT_LINE_TABLES } from '../product-lines';

/**
 * The months' product lines (ledger/product-lines.ts). A month saved before gets its own at its first comparison:
 * summing every saved month here, at once, would not fit the ledger's memory.
 */
export const PRODUCT_LINES: string[] = Object.entries(PRODUCT_LINE_TABLES).map(([table, columns]) => `CREATE TABLE ${table} (${columns})`);
