import { z } from 'zod';
import { AppError, describeIssue } from '@shared/errors';
import { REPORT_COMPLETE, type ReportPeriod } from '@shared/schemas/billing-report';
import { CurrencyCode } from '@shared/schemas/common';
import type { Ledger, LedgerTransaction, RowAppender } from '../ledger/ledger';
import { AMOUNT, QUANTITY, searchText, UNIT_PRICE } from '../ledger/schema';
import { plainIssues } from '../runtime/plain-issues';
import { ledgerDecimal } from './ledger-decimal';
import { JsonNumber, type ReportLevel, type ReportShell, readBillingReport } from './report-reader';
import { keptContentHash } from './content-hash';
import { rankNamesSql } from '../ledger/name-ranks';
import { keyNumbersSql } from '../ledger/keys';
import { sumSavedProductLines } from '../ledger/product-lines';
import { FALLBACK_NAME_ORDER, type NameOrder } from '@shared/model/name-order';

const Amount = ledgerDecimal(AMOUNT);
const UnitPrice = ledgerDecimal(UNIT_PRICE);
const Quantity = ledgerDecimal(QUANTITY);
/** Names and ids: text as sent; absent or null reads as empty; capped so one hostile value cannot fill the ledger. */
const text = z
  .string()
  .max(4_000, 'is longer than 4,000 characters')
  .nullish()
  .transform((value) => value ?? '');
const Currency = z.string().trim().toUpperCase().pipe(CurrencyCode);

/**
 * The report as the service sends it (spec §2.3), checked part by part before any of it is stored: a billing line
 * whole, and an organization, service or subscription by its own fields (its list of children arrives in parts,
 * so here it is only checked to be a list).
 */
const children = z.array(z.unknown());
const WireLine = z.object({
  productName: text,
  productId: text,
  itemCode: text,
  quantity: Quantity,
  resellerPricePerUnit: UnitPrice,
  customerPricePerUnit: UnitPrice,
  totalResellerPrice: Amount,
  totalCustomerPrice: Amount,
  itemDetails: text,
});
const WireSubscription = z.object({
  itemName: text,
  subscriptionId: text,
  poNumber: text,
  quantity: Quantity.nullish(),
  totalResellerPrice: Amount,
  totalCustomerPrice: Amount,
  resellerPricePerUnit: UnitPrice.nullish(),
  customerPricePerUnit: UnitPrice.nullish(),
  products: children,
});
const WireService = z.object({
  serviceName: text,
  serviceId: text,
  totalResellerPrice: Amount,
  totalCustomerPrice: Amount,
  currencyCode: Currency,
  customerCurrencyCode: Currency.nullish(),
  items: children,
});
const WireOrganization = z.object({
  name: text,
  customerNumber: text,
  orgId: text,
  organizationGroups: z
    .array(z.string().max(200))
    .nullish()
    .transform((groups) => groups ?? []),
  services: children,
});
const WIRE = { organization: WireOrganization, service: WireService, subscription: WireSubscription } as const;

const Status = z.union([z.instanceof(JsonNumber), z.string()]).transform((value, context) => {
  const raw = typeof value === 'string' ? value.trim() : value.text;
  if (!/^-?\d+$/.test(raw)) {
    context.addIssue({ code: 'custom', message: 'must be a whole number' });
    return z.NEVER;
  }
  return Number(raw);
});

const WireEntry = z.object({ billingDate: text, billingContentStartDate: text, billingContentEndDate: text, organizations: children.nullish() });

/** Who a report is and where it came from; stored beside its rows. */
export interface ReportIdentity {
  reportId: string;
  /** The request job that fetched it; one report per job, by a unique column. Null for imported or migrated ones. */
  jobId: string | null;
  name: string;
  profileId: string;
  profileName: string;
  host: string;
  resellerId: string;
  period: ReportPeriod;
  fetchedAt: string;
  source: 'service' | 'import' | 'migrated';
  /** The file as received (compressed), relative to the data folder, kept for audit and to share. */
  sourceFile: string | null;
  /** For an imported report: the name of the file it came from. */
  importedFrom?: string;
  /** The order its names are ranked in (its profile's; the fallback where none is known yet, ranked again when read). */
  nameOrder?: NameOrder;
}

/** How often a long ingest says how far it is. */
const LINES_PER_PROGRESS = 25_000;

/**
 * The share of the ledger's memory limit DuckDB is held to while a month is saved (Ledger.holdingMemory): its names
 * ranked in the save's transaction, then its content hash sorting every line, took a 1,000,000-line fetch to
 * 939–1,058 MB peak at the whole 512 MB, over its 1,000 MB goal; held to 320 MB, to 782–805 MB, in the same time.
 */
const SAVE_MEMORY_SHARE = 0.625;

export type IngestOutcome = { complete: false; status: number } | { complete: true; status: number; lines: number };

class NotComplete extends Error {
  constructor(readonly status: number) {
    super('not complete');
  }
}

/**
 * Streams a report body into the ledger in one transaction: each line, and each organization, service and
 * subscription by its own fields, is checked and appended as it arrives (memory stays flat, however large one
 * organization is), and the report is listed only when everything is in — a crash or a bad field
 * leaves the ledger as it was. A body whose status is not "complete" stores nothing and says which status it had.
 */
export async function ingestReport(
  ledger: Ledger,
  identity: ReportIdentity | { reportId: string; fromFile: (shell: ReportShell) => ReportIdentity },
  body: AsyncIterable<Uint8Array | string>,
  onLines?: (lines: number) => void,
): Promise<IngestOutcome> {
  return ledger.holdingMemory(SAVE_MEMORY_SHARE, () => saveReport(ledger, identity, body, onLines));
}

/** The save itself, as ingestReport describes it. */
async function saveReport(
  ledger: Ledger,
  identity: ReportIdentity | { reportId: string; fromFile: (shell: ReportShell) => ReportIdentity },
  body: AsyncIterable<Uint8Array | string>,
  onLines?: (lines: number) => void,
): Promise<IngestOutcome> {
  try {
    const outcome = await ledger.write(async (transaction) => {
      const writer = await ReportWriter.start(transaction, identity.reportId);
      let reported = 0;
      const shell = await readBillingReport(body, {
        children: (level, fields) => {
          if (level === 'service') writer.serviceItems(fields);
        },
        line: (line, path) => {
          writer.line(parseOrEx(WireLine, line, path));
          if (onLines && writer.counts.lines - reported >= LINES_PER_PROGRESS) onLines((reported = writer.counts.lines));
        },
        end: (level, fields, path, entryNo) => writer.end(level, fields, path, entryNo),
      });
      // A file is named (or refused as no report file) first: a missing status is news only in a service's answer.
      const named = 'fromFile' in identity ? identity.fromFile(shell) : identity;
      const status = statusOf(shell);
      if (status !== REPORT_COMPLETE) throw new NotComplete(status);
      const entries = entriesOf(shell);
      await writer.finish(named, entries);
      return { complete: true as const, status, lines: writer.counts.lines };
    });
    // Hashed and summed once saved, so the month close need not; should either fail, the close does it on first use.
    await keptContentHash(ledger, identity.reportId).catch(() => undefined);
    await sumSavedProductLines(ledger, identity.reportId).catch(() => undefined);
    return outcome;
  } catch (error) {
    if (error instanceof NotComplete) return { complete: false, status: error.status };
    if (error instanceof AppError) throw error;
    if (/unique|duplicate key|constraint/i.test(error instanceof Error ? error.message : '')) {
      throw new AppError('conflict', 'This report request has already been saved; it is not saved twice.');
    }
    throw error;
  }
}

function statusOf(shell: ReportShell): number {
  if (shell.status === undefined && shell.saved) return REPORT_COMPLETE; // a saved report is complete by definition
  if (shell.status === undefined)
    throw new AppError('bad-response', 'The service sent a billing report without a status. Nothing was saved; report it to the service if it repeats.');
  return parseOrEx(Status, shell.status, 'status');
}

function entriesOf(shell: ReportShell): z.output<typeof WireEntry>[] {
  if (shell.data !== 'array') {
    throw new AppError(
      'bad-response',
      'The service sent a billing report whose status says complete but whose data is empty. Nothing was saved; try again later.',
    );
  }
  const count = Math.max(-1, ...shell.entries.keys()) + 1;
  const list = shell.saved ? 'entries' : 'data';
  return Array.from({ length: count }, (_, index) => parseOrEx(WireEntry, shell.entries.get(index) ?? {}, `${list}.${index}`));
}

/** In plain words; the report's only unions are its amounts and status (text, or a number as written). */
const reportIssues: z.core.$ZodErrorMap = (issue) => (issue.code === 'invalid_union' ? 'must be a number, or a decimal number as text' : plainIssues(issue));

/** Parses one piece of the report; a problem names its path in the report ("data.0.organizations.3.services.0.totalResellerPrice"). */
function parseOrEx<S extends z.ZodType>(schema: S, value: unknown, path: string): z.output<S> {
  const parsed = schema.safeParse(value, { error: reportIssues });
  if (parsed.success) return parsed.data;
  const { where, message } = describeIssue(parsed.error);
  const at = where === 'top level' ? path : `${path}.${where}`;
  throw new AppError(
    'bad-response',
    `The service sent a billing report that Closebook cannot read: at ${at}, ${message}. Nothing was saved; report it to the service if it repeats.`,
  );
}

/**
 * Appends a report's rows as its parts arrive, numbering organizations, services, subscriptions and lines in the
 * order received. A line is appended at once with its service's currencies as read so far; a part's own row when
 * the part is complete. A service whose currencies came only after its lines (JSON's key order is free) has its
 * lines' currencies set from the service row once, at the end.
 */
class ReportWriter {
  readonly counts = { organizations: 0, services: 0, subscriptions: 0, lines: 0 };
  private readonly products = new Map<string, number>();
  /** The parts being read: their numbers, given when first needed (a part's row is written at its end). */
  private organizationNo = 0;
  private serviceNo = 0;
  private subscriptionNo = 0;
  /** The current service's currencies as its lines were written, and how many lines it has. */
  private service = { currency: '', customerCurrency: '', lines: 0 };
  private currenciesLate = false;

  private constructor(
    private readonly transaction: LedgerTransaction,
    private readonly reportId: string,
    private readonly tables: Record<'organizations' | 'organization_groups' | 'services' | 'subscriptions' | 'billing_lines' | 'products', RowAppender>,
  ) {}

  static async start(transaction: LedgerTransaction, reportId: string): Promise<ReportWriter> {
    const tables = {
      organizations: await transaction.appender('organizations'),
      organization_groups: await transaction.appender('organization_groups'),
      services: await transaction.appender('services'),
      subscriptions: await transaction.appender('subscriptions'),
      billing_lines: await transaction.appender('billing_lines'),
      products: await transaction.appender('products'),
    };
    return new ReportWriter(transaction, reportId, tables);
  }

  /** Numbers the parts that enclose a line or part about to be written, outermost first, so numbers follow the report's order. */
  private number(level: ReportLevel): void {
    const { counts } = this;
    if (this.organizationNo === 0) this.organizationNo = ++counts.organizations;
    if (level === 'organization') return;
    if (this.serviceNo === 0) {
      this.serviceNo = ++counts.services;
      this.service = { currency: '', customerCurrency: '', lines: 0 };
    }
    if (level === 'subscription' && this.subscriptionNo === 0) this.subscriptionNo = ++counts.subscriptions;
  }

  /** A service's items begin: its currencies as read so far (usually all of its fields) go with its lines. */
  serviceItems(fields: Readonly<Record<string, unknown>>): void {
    this.number('service');
    if (this.service.lines > 0) return;
    const currency = Currency.safeParse(fields.currencyCode);
    const customerCurrency = Currency.safeParse(fields.customerCurrencyCode);
    this.service.currency = currency.success ? currency.data : '';
    this.service.customerCurrency = customerCurrency.success ? customerCurrency.data : this.service.currency;
  }

  line(line: z.output<typeof WireLine>): void {
    this.number('subscription');
    const { reportId, counts, service } = this;
    service.lines++;
    this.tables.billing_lines.row([
      reportId,
      ++counts.lines,
      this.subscriptionNo,
      this.serviceNo,
      this.organizationNo,
      line.productId,
      line.productName,
      line.itemCode,
      line.quantity,
      line.resellerPricePerUnit,
      line.customerPricePerUnit,
      line.totalResellerPrice,
      line.totalCustomerPrice,
      line.itemDetails,
      service.currency,
      service.customerCurrency,
      this.productNo([line.productName, line.productId, line.itemCode, line.itemDetails]),
    ]);
  }

  /** A part is complete: its own fields are checked and its row appended. */
  end(level: ReportLevel, fields: unknown, path: string, entryNo: number): void {
    const { reportId, tables } = this;
    this.number(level);
    if (level === 'subscription') {
      const item = parseOrEx(WIRE.subscription, fields, path);
      tables.subscriptions.row([
        reportId,
        this.subscriptionNo,
        this.serviceNo,
        this.organizationNo,
        item.subscriptionId,
        item.itemName,
        item.poNumber,
        item.quantity ?? null,
        item.totalResellerPrice,
        item.totalCustomerPrice,
        item.resellerPricePerUnit ?? null,
        item.customerPricePerUnit ?? null,
        searchText([item.itemName, item.subscriptionId, item.poNumber]),
        null, // name_rank, once every name is in (finish)
      ]);
      this.subscriptionNo = 0;
    } else if (level === 'service') {
      const service = parseOrEx(WIRE.service, fields, path);
      const customerCurrency = service.customerCurrencyCode ?? service.currencyCode;
      tables.services.row([
        reportId,
        this.serviceNo,
        this.organizationNo,
        service.serviceId,
        service.serviceName,
        service.currencyCode,
        customerCurrency,
        service.totalResellerPrice,
        service.totalCustomerPrice,
        searchText([service.serviceName, service.serviceId]),
        null, // name_rank, once every name is in (finish)
        null, // key_no, likewise
      ]);
      if (this.service.lines > 0 && (this.service.currency !== service.currencyCode || this.service.customerCurrency !== customerCurrency))
        this.currenciesLate = true;
      this.serviceNo = 0;
    } else {
      const organization = parseOrEx(WIRE.organization, fields, path);
      tables.organizations.row([
        reportId,
        this.organizationNo,
        entryNo,
        organization.orgId,
        organization.name,
        organization.customerNumber,
        searchText([organization.name, organization.customerNumber, organization.orgId]),
        null, // name_rank, once every name is in (finish)
        null, // key_no, likewise
      ]);
      for (const group of new Set(organization.organizationGroups)) tables.organization_groups.row([reportId, this.organizationNo, group]);
      this.organizationNo = 0;
    }
  }

  /** The number of a distinct (product, id, item code, details), appended once per report (its search text folded once). */
  private productNo(parts: string[]): number {
    const key = parts.join('\u0001');
    let number = this.products.get(key);
    if (number === undefined) {
      number = this.products.size + 1;
      this.products.set(key, number);
      this.tables.products.row([this.reportId, number, searchText(parts)]);
    }
    return number;
  }

  async finish(identity: ReportIdentity, entries: z.output<typeof WireEntry>[]): Promise<void> {
    const { transaction, reportId, counts } = this;
    const billingEntries = await transaction.appender('billing_entries');
    entries.forEach((entry, entryNo) => billingEntries.row([reportId, entryNo, entry.billingDate, entry.billingContentStartDate, entry.billingContentEndDate]));
    for (const table of [...Object.values(this.tables), billingEntries]) table.flush();
    if (this.currenciesLate) {
      await transaction.run(
        `UPDATE billing_lines SET currency = s.currency, customer_currency = s.customer_currency FROM services s
         WHERE billing_lines.report_id = $1 AND s.report_id = $1 AND s.service_no = billing_lines.service_no
           AND (billing_lines.currency <> s.currency OR billing_lines.customer_currency <> s.customer_currency)`,
        [reportId],
      );
    }
    // The content hash is taken once the report is saved; the name order is recorded as its names are ranked.
    await transaction.run(`INSERT INTO reports VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, NULL, NULL)`, [
      reportId,
      identity.jobId,
      identity.name,
      identity.profileId,
      identity.profileName,
      identity.host,
      identity.resellerId,
      identity.period.startDate,
      identity.period.endDate,
      identity.fetchedAt,
      identity.source,
      identity.sourceFile,
      entries.length,
      counts.organizations,
      counts.services,
      counts.subscriptions,
      counts.lines,
      identity.importedFrom ?? null,
    ]);
    for (const statement of [...rankNamesSql(identity.nameOrder ?? FALLBACK_NAME_ORDER), ...keyNumbersSql()]) await transaction.run(statement, [reportId]);
    await transaction.run(
      `INSERT INTO report_totals
       SELECT report_id, currency, customer_currency, count(*), sum(cost), sum(sales) FROM billing_lines WHERE report_id = $1 GROUP BY ALL`,
      [reportId],
    );
  }
}
