/**
 * What the billing report reader hands over and which fields of each part it reads: the reader's side of the
 * contract with report-ingest.ts, apart from how the JSON is walked (report-assembler.ts, report-tokens.ts).
 */

/** The parts of a report handed over in parts: their lines as they come, their own fields when they end. */
export type ReportLevel = 'organization' | 'service' | 'subscription';

/**
 * What the reader hands over as it reads, in the order of the report. A part's lines come before its own fields
 * are known to be complete (a service's `currencyCode` may even follow its `items`), so a part is announced when
 * its list of children starts (`children`, with its fields read so far) and handed over with all of them (`end`).
 */
export interface ReportReaderHandlers {
  /** An organization's services, a service's items or a subscription's products begin; `fields` are its own fields read so far. */
  children?(level: ReportLevel, fields: Readonly<Record<string, unknown>>, path: string): void;
  /** One billing line, with the fields the interface names (others are skipped); `path` names it ("data.0.organizations.3.services.0.items.1.products.0"). */
  line(line: unknown, path: string): void;
  /** An organization, service or subscription is complete: its own fields, its list of children given as [] (or as sent when it was no list). */
  end(level: ReportLevel, fields: unknown, path: string, entryNo: number): void;
}

export interface ReportShell {
  /** The status as sent (number, text or anything else), undefined when absent. */
  status: unknown;
  /** What `data` was: an array of billing entries, null, absent, or something else. */
  data: 'array' | 'null' | 'absent' | 'other';
  /** True for a report file saved by an earlier Closebook ({ meta, entries }), which has no status. */
  saved: boolean;
  /** That file's `meta` object, as written. */
  meta: unknown;
  /** Each billing entry's own fields (billingDate …), by entry index; its organizations went to the handler. */
  entries: Map<number, Record<string, unknown>>;
}

/** The fields of each part that are read; any other field is skipped without being kept. */
export const ENTRY_FIELDS = new Set(['billingDate', 'billingContentStartDate', 'billingContentEndDate']);
export const OWN_FIELDS: Record<ReportLevel | 'line', Set<string>> = {
  organization: new Set(['name', 'customerNumber', 'orgId']),
  service: new Set(['serviceName', 'serviceId', 'totalResellerPrice', 'totalCustomerPrice', 'currencyCode', 'customerCurrencyCode']),
  subscription: new Set([
    'itemName',
    'subscriptionId',
    'poNumber',
    'quantity',
    'totalResellerPrice',
    'totalCustomerPrice',
    'resellerPricePerUnit',
    'customerPricePerUnit',
  ]),
  line: new Set([
    'productName',
    'productId',
    'itemCode',
    'quantity',
    'resellerPricePerUnit',
    'customerPricePerUnit',
    'totalResellerPrice',
    'totalCustomerPrice',
    'itemDetails',
  ]),
};
/** Each part's list of children (its key, which is also the role of that list). */
export const CHILDREN = { organization: 'services', service: 'items', subscription: 'products' } as const;
/** Each list of parts, by the part it holds. */
export const PART_OF_LIST = { organizations: 'organization', services: 'service', items: 'subscription' } as const;
