import Papa from 'papaparse';
import { AppError } from '@shared/errors';
import { CustomerMapping, type InvoiceMapping, ItemMapping } from '@shared/schemas/invoices';
import { beforeFormulaSafe, CSV_BOM, csvCell, csvLine } from '@core/formats/csv';
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

/** The customer fields whose column is named otherwise in the file (the rest are named as their fields). */
const CUSTOMER_COLUMNS = { orgId: 'id', taxCode: 'customerTaxCode' } as const satisfies Partial<Record<keyof CustomerMapping, Column>>;

/** What the schema says of a cell, as it reaches a problem: its own words, or zod's generic ones (see plainProblem). */
interface SchemaIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  minimum?: unknown;
  maximum?: unknown;
  values?: unknown[];
}

/** A cell's problem in words a spreadsheet user acts on, where the schema gives only zod's generic text. */
function plainProblem(issue: SchemaIssue, column: string): string {
  if (column === 'paymentTermsDays') return 'write the whole days to pay, from 0 to 365 (such as 30)';
  if (issue.code === 'too_small' && issue.minimum === 1 && issue.message.startsWith('Too small')) return 'is empty; fill it in';
  if (issue.code === 'too_big' && issue.message.startsWith('Too big')) return `is longer than ${String(issue.maximum)} characters`;
  if (issue.code === 'invalid_value' && issue.values?.length) return `write one of ${issue.values.join(', ')}`;
  return issue.message;
}

/** The columns of text that reach the accounting system (every one but the row's kind, key and `seenAs`). */
const ESCAPE_CHECKED = MAPPING_COLUMNS.filter((column) => !['type', 'match', 'id', 'seenAs'].includes(column));

/** A column's name as matched: case, spaces, underscores and a leading `*` (a required mark) make no difference. */
const columnKey = (name: string) => name.trim().replace(/^\*/, '').replace(/[\s_]/g, '').toLowerCase();
const COLUMN_OF_KEY = new Map<string, Column>(MAPPING_COLUMNS.map((column) => [columnKey(column), column]));

/**
 * Reads a mapping CSV (comma or semicolon separated, as a spreadsheet saves it). Every row is checked; one message
 * names each problem by its row (as the spreadsheet numbers it) and column, and nothing is kept unless the whole file
 * is good. An import replaces the whole mapping, so a file that would lose what is kept without saying so — letters
 * that could not be read, a column not read, no rows at all — is refused.
 */
export function parseMappingCsv(content: string): InvoiceMapping {
  const text = content.replace(/^\uFEFF/, '');
  // Read as UTF-8, a file saved in another encoding has U+FFFD where its letters were (Excel's plain "CSV" is
  // Windows-1252; "Unicode Text" is UTF-16, full of NULs).
  if (text.includes('\uFFFD') || text.includes('\u0000'))
    throw new AppError(
      'validation',
      'The mapping file is not saved as UTF-8, so letters such as Å or é in it cannot be read; nothing changed. In Excel, save it as "CSV UTF-8 (Comma delimited)" and import it again.',
    );
  // Empty rows are kept while reading, so that every row is numbered as the spreadsheet shows it.
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: false, delimitersToGuess: [',', ';', '\t'] });
  const quote = parsed.errors.find((error) => error.type === 'Quotes');
  if (quote) throw new AppError('validation', `The mapping file has an unclosed quote near row ${(quote.row ?? 0) + 1}. Save it again as CSV.`);
  const [header = [], ...rows] = parsed.data;
  const at = new Map<Column, number>();
  const unknown: string[] = [];
  const twice: string[] = [];
  header.forEach((cell, index) => {
    if (!cell.trim()) return; // a column a spreadsheet left without a name
    const column = COLUMN_OF_KEY.get(columnKey(cell));
    if (!column) unknown.push(`"${cell.trim()}"`);
    else if (at.has(column)) twice.push(`"${cell.trim()}"`);
    else at.set(column, index);
  });
  const missing = ['type', 'id'].filter((column) => !at.has(column as Column));
  if (missing.length)
    throw new AppError(
      'validation',
      `The mapping file needs a header row with the columns ${MAPPING_COLUMNS.join(', ')} (missing: ${missing.join(', ')}); nothing changed.`,
    );
  if (unknown.length || twice.length)
    throw new AppError(
      'validation',
      `The mapping file was not imported; nothing changed. ${unknown.length ? `Closebook reads no column named ${unknown.join(', ')}: rename it to one of ${MAPPING_COLUMNS.join(', ')}, or remove it. ` : ''}${twice.length ? `The column ${twice.join(', ')} is there twice: keep one. ` : ''}`.trim(),
    );
  if (rows.length > MAX_ROWS)
    throw new AppError('validation', `The mapping file has ${rows.length.toLocaleString('en')} rows; at most ${MAX_ROWS.toLocaleString('en')} are read.`);
  const problems: string[] = [];
  const mapping: InvoiceMapping = { customers: [], items: [] };
  const seen = new Map<string, number>();
  rows.forEach((cells, index) => {
    if (cells.every((cell) => !cell.trim())) return;
    const rowNumber = index + 2; // the header is row 1
    const cell = (column: Column) => (cells[at.get(column) ?? -1] ?? '').trim();
    // The export escapes every cell against formulas: a key comes back as it was; a value escaped so (a name that
    // begins like a formula) would reach the accounting system with its apostrophe, and is named.
    const value = (column: Column) => (column === 'id' ? beforeFormulaSafe(cell(column)) : cell(column));
    for (const column of ESCAPE_CHECKED) {
      const text = cell(column);
      if (beforeFormulaSafe(text) !== text)
        problems.push(
          `row ${rowNumber}, ${column}: "${text}" holds the apostrophe a spreadsheet file puts before = + - or @, which the accounting system would keep; reword it so that none of them begins it`,
        );
    }
    const type = value('type').toLowerCase();
    const issues = (error: { issues: SchemaIssue[] }, columnOf: Partial<Record<string, Column>> = {}) =>
      error.issues.forEach((issue) => {
        const field = String(issue.path[0] ?? '');
        const column = columnOf[field] ?? field;
        problems.push(`row ${rowNumber}, ${column || 'the row'}: ${plainProblem(issue, column)}`);
      });
    if (type === 'customer') {
      const days = value('paymentTermsDays');
      const result = CustomerMapping.safeParse({
        orgId: value(CUSTOMER_COLUMNS.orgId),
        contactName: value('contactName'),
        customerNumber: value('customerNumber'),
        paymentTermsDays: /^\d+$/.test(days) ? Number(days) : days === '' ? undefined : days,
        vatTreatment: value('vatTreatment'),
        buyerVatId: value('buyerVatId'),
        country: value('country').toUpperCase(),
        endpoint: value('endpoint'),
        buyerReference: value('buyerReference'),
        taxCode: value(CUSTOMER_COLUMNS.taxCode),
      });
      if (!result.success) return issues(result.error, CUSTOMER_COLUMNS);
      const key = `customer ${result.data.orgId}`;
      if (seen.has(key)) return problems.push(`row ${rowNumber}: ${key} is also on row ${seen.get(key)}`);
      seen.set(key, rowNumber);
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
      if (seen.has(key)) return problems.push(`row ${rowNumber}: ${key} is also on row ${seen.get(key)}`);
      seen.set(key, rowNumber);
      mapping.items.push(result.data);
    } else problems.push(`row ${rowNumber}: type is "${value('type')}"; write customer or item`);
  });
  if (problems.length) {
    const more = problems.length > PROBLEMS_SHOWN ? ` (and ${problems.length - PROBLEMS_SHOWN} more)` : '';
    throw new AppError('validation', `The mapping file was not imported; nothing changed. Fix: ${problems.slice(0, PROBLEMS_SHOWN).join('; ')}${more}.`);
  }
  if (!mapping.customers.length && !mapping.items.length)
    throw new AppError(
      'validation',
      'The mapping file has no customer or item rows, and an import replaces the whole mapping; nothing changed. Export the mapping, fill it in and import that file.',
    );
  return mapping;
}
