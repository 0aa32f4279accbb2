import { CSV_BOM, csvCell, csvLine, formulaSafe } from '@core/formats/csv';
import { type DateFormat, INVOICE_FIELDS, type InvoiceFormat, type InvoiceTemplate, type Seller } from '@shared/schemas/invoices';
import { type Invoice, type InvoiceLine, negatedText } from './invoice-run';
import { ublInvoice, ublRefusal } from './ubl';
import { looksLikeFormula } from './mapping-store';

export function formatDate(date: string, format: DateFormat): string {
  const [year, month, day] = date.split('-') as [string, string, string];
  return format.replace('YYYY', year).replace('MM', month).replace('DD', day);
}

/** One column of an import file: its header as the accounting system's template names it, and its value. */
interface Column {
  header: string;
  kind?: 'text' | 'number';
  value(invoice: Invoice, line: InvoiceLine, dates: (date: string) => string): string;
}

const blank = (header: string): Column => ({ header, value: () => '' });

/**
 * Xero's sales invoice import template, its columns in its order (the asterisks mark what Xero requires). One row
 * per line; the rows of an invoice share its number. A negative total imports as a credit note.
 */
const XERO: Column[] = [
  { header: '*ContactName', value: (invoice) => invoice.contactName },
  blank('EmailAddress'),
  ...['POAddressLine1', 'POAddressLine2', 'POAddressLine3', 'POAddressLine4', 'POCity', 'PORegion', 'POPostalCode'].map(blank),
  { header: 'POCountry', value: (invoice) => invoice.buyer.country },
  { header: '*InvoiceNumber', value: (invoice) => invoice.number ?? '' },
  { header: 'Reference', value: (invoice) => invoice.periodText },
  { header: '*InvoiceDate', value: (invoice, _, dates) => dates(invoice.invoiceDate) },
  { header: '*DueDate', value: (invoice, _, dates) => dates(invoice.dueDate) },
  { header: 'InventoryItemCode', value: (_, line) => line.itemCode },
  { header: '*Description', value: (_, line) => line.description },
  { header: '*Quantity', kind: 'number', value: (_, line) => line.quantity },
  { header: '*UnitAmount', kind: 'number', value: (_, line) => line.unitPrice },
  blank('Discount'),
  { header: '*AccountCode', value: (_, line) => line.account },
  { header: '*TaxType', value: (_, line) => line.taxCode },
  ...['TrackingName1', 'TrackingOption1', 'TrackingName2', 'TrackingOption2'].map(blank),
  { header: 'Currency', value: (invoice) => invoice.currency },
  blank('BrandingTheme'),
];

/**
 * QuickBooks Online's invoice import, by the column names it maps by itself. QuickBooks takes an invoice's currency
 * from its customer, so a file holds one currency. Its invoice numbers are kept only with the company's custom
 * transaction numbers on (Account and settings → Sales → Custom transaction numbers).
 */
const QUICKBOOKS: Column[] = [
  { header: 'Invoice no', value: (invoice) => invoice.number ?? '' },
  { header: 'Customer', value: (invoice) => invoice.contactName },
  { header: 'Invoice date', value: (invoice, _, dates) => dates(invoice.invoiceDate) },
  { header: 'Due date', value: (invoice, _, dates) => dates(invoice.dueDate) },
  { header: 'Memo', value: (invoice) => invoice.periodText },
  { header: 'Item(Product/Service)', value: (_, line) => line.itemCode },
  { header: 'Item description', value: (_, line) => line.description },
  { header: 'Item quantity', kind: 'number', value: (_, line) => line.quantity },
  { header: 'Item rate', kind: 'number', value: (_, line) => line.unitPrice },
  { header: 'Item amount', kind: 'number', value: (_, line) => line.netAmount },
  { header: 'Item tax code', value: (_, line) => line.taxCode },
];

/** Xero imports at most this many invoices from one file. */
export const XERO_INVOICES_PER_FILE = 500;

/** QuickBooks imports at most 100 invoices from one file, and reads at most 1,000 rows of it, its header among them. */
const QUICKBOOKS_INVOICES_PER_FILE = 100;
const QUICKBOOKS_LINES_PER_FILE = 999;

/** QuickBooks Online takes an invoice number (its DocNumber) of at most 21 characters, and refuses a longer one. */
const QUICKBOOKS_NUMBER_LENGTH = 21;

/** Why QuickBooks Online would refuse these invoice numbers (the first too long, said); null when it takes them. */
export function quickBooksNumberProblem(numbers: Iterable<string | null>): string | null {
  for (const number of numbers)
    if (number && number.length > QUICKBOOKS_NUMBER_LENGTH)
      return `QuickBooks Online takes invoice numbers of at most ${QUICKBOOKS_NUMBER_LENGTH} characters, and ${number} has ${number.length}: a shorter prefix (the invoice settings) gives shorter numbers, or export these in another format`;
  return null;
}

export interface InvoiceFile {
  name: string;
  invoices: number;
  /**
   * The file's text in pieces (its header, then an invoice's rows each), made as they are taken. A file is never
   * held whole: a 7 MB string lives until the next full garbage collection, and a million-line month's Xero files
   * so held took the export from 0.6 GB of invoices to 2 GB.
   */
  pieces(): AsyncIterable<string>;
}

/** What a format makes of a run: its files, made as they are taken; invoices not written, and what to check in those written, each with why. */
export interface InvoiceFiles {
  files: AsyncIterable<InvoiceFile>;
  refused: string[];
  warnings: string[];
}

/** Invoices in order, held or read as they are taken. */
type Invoices = Iterable<Invoice> | AsyncIterable<Invoice>;

async function* table(columns: Column[], invoices: Invoices, dateFormat: DateFormat): AsyncGenerator<string> {
  const dates = (date: string) => formatDate(date, dateFormat);
  yield CSV_BOM + csvLine(columns.map((column) => csvCell(column.header, 'text')));
  for await (const invoice of invoices)
    yield invoice.lines.map((line) => csvLine(columns.map((column) => csvCell(column.value(invoice, line, dates), column.kind ?? 'text')))).join('');
}

/**
 * A numbered run's issued invoices, in order, made as they are taken: from memory, or read from the ledger a kept
 * part at a time (invoice-store.ts). Written again, a million-line month's are half a gigabyte as objects.
 */
export interface IssuedInvoices {
  readonly count: number;
  /** The invoices `from` … `to` − 1. */
  range(from: number, to: number): Invoices;
}

/** Issued invoices held in memory (a run just numbered). */
export const issuedInMemory = (invoices: readonly Invoice[]): IssuedInvoices => ({
  count: invoices.length,
  range: (from, to) => invoices.slice(from, to),
});

/** A numbered run as its files need it. */
export interface RunForFiles {
  issued: IssuedInvoices;
  dateFormat: DateFormat;
  approved: boolean;
  seller: Seller;
  /** The month invoiced: "2026-10-01" and "2026-10-31". */
  period: { start: string; end: string };
  /** The user's own format (the Broker's template), for `template`. */
  template: InvoiceTemplate | null;
}

/**
 * The files of a numbered run in one format, named by the month: Xero's in parts of at most 500 invoices;
 * QuickBooks' per currency, in parts it imports whole, and an invoice too long for any named with what to do; UBL
 * one per invoice, and the invoices EN 16931 cannot carry listed with why (not written). Every
 * value was checked not to look like a formula when the run was made. A run of a month no second person approved
 * says so in every file's name (an import file has no room for a note that would not end up on the customer's
 * invoice). The files are made one at a time as they are taken: a million-line month's are some 350 MB of text.
 */
export async function invoiceFiles(format: InvoiceFormat, run: RunForFiles): Promise<InvoiceFiles> {
  const marker = run.approved ? '' : ' (not approved by a second person)';
  const all = () => run.issued.range(0, run.issued.count);
  if (format === 'ubl') {
    const refused: string[] = [];
    for await (const invoice of all()) {
      const refusal = ublRefusal(invoice, run.seller);
      if (refusal) refused.push(refusal);
    }
    return { files: ublFiles(run, marker), refused, warnings: [] };
  }
  const stem = `${run.period.start.slice(0, 7)}${marker}`;
  if (format === 'template') {
    const { template } = run;
    if (!template) return { files: each([]), refused: ['No template of your own is set: make one (invoices template --import FILE.json)'], warnings: [] };
    const refused = await templateRefusals(template, all());
    if (refused.length) return { files: each([]), refused, warnings: [] };
    const name = `${template.name.replace(/[^A-Za-z0-9._-]+/g, '-')}-${stem}.csv`;
    return { files: each([{ name, pieces: () => templatePieces(template, all()), invoices: run.issued.count }]), refused: [], warnings: [] };
  }
  if (format === 'xero') return { files: xeroFiles(run.issued, stem, run.dateFormat), refused: [], warnings: [] };
  const { parts, tooLong, numberProblem } = await quickBooksParts(run.issued, stem);
  if (numberProblem) return { files: each([]), refused: [numberProblem], warnings: [] };
  return { files: quickBooksFiles(run.issued, parts, stem, run.dateFormat), refused: [], warnings: tooLong };
}

/** What is held, taken as what is read. */
async function* each<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

async function* ublFiles(run: RunForFiles, marker: string): AsyncGenerator<InvoiceFile> {
  for await (const invoice of run.issued.range(0, run.issued.count)) {
    const made = ublInvoice(invoice, run.seller, run.period);
    if (!('refused' in made)) yield { name: made.name.replace(/\.xml$/, `${marker}.xml`), pieces: () => each([made.content]), invoices: 1 };
  }
}

type Field = InvoiceTemplate['columns'][number]['field'];
const NUMBER_FIELDS = new Set<Field>(['netTotal', 'vatTotal', 'grossTotal', 'quantity', 'unitPrice', 'netAmount', 'vatAmount', 'vatRate']);
const DATE_FIELDS = new Set<Field>(['invoiceDate', 'dueDate']);

function fieldValue(field: Field, invoice: Invoice, line: InvoiceLine | null, lineNumber: number): string {
  switch (field) {
    case 'invoiceNumber':
      return invoice.number ?? '';
    case 'kind':
      return invoice.kind === 'invoice' ? 'Invoice' : 'Credit note';
    case 'buyerVatId':
      return invoice.buyer.vatId;
    case 'country':
      return invoice.buyer.country;
    case 'lineNumber':
      return String(lineNumber);
    case 'contactName':
    case 'customerNumber':
    case 'orgId':
    case 'invoiceDate':
    case 'dueDate':
    case 'periodText':
    case 'currency':
    case 'po':
    case 'netTotal':
    case 'vatTotal':
    case 'grossTotal':
      return invoice[field];
    default:
      return line ? line[field] : '';
  }
}

/**
 * A template may carry values no mapping check saw — the service's PO and customer numbers. One that a spreadsheet
 * would run as a formula refuses the file, named with its invoices and what to do, rather than be written escaped:
 * an import keeps values exact, and an apostrophe would be imported with it.
 */
async function templateRefusals(template: InvoiceTemplate, invoices: Invoices): Promise<string[]> {
  const invoiceFields: readonly string[] = INVOICE_FIELDS;
  const columns = template.columns.filter(({ field }) => invoiceFields.includes(field) && !NUMBER_FIELDS.has(field) && !DATE_FIELDS.has(field));
  const found = new Map<string, { header: string; value: string; numbers: string[] }>();
  for await (const invoice of invoices)
    for (const { header, field } of columns) {
      const value = fieldValue(field, invoice, null, 0);
      if (!looksLikeFormula(value)) continue;
      const key = JSON.stringify([header, value]);
      const entry = found.get(key) ?? { header, value, numbers: [] };
      entry.numbers.push(invoice.number ?? '');
      found.set(key, entry);
    }
  return [...found.values()].map(({ header, value, numbers }) => {
    const which =
      numbers.length === 1 ? `invoice ${numbers[0]}` : `${numbers.length} invoices: ${numbers.slice(0, 3).join(', ')}${numbers.length > 3 ? ' …' : ''}`;
    return `your template's ${header} "${value}" (${which}) would run as a formula in a spreadsheet; change it in the service or the mapping, or leave the column out of the template`;
  });
}

/**
 * The user's own import file: their columns in their order, dates and decimals as their system reads them, a row
 * per line or per invoice. Text goes through the formula escape (it was checked at the run); a number is written as
 * the number it is, with the decimal separator chosen, never as text.
 */
export async function* templatePieces(template: InvoiceTemplate, invoices: Invoices): AsyncGenerator<string> {
  const separator = template.delimiter === 'tab' ? '\t' : template.delimiter;
  const quote = (text: string) => (text.includes(separator) || /["\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);
  const cell = (field: Field, value: string) => {
    if (NUMBER_FIELDS.has(field)) return quote(template.decimalSeparator === ',' ? value.replace('.', ',') : value);
    if (DATE_FIELDS.has(field)) return formatDate(value, template.dateFormat);
    return quote(formulaSafe(value, 'text'));
  };
  const line = (cells: string[]) => `${cells.join(separator)}\r\n`;
  yield CSV_BOM + line(template.columns.map((column) => quote(formulaSafe(column.header, 'text'))));
  for await (const invoice of invoices) {
    const lines = template.rowsPer === 'line' ? invoice.lines : [null];
    yield lines.map((entry, index) => line(template.columns.map((column) => cell(column.field, fieldValue(column.field, invoice, entry, index + 1))))).join('');
  }
}

async function* xeroFiles(invoices: IssuedInvoices, stem: string, dateFormat: DateFormat): AsyncGenerator<InvoiceFile> {
  const parts = Math.ceil(invoices.count / XERO_INVOICES_PER_FILE);
  for (let index = 0; index < parts; index++) {
    const [from, to] = [index * XERO_INVOICES_PER_FILE, Math.min((index + 1) * XERO_INVOICES_PER_FILE, invoices.count)];
    yield {
      name: parts === 1 ? `xero-invoices-${stem}.csv` : `xero-invoices-${stem}-part-${index + 1}-of-${parts}.csv`,
      pieces: () => table(XERO, invoices.range(from, to), dateFormat),
      invoices: to - from,
    };
  }
}

/** The files' name for a QuickBooks part (its place in its currency's list of that kind). */
function quickBooksName(stem: string, part: QuickBooksPart, index: number, of: number): string {
  if (part.kind === 'credit-note') return `quickbooks-credit-memos-${stem}-${part.currency}.csv`;
  return `quickbooks-invoices-${stem}-${part.currency}${of === 1 ? '' : `-part-${index + 1}-of-${of}`}.csv`;
}

/**
 * A run cut into QuickBooks' files in one pass, per currency and kind: each file then reads its own stretch of the
 * run again (a run read from the ledger holds no invoice). An invoice of more lines than QuickBooks reads from a
 * file is alone in its part and named in `tooLong` with what to do: QuickBooks would stop reading it part-way.
 */
async function quickBooksParts(
  invoices: IssuedInvoices,
  stem: string,
): Promise<{ parts: Map<string, QuickBooksPart[]>; tooLong: string[]; numberProblem: string | null }> {
  const parts = new Map<string, QuickBooksPart[]>();
  const long: { invoice: string; part: QuickBooksPart; at: number }[] = [];
  let numberProblem: string | null = null;
  let at = 0;
  for await (const invoice of invoices.range(0, invoices.count)) {
    numberProblem ??= quickBooksNumberProblem([invoice.number]);
    const key = `${invoice.currency}|${invoice.kind}`;
    const list = parts.get(key) ?? [];
    const last = list.at(-1);
    const lines = invoice.lines.length;
    // QuickBooks imports invoices only: credit memos are entered by hand from one file, whatever its size.
    const full = !last || (invoice.kind === 'invoice' && (last.invoices === QUICKBOOKS_INVOICES_PER_FILE || last.lines + lines > QUICKBOOKS_LINES_PER_FILE));
    if (full) list.push({ currency: invoice.currency, kind: invoice.kind, from: at, to: at + 1, invoices: 1, lines });
    else Object.assign(last, { to: at + 1, invoices: last.invoices + 1, lines: last.lines + lines });
    parts.set(key, list);
    if (invoice.kind === 'invoice' && lines > QUICKBOOKS_LINES_PER_FILE)
      long.push({
        invoice: `${invoice.number ?? ''} (${invoice.organization}, ${invoice.currency}, ${lines.toLocaleString('en')} lines)`,
        part: list.at(-1)!,
        at: list.length - 1,
      });
    at++;
  }
  const tooLong = long.map(({ invoice, part, at }) => {
    const file = quickBooksName(stem, part, at, parts.get(`${part.currency}|${part.kind}`)!.length);
    return (
      `Invoice ${invoice} has more lines than the ${QUICKBOOKS_LINES_PER_FILE} QuickBooks reads from one file: it is written alone in ${file}, ` +
      'and QuickBooks would import it cut short. A line per subscription rather than per product (the invoice settings) gives it fewer lines; or enter it in QuickBooks by hand'
    );
  });
  return { parts, tooLong, numberProblem };
}

async function* quickBooksFiles(
  invoices: IssuedInvoices,
  parts: Map<string, QuickBooksPart[]>,
  stem: string,
  dateFormat: DateFormat,
): AsyncGenerator<InvoiceFile> {
  // A stretch may hold other currencies' invoices between its own: they are passed over.
  async function* of(part: QuickBooksPart): AsyncGenerator<Invoice> {
    for await (const invoice of invoices.range(part.from, part.to)) if (invoice.currency === part.currency && invoice.kind === part.kind) yield invoice;
  }
  const currencies = [...new Set([...parts.values()].map((list) => list[0]!.currency))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const currency of currencies)
    for (const kind of ['invoice', 'credit-note'] as const) {
      const list = parts.get(`${currency}|${kind}`) ?? [];
      for (const [index, part] of list.entries()) {
        const name = quickBooksName(stem, part, index, list.length);
        yield kind === 'invoice'
          ? { name, pieces: () => table(QUICKBOOKS, of(part), dateFormat), invoices: part.invoices }
          : // A credit is a credit memo, listed with its amounts as the memo carries them (positive), to be entered as one.
            { name, pieces: () => table(QUICKBOOKS, mapped(of(part), asCreditMemo), dateFormat), invoices: part.invoices };
      }
    }
}

/** A QuickBooks file's share of the run: its invoices of one currency and kind, from the run's `from` … `to` − 1. */
interface QuickBooksPart {
  currency: string;
  kind: Invoice['kind'];
  from: number;
  to: number;
  invoices: number;
  lines: number;
}

async function* mapped<T, U>(items: AsyncIterable<T>, change: (item: T) => U): AsyncGenerator<U> {
  for await (const item of items) yield change(item);
}

/** A credit note's lines as a credit memo carries them: the amounts turned positive (the price, or else the quantity). */
function asCreditMemo(invoice: Invoice): Invoice {
  return {
    ...invoice,
    lines: invoice.lines.map((line) => ({
      ...line,
      netAmount: negatedText(line.netAmount),
      vatAmount: negatedText(line.vatAmount),
      ...(line.unitPrice.startsWith('-') ? { unitPrice: negatedText(line.unitPrice) } : { quantity: negatedText(line.quantity) }),
    })),
  };
}
