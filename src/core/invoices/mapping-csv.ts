import Papa from 'papaparse';
import { AppError } from '@shared/errors';
import { CustomerMapping, type InvoiceMapping, ItemMapping } from '@shared/schemas/invoices';
import { CSV_BOM, csvCell, csvLine } from '@core/formats/csv';
import { itemKey } from './mapping-store';

/**
 * The mapping as one CSV a finance user edits in a spreadsheet: a row per customer (`type` customer, `id` its
 * organization id) and per item (`type` item, `match` product, item-code or service, `id` what it matches), each
 * row using the columns of its type and leaving the others empty.
 */
export const MAPPING_COLUMNS = [
  'type',
  'match',
  'id',
  'contactName',
  'customerNumber',
  'paymentTermsDays',
  'vatTreatment',
  'buyerVatId',
  'country',
  'endpoint',
  'buyerReference',
  'customerTaxCode',
  'itemCode',
  'account',
  'taxCode',
  'vatCategory',
  'vatRate',
  'exemptionReason',
  'unitCode',
  'description',
  'seenAs',
] as const;
type Column = (typeof MAPPING_COLUMNS)[number];

/** At most this many problems are named in one message; the count says how many more. */
const PROBLEMS_SHOWN = 10;
const MAX_ROWS = 100_000;

/** Rows to fill in, for what a month has that the mapping lacks: its customers, and its services' defaults. */
export interface MappingSuggestions {
  customers: { orgId: string; organization: string; customerNumber: string }[];
  services: { serviceId: string; serviceName: string; products: string[] }[];
}

/**
 * The mapping as CSV, then a row to fill in for each suggestion: a customer with its name as the contact name and
 * its customer number, a service's default item. `seenAs` says what a row is (read by people, ignored on import).
 */
export function mappingCsv(mapping: InvoiceMapping, suggestions: MappingSuggestions = { customers: [], services: [] }): string {
  const row = (values: Partial<Record<Column, string | number>>) => csvLine(MAPPING_COLUMNS.map((column) => csvCell(values[column] ?? '', 'text')));
  const lines = [csvLine([...MAPPING_COLUMNS])];
  for (const customer of suggestions.customers)
    lines.push(
      row({
        type: 'customer',
        id: customer.orgId,
        contactName: customer.organization,
        customerNumber: customer.customerNumber,
        seenAs: `${customer.organization} (not mapped yet)`,
      }),
    );
  for (const service of suggestions.services)
    lines.push(
      row({
        type: 'item',
        match: 'service',
        id: service.serviceId,
        unitCode: 'C62',
        seenAs: `${service.serviceName}: default for ${service.products.slice(0, 5).join(', ')}${service.products.length > 5 ? ` and ${service.products.length - 5} more` : ''} (not mapped yet)`,
      }),
    );
  for (const customer of mapping.customers)
    lines.push(
      row({
        type: 'customer',
        id: customer.orgId,
        ...customer,
        taxCode: undefined,
        customerTaxCode: customer.taxCode,
        paymentTermsDays: String(customer.paymentTermsDays),
      }),
    );
  for (const item of mapping.items) lines.push(row({ type: 'item', ...item }));
  return CSV_BOM + lines.join('');
}

/** A decimal comma in a rate ("12,5") is the same rate: unambiguous, as a rate has no thousands. */
const rate = (text: string) => text.trim().replace(/^(\d+),(\d+)$/, '$1.$2');

/**
 * Reads a mapping CSV (comma or semicolon separated, as a spreadsheet saves it). Every row is checked; one message
 * names each problem by its line and column, and nothing is kept unless the whole file is good.
 */
export function parseMappingCsv(content: string): InvoiceMapping {
  const text = content.replace(/^\uFEFF/, '');
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: 'greedy', delimitersToGuess: [',', ';', '\t'] });
  const quote = parsed.errors.find((error) => error.type === 'Quotes');
  if (quote) throw new AppError('validation', `The mapping file has an unclosed quote near line ${(quote.row ?? 0) + 1}. Save it again as CSV.`);
  const [header, ...rows] = parsed.data;
  const columns = (header ?? []).map((cell) => cell.trim().replace(/^\*/, ''));
  const missing = ['type', 'id'].filter((column) => !columns.includes(column));
  if (!header || missing.length)
    throw new AppError(
      'validation',
      `The mapping file needs a header row with the columns ${MAPPING_COLUMNS.join(', ')} (missing: ${missing.join(', ') || 'all'}).`,
    );
  if (rows.length > MAX_ROWS)
    throw new AppError('validation', `The mapping file has ${rows.length.toLocaleString('en')} rows; at most ${MAX_ROWS.toLocaleString('en')} are read.`);
  const problems: string[] = [];
  const mapping: InvoiceMapping = { customers: [], items: [] };
  const seen = new Map<string, number>();
  rows.forEach((cells, index) => {
    const line = index + 2;
    const value = (column: Column) => (cells[columns.indexOf(column)] ?? '').trim();
    const type = value('type').toLowerCase();
    const issues = (error: { issues: { path: PropertyKey[]; message: string }[] }) =>
      error.issues.forEach((issue) => problems.push(`line ${line}, ${String(issue.path[0] ?? 'row')}: ${issue.message}`));
    if (type === 'customer') {
      const days = value('paymentTermsDays');
      const result = CustomerMapping.safeParse({
        orgId: value('id'),
        contactName: value('contactName'),
        customerNumber: value('customerNumber'),
        paymentTermsDays: /^\d+$/.test(days) ? Number(days) : days === '' ? undefined : days,
        vatTreatment: value('vatTreatment'),
        buyerVatId: value('buyerVatId'),
        country: value('country').toUpperCase(),
        endpoint: value('endpoint'),
        buyerReference: value('buyerReference'),
        taxCode: value('customerTaxCode'),
      });
      if (!result.success) return issues(result.error);
      const key = `customer ${result.data.orgId}`;
      if (seen.has(key)) return problems.push(`line ${line}: ${key} is also on line ${seen.get(key)}`);
      seen.set(key, line);
      mapping.customers.push(result.data);
    } else if (type === 'item') {
      const result = ItemMapping.safeParse({
        match: value('match'),
        id: value('id'),
        itemCode: value('itemCode'),
        account: value('account'),
        taxCode: value('taxCode'),
        vatCategory: value('vatCategory').toUpperCase(),
        vatRate: rate(value('vatRate')),
        exemptionReason: value('exemptionReason'),
        unitCode: value('unitCode').toUpperCase() || undefined,
        description: value('description'),
      });
      if (!result.success) return issues(result.error);
      const key = `item ${itemKey(result.data)}`;
      if (seen.has(key)) return problems.push(`line ${line}: ${key} is also on line ${seen.get(key)}`);
      seen.set(key, line);
      mapping.items.push(result.data);
    } else problems.push(`line ${line}: type is "${value('type')}"; write customer or item`);
  });
  if (problems.length) {
    const more = problems.length > PROBLEMS_SHOWN ? ` (and ${problems.length - PROBLEMS_SHOWN} more)` : '';
    throw new AppError('validation', `The mapping file was not imported; nothing changed. Fix: ${problems.slice(0, PROBLEMS_SHOWN).join('; ')}${more}.`);
  }
  return mapping;
}
