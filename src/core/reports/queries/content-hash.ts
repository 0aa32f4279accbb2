import type { Ledger } from '@core/ledger/ledger';
import { ORG_KEY } from '@core/ledger/keys';
import { rowShape } from '@core/ledger/rows';

/*
 * A report's content hash (content-hash.ts): its canonical lines, and the hash kept beside the report.
 */

const CANONICAL = rowShape({ line: 'text' });

/**
 * A report's lines in canonical form, in batches: each line's identity and values as text, in the compare key's
 * order, whatever order the service sent them in or however the file was saved.
 */
export async function* canonicalLines(ledger: Ledger, reportId: string): AsyncGenerator<string[]> {
  const batches = ledger.stream(
    `SELECT concat_ws(chr(31), ${ORG_KEY}, o.customer_number, s.service_id, u.subscription_id, l.product_id, l.item_code, l.quantity::VARCHAR,
       l.cost_per_unit::VARCHAR, l.sales_per_unit::VARCHAR, l.cost::VARCHAR, l.sales::VARCHAR, l.currency, l.customer_currency, l.item_details) AS line
     FROM billing_lines l
     JOIN organizations o ON o.report_id = l.report_id AND o.org_no = l.org_no
     JOIN services s ON s.report_id = l.report_id AND s.service_no = l.service_no
     JOIN subscriptions u ON u.report_id = l.report_id AND u.subscription_no = l.subscription_no
     WHERE l.report_id = $1 ORDER BY line`,
    [reportId],
  );
  for await (const rows of batches) yield CANONICAL.all(rows).map((row) => row.line);
}

const KEPT_HASH = rowShape({ content_hash: 'text?' });

/** The content hash kept for a report: null when it was not taken yet, undefined when there is no such report. */
export async function keptHashRow(ledger: Ledger, reportId: string): Promise<string | null | undefined> {
  const [row] = KEPT_HASH.all(await ledger.all('SELECT content_hash FROM reports WHERE report_id = $1', [reportId]));
  return row ? row.content_hash : undefined;
}

export async function keepHash(ledger: Ledger, reportId: string, hash: string): Promise<void> {
  await ledger.write((transaction) => transaction.run('UPDATE reports SET content_hash = $2 WHERE report_id = $1', [reportId, hash]));
}
