import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { ReportMeta } from '@shared/schemas/saved-report';
import type { Ledger } from '@core/ledger/ledger';
import { billingEntries, groupsByOrganization, linesOfEntry, type ShareRow } from './queries/share';

/** A number the ledger gave as exact text, written as a JSON number literal (no float on the way). */
const number = (value: unknown) =>
  value === null || value === undefined
    ? 'null'
    : String(value)
        .replace(/(\.\d*?)0+$/, '$1')
        .replace(/\.$/, '');
const text = (value: unknown) => JSON.stringify(value === null || value === undefined ? '' : String(value));

/**
 * Writes a saved report as the file colleagues exchange — `{ meta, entries }` in the shape the service sends (gzip),
 * streamed from the ledger organization by organization, so a million lines never sit in memory. The import reads
 * it back through the same streaming ingest as a fetched report.
 */
export async function writeSharedReport(ledger: Ledger, meta: ReportMeta, path: string): Promise<void> {
  await ledger.outputs.writeStream(path, async (sink) => {
    const gzip = createGzip({ level: 6 });
    const done = pipeline(gzip, sink, { end: false });
    done.catch(() => undefined); // a failure is seen below, or by the sink's own failure that ends the export
    const write = async (chunk: string) => {
      sink.check();
      if (!gzip.write(chunk)) await Promise.race([once(gzip, 'drain'), sink.failure, done]);
    };
    try {
      await writeEntries(ledger, meta, write);
      gzip.end();
      await done;
    } finally {
      gzip.destroy();
    }
  });
}

/** The `{ meta, entries }` document, written in pieces by `write`. */
async function writeEntries(ledger: Ledger, meta: ReportMeta, write: (chunk: string) => Promise<void>): Promise<void> {
  const groups = await groupsByOrganization(ledger, meta.id);
  const entries = await billingEntries(ledger, meta.id);
  await write(`{"meta":${JSON.stringify(meta)},"entries":[`);
  const open = { entry: -1, org: -1, service: -1, subscription: -1 };
  const close = async (level: 'entry' | 'org' | 'service' | 'subscription') => {
    const order = ['subscription', 'service', 'org', 'entry'] as const;
    for (const name of order.slice(0, order.indexOf(level) + 1)) {
      if (open[name] !== -1) await write(']}');
      open[name] = -1;
    }
  };
  let firstEntry = true;
  for (const entry of entries) {
    await write(
      `${firstEntry ? '' : ','}{"billingDate":${text(entry.billing_date)},"billingContentStartDate":${text(entry.content_start)},"billingContentEndDate":${text(entry.content_end)},"organizations":[`,
    );
    firstEntry = false;
    open.entry = entry.entry_no;
    let first = { org: true, service: true, subscription: true, line: true };
    for await (const rows of linesOfEntry(ledger, meta.id, entry.entry_no)) {
      for (const row of rows) {
        if (row.org_no !== open.org) {
          await close('org');
          await write(`${first.org ? '' : ','}${organizationStart(row, groups.get(row.org_no) ?? [])}`);
          Object.assign(first, { org: false, service: true });
          open.org = row.org_no;
        }
        if (row.service_no !== open.service) {
          await close('service');
          await write(`${first.service ? '' : ','}${serviceStart(row)}`);
          Object.assign(first, { service: false, subscription: true });
          open.service = row.service_no;
        }
        if (row.subscription_no !== open.subscription) {
          await close('subscription');
          await write(`${first.subscription ? '' : ','}${subscriptionStart(row)}`);
          Object.assign(first, { subscription: false, line: true });
          open.subscription = row.subscription_no;
        }
        await write(`${first.line ? '' : ','}${line(row)}`);
        first.line = false;
      }
    }
    await close('entry');
    first = { org: true, service: true, subscription: true, line: true };
  }
  await write(']}');
}

function organizationStart(row: ShareRow, groups: string[]): string {
  return `{"name":${text(row.name)},"customerNumber":${text(row.customer_number)},"orgId":${text(row.org_id)},"organizationGroups":${JSON.stringify(groups)},"services":[`;
}

function serviceStart(row: ShareRow): string {
  return `{"serviceName":${text(row.service_name)},"serviceId":${text(row.service_id)},"totalResellerPrice":${text(number(row.s_cost))},"totalCustomerPrice":${text(number(row.s_sales))},"currencyCode":${text(row.currency)},"customerCurrencyCode":${text(row.customer_currency)},"items":[`;
}

function subscriptionStart(row: ShareRow): string {
  const perUnit = (value: unknown) => (value === null ? 'null' : text(number(value)));
  return `{"itemName":${text(row.item_name)},"subscriptionId":${text(row.subscription_id)},"poNumber":${text(row.po_number)},"quantity":${number(row.u_quantity)},"totalResellerPrice":${text(number(row.u_cost))},"totalCustomerPrice":${text(number(row.u_sales))},"resellerPricePerUnit":${perUnit(row.u_cost_per_unit)},"customerPricePerUnit":${perUnit(row.u_sales_per_unit)},"products":[`;
}

function line(row: ShareRow): string {
  return `{"productName":${text(row.product_name)},"productId":${text(row.product_id)},"itemCode":${text(row.item_code)},"quantity":${number(row.quantity)},"resellerPricePerUnit":${text(number(row.cost_per_unit))},"customerPricePerUnit":${text(number(row.sales_per_unit))},"totalResellerPrice":${text(number(row.cost))},"totalCustomerPrice":${text(number(row.sales))},"itemDetails":${text(row.item_details)}}`;
}
