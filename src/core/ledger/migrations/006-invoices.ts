/**
 * Invoices out, per service host and reseller (a profile's Broker): the mapping of customers and items to the
 * accounting system (each entry as validated JSON, so a new field needs no migration), the invoice settings
 * (numbering, date format, what a line is), and every exported invoice run — its invoices with their numbers, kept
 * so that exporting it again gives the same files — with the files written from it and their hashes.
 */
const BROKER = 'host VARCHAR NOT NULL, reseller_id VARCHAR NOT NULL';

export const INVOICES: string[] = [
  `CREATE TABLE invoice_customers (${BROKER}, org_id VARCHAR NOT NULL, mapping VARCHAR NOT NULL, updated_at VARCHAR NOT NULL, updated_by VARCHAR NOT NULL,
    PRIMARY KEY (host, reseller_id, org_id))`,
  `CREATE TABLE invoice_items (${BROKER}, match VARCHAR NOT NULL, id VARCHAR NOT NULL, mapping VARCHAR NOT NULL, updated_at VARCHAR NOT NULL,
    updated_by VARCHAR NOT NULL, PRIMARY KEY (host, reseller_id, match, id))`,
  `CREATE TABLE invoice_settings (${BROKER}, settings VARCHAR NOT NULL, next_number INTEGER NOT NULL, PRIMARY KEY (host, reseller_id))`,
  `CREATE TABLE invoice_runs (run_id VARCHAR PRIMARY KEY, ${BROKER}, period_start VARCHAR NOT NULL, period_end VARCHAR NOT NULL,
    report_id VARCHAR NOT NULL, content_hash VARCHAR NOT NULL, run VARCHAR NOT NULL, run_hash VARCHAR NOT NULL, first_number VARCHAR NOT NULL,
    last_number VARCHAR NOT NULL, exported_at VARCHAR NOT NULL, exported_by VARCHAR NOT NULL)`,
  `CREATE TABLE invoice_files (run_id VARCHAR NOT NULL, format VARCHAR NOT NULL, name VARCHAR NOT NULL, sha256 VARCHAR NOT NULL, written_at VARCHAR NOT NULL,
    PRIMARY KEY (run_id, format, name))`,
];
