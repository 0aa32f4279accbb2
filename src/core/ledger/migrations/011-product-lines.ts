/**
 * The months' product lines (ledger/product-lines.ts), as this migration first made them: migration 13 makes them
 * again with their key's hash. A month saved before gets its own at its first comparison: summing every saved month
 * here, at once, would not fit the ledger's memory.
 */
export const PRODUCT_LINES: string[] = [
  `CREATE TABLE product_lines (report_id VARCHAR NOT NULL, org_key VARCHAR, service_id VARCHAR, subscription_id VARCHAR, product_id VARCHAR,
    currency VARCHAR, customer_currency VARCHAR, quantity DECIMAL(38, 8), cost DECIMAL(38, 6), sales DECIMAL(38, 6),
    unit_price DECIMAL(18, 8), unit_cost DECIMAL(18, 8), first_line INTEGER)`,
];
