import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { AppError } from '@shared/errors';
import {
  type AdjustmentInput,
  InvoiceAdjustment,
  type InvoiceFormat,
  type InvoiceKey,
  type InvoiceLine,
  type InvoiceMapping,
  type InvoiceRunOverview,
  type InvoiceRunView,
  type InvoiceSettings,
  type LoggedAdjustment,
  NextInvoiceNumber,
} from '@shared/schemas/invoices';
import type { Ledger } from '@core/ledger/ledger';
import { contentHashOf, keptContentHash } from '@core/reports';
import { keptNameOrder } from '@core/ledger/name-ranks';
import { adjustmentsAwaitingApproval, type CloseStamp, type InvoiceStep, monthOf, type MonthRef } from '@core/close';
import type { CloseLogEntry } from '@shared/schemas/month-close';
import type { IdentityPort } from '@core/ports/identity';
import type { Ports } from '@core/ports/ports';
import type { ServiceHandlers } from '@shared/contract';
import { deliverFile } from '@core/storage/files';
import { fullCollection } from '@core/runtime/full-collection';
import { invoiceFiles, issuedInMemory, quickBooksNumberProblem } from './invoice-files';
import { buildInvoiceRun, type Invoice, type InvoiceRunDraft, listed, makeInvoices, negatedText, type Unmapped } from './invoice-run';
import {
  fileHashes,
  inForceEntry,
  invoiceKey,
  readSettings,
  recordFiles,
  RunParts,
  type RunSummary,
  type RunToWriteAgain,
  saveSettings,
  type StoredRun,
  substancesOf,
} from './invoice-store';
import { type Broker, itemKey, looksLikeFormula, refuseFormulas } from './mapping-store';
import { exportedMeanwhile, type InvoiceRecord, LocalInvoiceRecord, type MappingChange, type RunPeriod, sha256 } from './invoice-record';
import { mappingCsv, type MappingSuggestions, parseMappingCsv } from './mapping-csv';
import { invoiceLineRows, type ItemKeys, unmappedCustomerRows, unmappedItemRows } from './queries';
import { runInputs } from './run-inputs';
import { counted } from '@shared/counted';
import { minorUnits } from '@shared/currency';
import { datedAsFirstExported, invoiceDateRefusal } from '@shared/model/invoice-date';

export type { InvoiceRunView };

/**
 * What the month close says of a fetch (its stamp): whether it may be invoiced, in words every file repeats; and the
 * content hash of its signed lines, hashed again as the stamp was made (null when this fetch's lines are not signed,
 * or no longer match).
 */
export type Readiness = CloseStamp & { signedContentHash: string | null };

export interface InvoiceExport {
  runId: string;
  /** True when the month's exported run was written again (the same numbers, byte-identical files). */
  again: boolean;
  files: { path: string; invoices: number; sha256: string }[];
  invoices: number;
  firstNumber: string;
  lastNumber: string;
  notApprovedBySecondPerson: boolean;
  /** Invoices the format cannot carry (an e-invoice without the buyer's endpoint, say), each with why: not written. */
  refused: string[];
  /** Invoices written that the accounting system would not import whole (QuickBooks' row limit), each with what to do. */
  warnings: string[];
}

export interface InvoicesApi {
  /** The Broker (service host and reseller) a profile's months are kept under: the mapping is per Broker. */
  brokerOfReport(reportId: string): Promise<Broker>;
  /** Every Broker with a saved month, newest month first. */
  brokers(): Promise<Broker[]>;
  mapping(broker: Broker): Promise<InvoiceMapping>;
  /** Every change of the Broker's mapping (of one entry), oldest first; null where none is kept (InvoiceRecord). */
  mappingHistory(broker: Broker, key: string | null): Promise<MappingChange[] | null>;
  /** Reads a mapping CSV and keeps it whole (replacing the Broker's mapping), or nothing when any row is wrong. */
  importMapping(broker: Broker, content: string): Promise<InvoiceMapping>;
  /**
   * Writes the Broker's mapping as CSV to `path` (the columns the import reads), with a row to fill in for each
   * customer and service of `reportId`'s month (default: the Broker's newest) that the mapping lacks.
   */
  exportMapping(broker: Broker, path: string, reportId?: string): Promise<{ entries: number; toFill: number }>;
  settings(broker: Broker): Promise<InvoiceSettings & { next: number }>;
  /** Writes a small text file (a template) to `path`, through the staging folder like every file Closebook writes. */
  writeText(path: string, content: string): Promise<void>;
  saveSettings(broker: Broker, settings: InvoiceSettings, next?: number): Promise<InvoiceSettings & { next: number }>;
  /** The month's invoices as they would be made now (unnumbered), with what keeps them from being exported. */
  run(reportId: string, invoiceDate?: string): Promise<InvoiceRunView>;
  /** One invoice's lines as the run makes them now: only its customer's lines are read and invoiced. */
  invoiceLines(reportId: string, invoice: InvoiceKey): Promise<InvoiceLine[]>;
  /**
   * Adjusts the month's invoices (a manual line, an excluded line, a withdrawal), with its reason, as an entry of
   * the month's close log; made after the month's approval, it awaits a second person's approval.
   */
  adjust(reportId: string, adjustment: AdjustmentInput, reason: string): Promise<InvoiceRunView>;
  /** A second person approves the adjustments made after the month's approval. */
  approveAdjustments(reportId: string): Promise<InvoiceRunView>;
  /** Numbers and keeps the run (or takes the month's run already kept) and writes its files into `folder`. */
  export(reportId: string, format: InvoiceFormat, folder: string, invoiceDate?: string): Promise<InvoiceExport>;
}

interface InvoicePorts {
  readiness(reportId: string): Promise<Readiness>;
  /** The month's close log (adjustments are entries of it), and a step of invoicing written to it. */
  log(reportId: string): Promise<{ entries: CloseLogEntry[] }>;
  invoiceStep(reportId: string, step: InvoiceStep): Promise<void>;
  /** The team ledger's record while one is connected; null: the workstation's own. */
  teamRecord?: () => Promise<InvoiceRecord | null>;
  exported(reportId: string, what: string): Promise<void>;
  identity: IdentityPort;
  /** Puts a month's names in its profile's order first, so the run lists customers as the Invoicing view does. */
  inNameOrder?: (reportId: string) => Promise<unknown>;
}

/**
 * The run as the Invoices tab shows it: each invoice without its lines, which are asked for when it is opened. At a
 * million billing lines the whole run (601,268 invoice lines) took the tab 26–34 s and the bridge 2.5–2.9 GB.
 */
export function overviewOf<Run extends InvoiceRunDraft>(run: Run): Omit<Run, 'invoices'> & Pick<InvoiceRunOverview, 'invoices' | 'items'> {
  const items = new Map<string, InvoiceRunOverview['items'][number]>();
  const invoices = run.invoices.map(({ lines, ...invoice }) => {
    for (const line of lines) if (!items.has(line.item)) items.set(line.item, { item: line.item, account: line.account, taxCode: line.taxCode });
    return { ...invoice, lineCount: lines.length };
  });
  return { ...run, invoices, items: [...items.values()] };
}

const brokerOf = (month: MonthRef): Broker => ({ host: month.host, resellerId: month.resellerId });

/** Invoices out: mapping, the invoice run of a month ready to invoice, numbering once, and the import files. */
type InvoiceHandlers = Pick<
  ServiceHandlers,
  | 'invoices:run'
  | 'invoices:lines'
  | 'invoices:mapping'
  | 'invoices:map'
  | 'invoices:import-mapping'
  | 'invoices:export-mapping'
  | 'invoices:settings'
  | 'invoices:adjust'
  | 'invoices:approve-adjustments'
  | 'invoices:export'
>;

export interface InvoicesModule {
  api: InvoicesApi;
  handlers: InvoiceHandlers;
}

export function createInvoices(ports: Ports, ledger: () => Promise<Ledger>, close: InvoicePorts): InvoicesModule {
  const today = () => localDate(new Date(ports.clock.now()));
  const local = new LocalInvoiceRecord(ledger);
  const recordNow = async (): Promise<InvoiceRecord> => (await close.teamRecord?.()) ?? local;
  /** Keeps mapping entries in the record, refusing first what would run as a formula (import files keep values exact). */
  const keepMapping = async (broker: Broker, mapping: InvoiceMapping, replaceAll: boolean) => {
    refuseFormulas(mapping);
    await (await recordNow()).saveMapping(broker, mapping, replaceAll, (await close.identity()).user, new Date(ports.clock.now()).toISOString());
  };
  const settingsOf = async (broker: Broker) => {
    const { settings } = await readSettings(await ledger(), broker);
    const counter = await (await recordNow()).counter(broker);
    return { ...settings, prefix: counter.prefix ?? settings.prefix, next: counter.next };
  };
  const itemKeys = (mapping: InvoiceMapping): ItemKeys => ({
    product: mapping.items.filter((item) => item.match === 'product').map((item) => item.id),
    itemCode: mapping.items.filter((item) => item.match === 'item-code').map((item) => item.id),
    service: mapping.items.filter((item) => item.match === 'service').map((item) => item.id),
  });

  const customerIds = (mapping: InvoiceMapping) => mapping.customers.map((customer) => customer.orgId);

  /** What the month has that `mapping` lacks, summed by the ledger (its names put in order first: inNameOrder). */
  async function unmappedIn(opened: Ledger, reportId: string, mapping: InvoiceMapping): Promise<Unmapped> {
    return {
      customers: await unmappedCustomerRows(opened, reportId, customerIds(mapping)),
      items: await unmappedItemRows(opened, reportId, itemKeys(mapping)),
    };
  }

  /**
   * The Invoices tab's last run, by what it was made from (overview), kept as it is being made: a second open while
   * it is made waits for it (at a million lines each making takes 20 s and half a gigabyte).
   */
  let shown: {
    key: string;
    compared: boolean;
    made: Promise<{ overview: ReturnType<typeof overviewOf<InvoiceRunDraft>>; substances: Map<string, string> | null }>;
  } | null = null;

  type DraftInputs = Awaited<ReturnType<typeof draftInputs>>;

  /** What the month's invoices are made from, read now: its lines are read when they are made (draft). */
  async function draftInputs(reportId: string) {
    await close.inNameOrder?.(reportId);
    const opened = await ledger();
    const month = await monthOf(opened, reportId);
    const broker = brokerOf(month);
    const [mapping, { settings, unreadable }] = [await (await recordNow()).mapping(broker), await readSettings(opened, broker)];
    if (unreadable)
      throw new AppError(
        'storage',
        `The invoice settings kept for ${broker.host} (reseller ${broker.resellerId}) could not be read, so no invoice is made with them. Check them under "Numbering, dates and the seller" in the Invoices tab (or with closebook invoices settings) and save them: that replaces them.`,
      );
    const { entries } = await close.log(reportId);
    const logged = entries.flatMap((entry): LoggedAdjustment[] => {
      if (entry.action !== 'adjusted') return [];
      const parsed = InvoiceAdjustment.safeParse(JSON.parse(entry.evidence || 'null'));
      return parsed.success ? [{ adjustment: parsed.data, reason: entry.note, by: entry.actor, at: entry.at, seq: entry.seq }] : [];
    });
    return { opened, month, broker, settings, mapping, entries, logged };
  }

  /**
   * The month's run as it would be made now; with `onlyCustomer` (an org id), that customer's invoices alone, the
   * same as in the whole run (every invoice is made from its own customer's lines and adjustments), with nothing
   * listed as unmapped.
   */
  async function draft(reportId: string, invoiceDate: string | undefined, onlyCustomer?: string) {
    const inputs = await draftInputs(reportId);
    return { ...inputs, run: await runFrom(inputs, reportId, invoiceDate, onlyCustomer) };
  }

  async function runFrom(inputs: DraftInputs, reportId: string, invoiceDate: string | undefined, onlyCustomer?: string): Promise<InvoiceRunDraft> {
    return buildInvoiceRun(...(await runSources(inputs, reportId, invoiceDate, onlyCustomer)));
  }

  /** What the month's invoices are made from: buildInvoiceRun's arguments (see runFrom). */
  async function runSources(
    { opened, month, settings, mapping, logged }: DraftInputs,
    reportId: string,
    invoiceDate: string | undefined,
    onlyCustomer?: string,
  ) {
    // Left unchosen, the date is today, which a month still to come may be before: such a month cannot be signed off.
    const refusal = invoiceDate === undefined ? null : invoiceDateRefusal(invoiceDate, month.startDate);
    if (refusal) throw new AppError('validation', refusal);
    const customers = onlyCustomer === undefined ? customerIds(mapping) : customerIds(mapping).filter((orgId) => orgId === onlyCustomer);
    const rows = await invoiceLineRows(opened, reportId, itemKeys(mapping), customers, settings);
    const unmapped: Unmapped = onlyCustomer === undefined ? await unmappedIn(opened, reportId, mapping) : { customers: [], items: [] };
    const context = { periodStart: month.startDate, invoiceDate: invoiceDate ?? today(), linesPer: settings.linesPer };
    return [rows, unmapped, mapping, context, logged] as const;
  }

  /** What keeps the month's invoices from being exported now: the month close's, then the run's. */
  function blockersOf(
    run: Pick<InvoiceRunDraft, 'unmappedCustomers' | 'unmappedItems' | 'refusals'> & { invoices: readonly unknown[] },
    readiness: CloseStamp,
    entries: readonly CloseLogEntry[],
  ): string[] {
    const blockers = [...closeBlockers(readiness, entries)];
    const customers = run.unmappedCustomers.length;
    if (customers)
      blockers.push(
        `${counted(customers, 'customer is', 'customers are')} not mapped to the accounting system's contacts: map each (the mapping CSV, or the Invoices tab).`,
      );
    const items = run.unmappedItems.length;
    if (items) blockers.push(`${counted(items, 'product is', 'products are')} not mapped to an item: map each by product, item code or its service's default.`);
    for (const refusal of run.refusals) blockers.push(`${refusal}.`);
    if (!run.invoices.length && !blockers.length) blockers.push('The month has nothing to invoice.');
    return blockers;
  }

  /** What the month close says against invoicing now (its stamp, adjustments awaiting approval): known without a run. */
  function closeBlockers(readiness: CloseStamp, entries: readonly CloseLogEntry[]): string[] {
    const blockers: string[] = [];
    const awaiting = adjustmentsAwaitingApproval(entries, readiness.word === 'APPROVED');
    if (awaiting.length)
      blockers.push(
        `${awaiting.length === 1 ? '1 adjustment' : `${awaiting.length} adjustments`} made after the month was approved (by ${[...new Set(awaiting.map((entry) => entry.actor))].join(', ')}) ${awaiting.length === 1 ? 'awaits' : 'await'} a second person's approval (invoices approve-adjustments).`,
      );
    if (!readiness.ready)
      blockers.push(
        `The month is not ready to invoice: ${readiness.line}${readiness.openSinceSignOff ? '' : ' Prepare it (with a team ledger, a second person approves it too) first.'}`,
      );
    return blockers;
  }

  /**
   * How the month's invoices now (`now`: each one's key and substance hash) differ from those in force after the last
   * export: the keys of those unchanged, of those to credit (changed or gone), and how many invoices the next export
   * would issue — a credit note for each to credit and an invoice for each changed or new. None: the export writes
   * the kept run again.
   */
  function sinceExport(now: ReadonlyMap<string, string>, last: RunSummary): { unchanged: Set<string>; credited: string[]; toIssue: number } {
    const unchanged = new Set<string>();
    const credited: string[] = [];
    for (const { key, substance } of last.inForce) {
      if (now.get(key) === substance) unchanged.add(key);
      else credited.push(key);
    }
    return { unchanged, credited, toIssue: credited.length + now.size - unchanged.size };
  }

  /** The month's run `runId`, whole; refused when another run was exported after it meanwhile (a colleague's). */
  async function wholeRun(record: InvoiceRecord, broker: Broker, period: RunPeriod, runId: string): Promise<StoredRun> {
    const last = (await record.runs(broker, period)).at(-1);
    if (last?.runId !== runId) throw exportedMeanwhile();
    return last;
  }

  /**
   * The run the export writes: the month's last run again when its invoices are the same now; otherwise numbered
   * once and kept — after a run was exported, a credit note for each invoice that changed or went and a new invoice
   * for each that changed or came (never a silent renumbering); the first time, every invoice. The month's invoices
   * now are made here, unless they are made from what the last run was (runInputs), and let go when it returns.
   */
  async function runToWrite(
    reportId: string,
    format: InvoiceFormat,
    invoiceDate: string | undefined,
    readiness: Readiness,
    at: string,
  ): Promise<
    { opened: Ledger; month: MonthRef; broker: Broker; settings: InvoiceSettings; record: InvoiceRecord } & (
      { stored: StoredRun } | { again: RunSummary } | { kept: string }
    )
  > {
    const inputs = await draftInputs(reportId);
    const { opened, month, broker, settings, mapping, entries, logged } = inputs;
    if (format === 'template' && !settings.template)
      throw new AppError('validation', 'No import template of your own is set: make one first (invoices template --import FILE.json).');
    const period = { start: month.startDate, end: month.endDate };
    // The numbers and the run are kept by the record in one transaction (the ledger's, or the team ledger's under
    // the month's lock): a number is given once, and a run once kept is what every later export writes again.
    const record = await recordNow();
    const last = (await record.runSummaries(broker, period)).at(-1);
    // A month ready to invoice has its lines signed, and the stamp has just hashed them again (1.5 s and some
    // hundreds of MB of DuckDB's at a million lines, not done twice).
    const contentHash = readiness.signedContentHash ?? (await contentHashOf(opened, reportId));
    const madeFrom = runInputs({ reportId, contentHash, periodStart: month.startDate, mapping, settings, logged });
    // Made from the same as the last run, the month's invoices are that run's: it was exported with nothing against
    // it, and is written again without making them (at a million lines, 30 s and a gigabyte to compare them).
    if (last?.inputs === madeFrom) return { again: last, opened, month, broker, settings, record };
    const exportedBy = (await close.identity()).user;
    if (!last && record.recordFirstRunInParts) {
      const runId = await firstRunInParts(inputs, await record.counter(broker), record.recordFirstRunInParts.bind(record), {
        format,
        reportId,
        invoiceDate,
        readiness,
        contentHash,
        madeFrom,
        exportedAt: at,
        exportedBy,
      });
      return { kept: runId, opened, month, broker, settings, record };
    }
    const run = await runFrom(inputs, reportId, invoiceDate);
    const blockers = blockersOf(run, readiness, entries);
    if (blockers.length) throw new AppError('control', `The invoices were not exported. ${blockers.join(' ')}`);
    const since = last ? sinceExport(substancesOf(run.invoices), last) : null;
    if (last && since && !since.toIssue) return { again: last, opened, month, broker, settings, record };
    const previous = last ? await wholeRun(record, broker, period, last.runId) : null;
    const before = new Map(previous?.inForce.map((invoice) => [invoiceKey(invoice), invoice]));
    const issue = since
      ? [
          ...since.credited.map((key) => creditNoteFor(before.get(key) as Invoice, run.invoiceDate)),
          ...run.invoices.filter((invoice) => !since.unchanged.has(invoiceKey(invoice))),
        ]
      : run.invoices;
    const unchanged = previous && since ? previous.inForce.filter((invoice) => since.unchanged.has(invoiceKey(invoice))) : [];
    const counter = await record.counter(broker);
    const prefix = counter.prefix ?? settings.prefix;
    const numbered = issue.map((invoice, index) => ({ ...invoice, number: `${prefix}${counter.next + index}` }));
    refuseNumbersFor(
      format,
      numbered.map((invoice) => invoice.number),
    );
    const stored: StoredRun = {
      runId: randomUUID(),
      reportId,
      contentHash,
      inputs: madeFrom,
      issued: numbered,
      inForce: [...unchanged, ...numbered.filter((invoice) => !invoice.replaces)],
      dateFormat: settings.dateFormat,
      approved: readiness.word === 'APPROVED',
      seller: settings.seller,
      firstNumber: numbered[0]?.number ?? '',
      lastNumber: numbered.at(-1)?.number ?? '',
      exportedAt: at,
      exportedBy,
    };
    await record.recordRun(broker, period, stored, previous?.runId ?? null, prefix, counter.next);
    return { stored, opened, month, broker, settings, record };
  }

  /**
   * The month's first run, each invoice numbered and kept in its part as it is made and then let go, the run kept
   * once every invoice is made and nothing keeps them from export (its row and parts: RunParts); its id. A
   * million-line month's 10,000 invoices are never held at once: as objects, with their parts, they took the export
   * past a gigabyte.
   */
  async function firstRunInParts(
    inputs: DraftInputs,
    counter: Awaited<ReturnType<InvoiceRecord['counter']>>,
    keep: NonNullable<InvoiceRecord['recordFirstRunInParts']>,
    run: {
      format: InvoiceFormat;
      reportId: string;
      invoiceDate: string | undefined;
      readiness: Readiness;
      contentHash: string;
      madeFrom: string;
      exportedAt: string;
      exportedBy: string;
    },
  ): Promise<string> {
    const { month, broker, settings, entries } = inputs;
    const prefix = counter.prefix ?? settings.prefix;
    const { made, parts, inForce } = await numberedInParts(inputs, run, (index) => `${prefix}${counter.next + index}`);
    const blockers = blockersOf({ ...made, invoices: inForce }, run.readiness, entries);
    if (blockers.length) throw new AppError('control', `The invoices were not exported. ${blockers.join(' ')}`);
    refuseNumbersFor(
      run.format,
      inForce.map((invoice) => invoice.number),
    );
    // The month's lines and invoices (half a gigabyte at a million lines) are let go before DuckDB keeps the parts.
    fullCollection();
    const runId = randomUUID();
    const { readiness, madeFrom, invoiceDate: _, format: __, ...kept } = run;
    await keep(
      broker,
      { start: month.startDate, end: month.endDate },
      {
        ...kept,
        runId,
        firstNumber: inForce[0]?.number ?? '',
        lastNumber: inForce.at(-1)?.number ?? '',
        rows: parts.rows(inForce, { inputs: madeFrom, dateFormat: settings.dateFormat, approved: readiness.word === 'APPROVED', seller: settings.seller }),
      },
      counter.next,
    );
    return runId;
  }

  /**
   * The month's invoices made, each numbered (`number`: by its place in the run) and added to the run's parts as it
   * is made, and let go. On a call of its own: the lines they are made from (a quarter of a gigabyte at a million)
   * are let go when it returns; held by the caller's frame, they stayed beside the ledger's insert of the parts.
   */
  async function numberedInParts(inputs: DraftInputs, run: { reportId: string; invoiceDate: string | undefined }, number: (index: number) => string) {
    const parts = new RunParts();
    const inForce: RunSummary['inForce'] = [];
    const made = makeInvoices(...(await runSources(inputs, run.reportId, run.invoiceDate)), (invoice) => {
      const numbered = { ...invoice, number: number(inForce.length) };
      parts.add(numbered);
      inForce.push(inForceEntry(numbered));
    });
    return { made, parts, inForce };
  }

  /** The month's exported runs, without their invoices, oldest first. */
  async function exportedRuns({ month, broker }: DraftInputs): Promise<RunSummary[]> {
    return (await recordNow()).runSummaries(broker, { start: month.startDate, end: month.endDate });
  }

  /**
   * What a month's run is shown with besides its invoices: the month close's stamp, what keeps it from being exported,
   * and the runs exported, with how many invoices the next export would issue after the last (`changedSince`).
   */
  function viewOf(
    reportId: string,
    { entries }: DraftInputs,
    readiness: Omit<Readiness, 'signedContentHash'>,
    run: Parameters<typeof blockersOf>[0],
    runs: readonly RunSummary[],
    changedSince: (last: RunSummary) => number,
  ): Omit<InvoiceRunView, keyof InvoiceRunDraft> {
    const last = runs.at(-1);
    return {
      reportId,
      readiness,
      blockers: blockersOf(run, readiness, entries),
      changedSinceExport: last ? changedSince(last) : null,
      exported: runs.map((summary) => ({
        runId: summary.runId,
        firstNumber: summary.firstNumber,
        lastNumber: summary.lastNumber,
        exportedAt: summary.exportedAt,
        exportedBy: summary.exportedBy,
        invoices: summary.issuedCount,
      })),
    };
  }

  /**
   * The run as the Invoices tab shows it. The last one made is kept (without its lines) under everything it was made
   * from — the month's lines and period, the mapping, the settings, the adjustments (runInputs), the name order and
   * the invoice date — so the tab opened again on an unchanged month is not made again: at a million lines, making it
   * took the tab 20–27 s. The stamp and the exported runs are read anew. Each invoice's substance hash is kept with it
   * only when the month's last export was made from something else, the one case the run is compared with it by
   * substance (a second or two of hashing at a million lines).
   */
  async function overview(reportId: string, invoiceDate: string | undefined): Promise<InvoiceRunOverview> {
    const { signedContentHash: _, ...readiness } = await close.readiness(reportId);
    const inputs = await draftInputs(reportId);
    const { opened, month, mapping, settings, logged } = inputs;
    const date = invoiceDate ?? today();
    const madeFrom = runInputs({ reportId, contentHash: await keptContentHash(opened, reportId), periodStart: month.startDate, mapping, settings, logged });
    const key = JSON.stringify([madeFrom, await keptNameOrder(opened, reportId), date]);
    const runs = await exportedRuns(inputs);
    const last = runs.at(-1);
    const compared = last !== undefined && last.inputs !== madeFrom;
    if (shown?.key !== key || (compared && !shown.compared)) {
      const making = runFrom(inputs, reportId, date).then((run) => ({ overview: overviewOf(run), substances: compared ? substancesOf(run.invoices) : null }));
      const kept = { key, compared, made: making };
      shown = kept;
      // A making that fails is not kept: the next open makes it again.
      making.catch(() => {
        if (shown === kept) shown = null;
      });
    }
    const { overview: made, substances } = await shown.made;
    // Not compared: the last export was made from what these invoices are made from, so it issued them all.
    return { ...made, ...viewOf(reportId, inputs, readiness, made, runs, (exported) => (substances ? sinceExport(substances, exported).toIssue : 0)) };
  }

  /**
   * Numbers the month's invoices once (or takes its run already numbered) and hands each file to `write`, which
   * writes it where the host says (a folder, a download) through the given writer and says where it went.
   */
  async function exportRun<T>(
    reportId: string,
    format: InvoiceFormat,
    invoiceDate: string | undefined,
    write: (name: string, fill: (path: string) => Promise<void>) => Promise<T>,
  ): Promise<Omit<InvoiceExport, 'files'> & { files: { file: T; invoices: number; sha256: string }[] }> {
    // The month close is asked first: a month not ready is refused without making its invoices (at a million
    // lines, a refusal took 16 s and 857 MB so).
    const readiness = await close.readiness(reportId);
    const notReady = closeBlockers(readiness, (await close.log(reportId)).entries);
    if (notReady.length) throw new AppError('control', `The invoices were not exported. ${notReady.join(' ')}`);
    const at = new Date(ports.clock.now()).toISOString();
    const made = await runToWrite(reportId, format, invoiceDate, readiness, at);
    const { opened, month, broker, settings, record } = made;
    const period = { start: month.startDate, end: month.endDate };
    const again = 'again' in made;
    // Read from the record the comparison was made with: a team ledger connected meanwhile is not mixed in. A run
    // kept in parts as it was made (firstRunInParts) is written from its parts, as one written again.
    const stored: RunToWriteAgain =
      'stored' in made
        ? { ...made.stored, issued: issuedInMemory(made.stored.issued) }
        : await record.runToWriteAgain(broker, period, 'again' in made ? made.again.runId : made.kept, reportId);
    const { files, refused, warnings } = await invoiceFiles(format, {
      ...stored,
      period: { start: month.startDate, end: month.endDate },
      template: settings.template,
    });
    // A template's files are kept under the template they were made with: another template is another file.
    const kind = format === 'template' ? `template:${sha256(JSON.stringify(settings.template)).slice(0, 16)}` : format;
    const written: { file: T; invoices: number; sha256: string }[] = [];
    const known = await fileHashes(opened, stored.runId, kind);
    const recorded: { name: string; sha256: string }[] = [];
    try {
      for await (const file of files) {
        // Hashed as it is written; one that would differ from the file written before is refused before it is moved
        // into place.
        let hash = '';
        const put = await write(file.name, (path) =>
          opened.outputs.writeStream(path, async (sink) => {
            const hashing = createHash('sha256');
            for await (const piece of file.pieces()) {
              hashing.update(piece);
              await sink.put(piece);
            }
            hash = hashing.digest('hex');
            if (known.has(file.name) && known.get(file.name) !== hash)
              throw new AppError('internal', `The invoice file ${file.name} would differ from the one exported before. Please report this.`);
          }),
        );
        recorded.push({ name: file.name, sha256: hash });
        written.push({ file: put, invoices: file.invoices, sha256: hash });
      }
    } catch (error) {
      // Those written are recorded even when a later one failed; the failure is the one reported.
      await recordFiles(opened, stored.runId, kind, recorded, at).catch(() => undefined);
      throw error;
    }
    await recordFiles(opened, stored.runId, kind, recorded, at);
    await close.exported(reportId, `invoices ${stored.firstNumber}–${stored.lastNumber} (${format}${again ? ', again' : ''})`);
    return {
      runId: stored.runId,
      again,
      files: written,
      invoices: stored.issued.count,
      firstNumber: stored.firstNumber,
      lastNumber: stored.lastNumber,
      notApprovedBySecondPerson: !stored.approved,
      refused,
      // A run written again is the one kept: its invoices keep the dates they were first exported with.
      warnings: again && invoiceDate !== undefined ? [...warnings, datedAsFirstExported(invoiceDate)] : warnings,
    };
  }

  const api: InvoicesApi = {
    brokerOfReport: async (reportId) => brokerOf(await monthOf(await ledger(), reportId)),
    brokers: async () =>
      (
        await (await ledger()).all('SELECT host, reseller_id FROM reports GROUP BY host, reseller_id ORDER BY max(period_start) DESC, max(fetched_at) DESC')
      ).map((row) => ({ host: String(row.host), resellerId: String(row.reseller_id) })),
    mapping: async (broker) => (await recordNow()).mapping(broker),
    mappingHistory: async (broker, key) => (await recordNow()).mappingHistory(broker, key),
    importMapping: async (broker, content) => {
      const mapping = parseMappingCsv(content);
      await keepMapping(broker, mapping, true);
      return (await recordNow()).mapping(broker);
    },
    exportMapping: async (broker, path, reportId) => {
      const opened = await ledger();
      const mapping = await (await recordNow()).mapping(broker);
      const month = reportId ?? (await newestReport(opened, broker));
      const suggestions: MappingSuggestions = { customers: [], services: [] };
      if (month) {
        // Only what the mapping lacks is read: no invoice is made (at a million lines, making them took 20 s and 1.7 GB).
        await close.inNameOrder?.(month);
        const run = listed(await unmappedIn(opened, month, mapping));
        suggestions.customers = run.unmappedCustomers
          .filter((customer) => customer.orgId)
          .map((customer) => ({ orgId: customer.orgId, organization: customer.organization, customerNumber: customer.customerNumber }));
        const services = new Map<string, MappingSuggestions['services'][number]>();
        for (const item of run.unmappedItems.filter((unmapped) => unmapped.serviceId)) {
          const service = services.get(item.serviceId) ?? { serviceId: item.serviceId, serviceName: item.serviceName, products: [] };
          service.products.push(item.productName);
          services.set(item.serviceId, service);
        }
        suggestions.services = [...services.values()];
      }
      await opened.outputs.writeBytes(path, mappingCsv(mapping, suggestions));
      return { entries: mapping.customers.length + mapping.items.length, toFill: suggestions.customers.length + suggestions.services.length };
    },
    settings: async (broker) => {
      return settingsOf(broker);
    },
    writeText: async (path, content) => (await ledger()).outputs.writeBytes(path, content),
    saveSettings: async (broker, settings, next) => {
      const nextWrong = next === undefined ? undefined : NextInvoiceNumber.safeParse(next).error?.issues[0]?.message;
      if (nextWrong) throw new AppError('validation', `The next invoice number ${nextWrong} (${next} was given); nothing was changed.`);
      // The prefix and the next number belong to the record's sequence (the team's, with a team ledger).
      const record = await recordNow();
      const counter = await record.counter(broker);
      await saveSettings(await ledger(), broker, settings, undefined);
      if (next !== undefined || settings.prefix !== (counter.prefix ?? settings.prefix) || counter.prefix === null)
        await record.setCounter(broker, settings.prefix, next ?? counter.next);
      return settingsOf(broker);
    },
    run: async (reportId, invoiceDate) => {
      // The stamp first: it hashes the signed lines again, which DuckDB does best before the invoices are held.
      const { signedContentHash: _, ...readiness } = await close.readiness(reportId);
      const inputs = await draftInputs(reportId);
      const run = await runFrom(inputs, reportId, invoiceDate);
      const runs = await exportedRuns(inputs);
      return { ...run, ...viewOf(reportId, inputs, readiness, run, runs, (last) => sinceExport(substancesOf(run.invoices), last).toIssue) };
    },
    invoiceLines: async (reportId, key) => {
      const { run } = await draft(reportId, undefined, key.orgId);
      const invoice = run.invoices.find((made) => invoiceKey(made) === invoiceKey(key));
      if (!invoice)
        throw new AppError(
          'not-found',
          `${key.orgKey}'s invoice in ${key.currency}${key.po ? ` (PO ${key.po})` : ''} is not in the month's invoices now: the mapping or an adjustment changed them. Open the Invoices tab again.`,
        );
      return invoice.lines;
    },
    adjust: async (reportId, input, reason) => {
      const text = reason.trim();
      if (!text) throw new AppError('validation', 'Say why the invoices are adjusted: a reason is required.', { reason: 'is required' });
      const parsed = InvoiceAdjustment.safeParse({ ...input, id: randomUUID() });
      if (!parsed.success)
        throw new AppError(
          'validation',
          `The adjustment was not made: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}.`,
        );
      const adjustment = parsed.data;
      const { run, mapping } = await draft(reportId, undefined);
      if (adjustment.kind === 'manual') {
        if (looksLikeFormula(adjustment.description))
          throw new AppError('validation', `The description "${adjustment.description}" begins like a formula; write it without the leading character.`);
        if (!mapping.items.some((item) => itemKey(item) === adjustment.item))
          throw new AppError(
            'validation',
            `${adjustment.item} is not an item of the mapping: name one (like service:ID or product:ID) so the line is booked and taxed as it says.`,
          );
        const problem = manualLineProblem(adjustment, run.invoices);
        if (problem) throw new AppError('validation', `The adjustment was not made: ${problem}`);
      }
      if (
        adjustment.kind === 'exclude' &&
        !run.invoices.some((invoice) => invoice.orgId === adjustment.orgId && invoice.lines.some((line) => line.lineKey === adjustment.lineKey))
      )
        throw new AppError(
          'validation',
          `Customer ${adjustment.orgId} has no invoice line ${adjustment.lineKey} this month (invoices run ID --json lists each line's key).`,
        );
      if (adjustment.kind === 'withdraw' && !run.adjustments.some((entry) => entry.adjustment.id === adjustment.withdraws))
        throw new AppError('validation', `No adjustment ${adjustment.withdraws} is in force this month.`);
      await close.invoiceStep(reportId, { action: 'adjusted', note: text, evidence: JSON.stringify(adjustment) });
      return api.run(reportId);
    },
    approveAdjustments: async (reportId) => {
      await close.invoiceStep(reportId, { action: 'adjustments-approved', note: '', evidence: '' });
      return api.run(reportId);
    },
    export: async (reportId, format, folder, invoiceDate) => {
      const done = await exportRun(reportId, format, invoiceDate, async (name, fill) => {
        const path = join(folder, name);
        await fill(path);
        return path;
      });
      return { ...done, files: done.files.map(({ file, ...rest }) => ({ path: file, ...rest })) };
    },
  };

  const brokerOfReport = api.brokerOfReport;
  const handlers: InvoiceHandlers = {
    'invoices:run': ({ reportId, invoiceDate }) => overview(reportId, invoiceDate),
    'invoices:lines': ({ reportId, invoice }) => api.invoiceLines(reportId, invoice),
    'invoices:mapping': async ({ reportId }) => {
      const broker = await brokerOfReport(reportId);
      return { mapping: await api.mapping(broker), settings: await api.settings(broker) };
    },
    'invoices:map': async ({ reportId, customer, item }) => {
      const broker = await brokerOfReport(reportId);
      await keepMapping(broker, { customers: customer ? [customer] : [], items: item ? [item] : [] }, false);
      return api.mapping(broker);
    },
    'invoices:import-mapping': async ({ reportId, csv }) => api.importMapping(await brokerOfReport(reportId), csv),
    'invoices:export-mapping': async ({ reportId }) => {
      const broker = await brokerOfReport(reportId);
      const month = await monthOf(await ledger(), reportId);
      return deliverFile(ports, `invoice-mapping-${month.startDate.slice(0, 7)}.csv`, 'csv', async (path) => {
        await api.exportMapping(broker, path, reportId);
      });
    },
    'invoices:settings': async ({ reportId, settings, next }) => api.saveSettings(await brokerOfReport(reportId), settings, next),
    // The desktop asks for a folder and writes every file there; the browser bridge hands each file over as a download.
    'invoices:adjust': async ({ reportId, adjustment, reason }) => overviewOf(await api.adjust(reportId, adjustment, reason)),
    'invoices:approve-adjustments': async ({ reportId }) => overviewOf(await api.approveAdjustments(reportId)),
    'invoices:export': async ({ reportId, format, invoiceDate }) => {
      if (ports.pickFolder) {
        const folder = await ports.pickFolder('Choose a folder for the invoice files');
        if (!folder)
          return {
            folder: null,
            files: [],
            cancelled: true,
            invoices: 0,
            firstNumber: '',
            lastNumber: '',
            again: false,
            refused: [],
            warnings: [],
            notApprovedBySecondPerson: false,
          };
        const done = await api.export(reportId, format, folder, invoiceDate);
        return { ...done, folder, cancelled: false, files: done.files.map((file) => ({ kind: 'saved' as const, path: file.path })) };
      }
      const done = await exportRun(reportId, format, invoiceDate, (name, fill) => deliverFile(ports, name, name.endsWith('.xml') ? 'xml' : 'csv', fill));
      return { ...done, folder: null, cancelled: false, files: done.files.map((entry) => entry.file) };
    },
  };
  return { api, handlers };
}

/** The Broker's newest saved fetch (of its latest month), if any. */
async function newestReport(ledger: Ledger, broker: Broker): Promise<string | undefined> {
  const [row] = await ledger.all('SELECT report_id FROM reports WHERE host = $1 AND reseller_id = $2 ORDER BY period_start DESC, fetched_at DESC LIMIT 1', [
    broker.host,
    broker.resellerId,
  ]);
  return row ? String(row.report_id) : undefined;
}

/** A credit note that cancels an exported invoice: its lines negated, naming the invoice it credits. */
/** Numbers the format's accounting system would refuse are not given: refused before the run is kept, none used. */
function refuseNumbersFor(format: InvoiceFormat, numbers: (string | null)[]): void {
  const problem = format === 'qbo' ? quickBooksNumberProblem(numbers) : null;
  if (problem) throw new AppError('validation', `The invoices were not exported, and no number was used. ${problem}.`);
}

/**
 * Why a manual line cannot go on the month's invoices as asked, found when it is asked for rather than at the run: it
 * goes on an invoice the customer has this month (in its currency), and is an amount in that currency's units.
 */
function manualLineProblem(line: { orgId: string; currency: string; amount: string }, invoices: readonly Invoice[]): string | null {
  const currencies = [...new Set(invoices.filter((invoice) => invoice.orgId === line.orgId).map((invoice) => invoice.currency))].sort();
  if (!currencies.includes(line.currency))
    return currencies.length
      ? `customer ${line.orgId} has nothing to invoice in ${line.currency} this month; its invoices are in ${currencies.join(', ')}.`
      : `customer ${line.orgId} has no invoice this month to add a line to (a customer not mapped, or with a product not mapped, waits).`;
  if (/^-?0*(\.0*)?$/.test(line.amount)) return 'an amount of 0 changes nothing; give the amount to add, or a negative one to take off.';
  const decimals = line.amount.split('.')[1]?.length ?? 0;
  const units = minorUnits(line.currency);
  if (decimals > units) return `${line.currency} is invoiced ${units ? `to ${counted(units, 'decimal')}` : 'in whole units'}: ${line.amount} has more.`;
  return null;
}

function creditNoteFor(invoice: Invoice, invoiceDate: string): Invoice {
  return {
    ...invoice,
    number: null,
    kind: invoice.kind === 'invoice' ? 'credit-note' : 'invoice',
    replaces: invoice.number,
    invoiceDate,
    dueDate: invoiceDate,
    periodText: `${invoice.periodText}; credits ${invoice.number ?? ''}`,
    lines: invoice.lines.map((line) => ({
      ...line,
      unitPrice: negatedText(line.unitPrice),
      netAmount: negatedText(line.netAmount),
      exactAmount: negatedText(line.exactAmount),
      vatAmount: negatedText(line.vatAmount),
    })),
    vat: invoice.vat.map((entry) => ({ ...entry, taxable: negatedText(entry.taxable), amount: negatedText(entry.amount) })),
    exactTotal: negatedText(invoice.exactTotal),
    netTotal: negatedText(invoice.netTotal),
    vatTotal: negatedText(invoice.vatTotal),
    grossTotal: negatedText(invoice.grossTotal),
  };
}

/** The workstation's calendar day (the invoice date a person means by "today"). */
function localDate(at: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}
