/**
 * An exported invoice run's invoices kept a hundred at a time, one row each (their JSON gzipped, as base64 text),
 * beside the run's row, which then holds only what the run says of them: which invoices are in force, by number.
 * Kept as one JSON text, a million-line month's first run (10,000 invoices, 601,268 lines, each invoice there
 * twice) was past the longest string JavaScript can make, and its export failed. Runs kept before stay as they
 * were: both are read.
 */
export const INVOICE_RUN_PARTS: string[] = [
  'CREATE TABLE invoice_run_invoices (run_id VARCHAR NOT NULL, part INTEGER NOT NULL, invoices_gzip VARCHAR NOT NULL, PRIMARY KEY (run_id, part))',
];
