import { counted } from '@shared/counted';
import { mkdir, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { DATE_FORMATS, INVOICE_FIELDS, InvoiceFormat, InvoiceSettings, InvoiceTemplate, LINE_FIELDS } from '@shared/schemas/invoices';
import { IsoDate } from '@shared/schemas/common';
import { type CliContext, EXIT, parse, UsageError, withContext } from './context';
import { errorMessage } from '@shared/error-message';
import { jsonInParts, writeOut } from './standard-output';

const USAGE = [
  'Usage: invoices map [--report ID] --import FILE.csv | --export FILE.csv | --history [KEY] [--json]',
  '       invoices settings [--report ID] [--prefix P] [--next N] [--date-format F] [--lines-per subscription|product] [--split-by-po yes|no]',
  '                         [--seller-name|-vat-id|-company-id|-country|-street|-city|-postcode|-endpoint|-iban VALUE]',
  '       invoices template [--report ID] --import FILE.json | --export FILE.json | --remove',
  '       invoices run ID [--invoice-date YYYY-MM-DD] [--json]',
  '       invoices export ID --format xero|qbo|ubl|template --out DIR [--invoice-date YYYY-MM-DD]',
  '       invoices adjust ID --customer ORG-ID --currency CCY --description TEXT --amount A --item KEY --reason TEXT',
  '       invoices exclude ID --customer ORG-ID --currency CCY --line LINE-KEY --reason TEXT',
  '       invoices withdraw ID ADJUSTMENT-ID --reason TEXT | approve-adjustments ID',
].join('\n');

/** The seller's fields (on every e-invoice) as options of `invoices settings`. */
const SELLER_OPTIONS = [
  ['seller-name', 'name'],
  ['seller-vat-id', 'vatId'],
  ['seller-company-id', 'companyId'],
  ['seller-country', 'country'],
  ['seller-street', 'street'],
  ['seller-city', 'city'],
  ['seller-postcode', 'postcode'],
  ['seller-endpoint', 'endpoint'],
  ['seller-iban', 'iban'],
] as const;

/** The option each invoice setting is given by. */
const SETTING_OPTIONS: Record<string, string> = { prefix: 'prefix', dateFormat: 'date-format', linesPer: 'lines-per', splitByPo: 'split-by-po' };

/** A setting refused, named by the option that gave it (--seller-country: …); where there are choices, they are said. */
function settingsProblem(issue: { path: PropertyKey[]; message: string }): string {
  const [field, sellerField] = issue.path.map(String);
  const option = field === 'seller' ? SELLER_OPTIONS.find(([, name]) => name === sellerField)?.[0] : SETTING_OPTIONS[field ?? ''];
  const choices: Record<string, string> = { dateFormat: `takes one of ${DATE_FORMATS.join(', ')}`, linesPer: 'takes subscription or product' };
  return `--${option ?? issue.path.join('.')}: ${choices[field ?? ''] ?? issue.message}`;
}

/** An exact amount and its currency, as the CLI prints money: the decimal text itself, never a float. */
const formatMoney = (amount: string, currency: string) => `${amount} ${currency}`;
const amountsText = (amounts: { currency: string; amount: string }[]) => amounts.map((entry) => formatMoney(entry.amount, entry.currency)).join(', ');

/** The Broker a mapping command means: the month's given by --report, else the one Broker the ledger has. */
async function brokerFor(context: CliContext, reportId: string | undefined) {
  const { invoices } = context.service;
  if (reportId) return invoices.brokerOfReport(reportId);
  const brokers = await invoices.brokers();
  if (brokers.length === 1) return brokers[0] as (typeof brokers)[number];
  if (!brokers.length) throw new UsageError('No month is saved yet: fetch one first (the mapping is kept per service and reseller).');
  throw new UsageError(
    `Saved months come from ${brokers.length} services or resellers (${brokers.map((broker) => `${broker.host} ${broker.resellerId}`).join('; ')}): name one with --report ID.`,
  );
}

/** `invoices map --history [KEY]`: every change of the mapping (of one entry), oldest first, as the team ledger keeps it. */
async function mappingHistory(context: CliContext, broker: Awaited<ReturnType<typeof brokerFor>>, key: string | null, json: boolean): Promise<number> {
  const changes = await context.service.invoices.mappingHistory(broker, key);
  if (!changes) {
    process.stderr.write(
      'No history of the mapping is kept here: this workstation keeps each entry as last set. A team ledger (schema version 3) keeps every change, by whom and when.\n',
    );
    return EXIT.ok;
  }
  if (json) process.stdout.write(`${JSON.stringify(changes, null, 2)}\n`);
  else
    for (const change of changes)
      process.stdout.write(
        `${change.changedAt}  ${change.kind} ${change.key}  ${change.entry === null ? 'removed' : 'set'} by ${change.changedBy}${change.workstation ? ` (${change.workstation})` : ''}${change.entry === null ? '' : `: ${change.entry}`}\n`,
      );
  process.stderr.write(
    `${changes.length} ${changes.length === 1 ? 'change' : 'changes'} of the mapping of ${broker.host} (reseller ${broker.resellerId})${key ? `, ${key}` : ''}.\n`,
  );
  return EXIT.ok;
}

/**
 * `invoices map` (the mapping to the accounting system, as CSV), `invoices settings` (numbering, dates, lines),
 * `invoices run ID` (the month's invoices as they would be made now, unmapped first) and `invoices export ID`
 * (numbers them once and writes the import files). A month not ready to invoice, or anything unmapped: exit 5.
 */
export async function invoicesCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parse(rest, {
    report: { type: 'string' },
    import: { type: 'string' },
    export: { type: 'string' },
    prefix: { type: 'string' },
    next: { type: 'string' },
    'date-format': { type: 'string' },
    'lines-per': { type: 'string' },
    'split-by-po': { type: 'string' },
    'invoice-date': { type: 'string' },
    format: { type: 'string' },
    out: { type: 'string' },
    remove: { type: 'boolean' },
    history: { type: 'boolean' },
    customer: { type: 'string' },
    currency: { type: 'string' },
    description: { type: 'string' },
    amount: { type: 'string' },
    item: { type: 'string' },
    line: { type: 'string' },
    reason: { type: 'string' },
    ...Object.fromEntries(SELLER_OPTIONS.map(([option]) => [option, { type: 'string' as const }])),
  });
  const invoiceDate = values['invoice-date'];
  if (invoiceDate !== undefined && !IsoDate.safeParse(invoiceDate).success)
    throw new UsageError(`--invoice-date takes a real date like 2026-11-08, not ${JSON.stringify(invoiceDate)}.`);
  return withContext(values['data-dir'], async (context) => {
    const { invoices } = context.service;
    if (action === 'map') {
      if (values.history) {
        if (positionals.length > 1 || values.import || values.export) throw new UsageError(USAGE);
        return mappingHistory(context, await brokerFor(context, values.report), positionals[0] ?? null, values.json);
      }
      if (positionals.length || Boolean(values.import) === Boolean(values.export)) throw new UsageError(USAGE);
      const broker = await brokerFor(context, values.report);
      if (values.import) {
        const mapping = await invoices.importMapping(broker, await readFile(resolve(values.import), 'utf8'));
        process.stderr.write(
          `Kept the mapping of ${broker.host} (reseller ${broker.resellerId}): ${counted(mapping.customers.length, 'customer')}, ${counted(mapping.items.length, 'item')}.\n`,
        );
      } else {
        const path = resolve(values.export as string);
        const written = await invoices.exportMapping(broker, path, values.report);
        process.stderr.write(
          `Wrote the mapping (${written.entries} entries) to ${path}${written.toFill ? `, with ${written.toFill} rows to fill in for what the month has that it lacks` : ''}.\n`,
        );
      }
      return EXIT.ok;
    }
    if (action === 'template') {
      const chosen = [values.import, values.export, values.remove].filter((value) => value !== undefined);
      if (positionals.length || chosen.length !== 1) throw new UsageError(USAGE);
      const broker = await brokerFor(context, values.report);
      const { next, ...current } = await invoices.settings(broker);
      if (values.export) {
        if (!current.template) throw new UsageError('No template of your own is set yet.');
        await invoices.writeText(resolve(values.export), `${JSON.stringify(current.template, null, 2)}\n`);
        return EXIT.ok;
      }
      let template: InvoiceTemplate | null = null;
      if (values.import) {
        let given: unknown;
        try {
          given = JSON.parse((await readFile(resolve(values.import), 'utf8')).replace(/^\uFEFF/, '')); // a byte-order mark, as Notepad may save
        } catch (error) {
          throw new UsageError(`${values.import} is not a JSON template: ${errorMessage(error)}.`);
        }
        const parsed = InvoiceTemplate.safeParse(given);
        if (!parsed.success)
          throw new UsageError(
            `The template was not kept: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'template'}: ${issue.message}`).join('; ')}. Fields: ${[...INVOICE_FIELDS, ...LINE_FIELDS].join(', ')}.`,
          );
        template = parsed.data;
      }
      await invoices.saveSettings(broker, { ...current, template }, next);
      process.stderr.write(
        template ? `Kept the template "${template.name}" (${template.columns.length} columns, a row per ${template.rowsPer}).\n` : 'Removed the template.\n',
      );
      return EXIT.ok;
    }
    if (action === 'settings') {
      if (positionals.length) throw new UsageError(USAGE);
      const broker = await brokerFor(context, values.report);
      const current = await invoices.settings(broker);
      const given = values as Record<string, string | boolean | undefined>;
      const changed = ['prefix', 'next', 'date-format', 'lines-per', 'split-by-po', ...SELLER_OPTIONS.map(([option]) => option)].some(
        (option) => given[option] !== undefined,
      );
      let shown = current;
      if (changed) {
        const next = values.next === undefined ? undefined : /^\d+$/.test(values.next) ? Number(values.next) : NaN;
        if (Number.isNaN(next)) throw new UsageError('--next takes a whole number from 1 to 999,999,999.');
        const splitByPo = values['split-by-po'];
        if (splitByPo !== undefined && !['yes', 'no'].includes(splitByPo)) throw new UsageError('--split-by-po takes yes or no.');
        const parsed = InvoiceSettings.safeParse({
          prefix: values.prefix ?? current.prefix,
          dateFormat: values['date-format'] ?? current.dateFormat,
          linesPer: values['lines-per'] ?? current.linesPer,
          splitByPo: splitByPo === undefined ? current.splitByPo : splitByPo === 'yes',
          seller: Object.fromEntries(SELLER_OPTIONS.map(([option, field]) => [field, (given[option] as string | undefined) ?? current.seller[field]])),
        });
        if (!parsed.success) throw new UsageError(`${parsed.error.issues.map(settingsProblem).join('; ')}.`);
        shown = await invoices.saveSettings(broker, parsed.data, next);
      }
      process.stdout.write(
        values.json
          ? `${JSON.stringify(shown)}\n`
          : `Next invoice: ${shown.prefix}${shown.next}; dates ${shown.dateFormat}; a line per ${shown.linesPer}; ${shown.splitByPo ? 'an invoice per PO number' : 'one invoice per customer and currency'}.\nSeller on e-invoices: ${shown.seller.name || '(not set)'}${shown.seller.vatId ? `, VAT ${shown.seller.vatId}` : ''}${shown.seller.country ? `, ${shown.seller.country}` : ''}${shown.seller.endpoint ? `, Peppol ${shown.seller.endpoint}` : ''}.\n`,
      );
      return EXIT.ok;
    }
    const [reportId, ...more] = positionals;
    if (!reportId || more.length > (action === 'withdraw' ? 1 : 0)) throw new UsageError(USAGE);
    if (action === 'adjust' || action === 'exclude' || action === 'withdraw') {
      const reason = values.reason ?? '';
      const target = { orgId: values.customer ?? '', currency: (values.currency ?? '').toUpperCase() };
      const run = await invoices.adjust(
        reportId,
        action === 'adjust'
          ? { kind: 'manual', ...target, description: values.description ?? '', amount: values.amount ?? '', item: values.item ?? '' }
          : action === 'exclude'
            ? { kind: 'exclude', ...target, lineKey: values.line ?? '' }
            : { kind: 'withdraw', withdraws: more[0] ?? '' },
        reason,
      );
      const made = run.adjustments.at(-1);
      process.stdout.write(`${made && action !== 'withdraw' ? made.adjustment.id : more[0]}\n`);
      process.stderr.write(
        `Logged with the month${run.blockers.some((blocker) => blocker.includes('approve-adjustments')) ? "; it awaits a second person's approval (invoices approve-adjustments)" : ''}.\n`,
      );
      return EXIT.ok;
    }
    if (action === 'approve-adjustments') {
      await invoices.approveAdjustments(reportId);
      process.stderr.write('Approved the adjustments: the month can be invoiced again.\n');
      return EXIT.ok;
    }
    if (action === 'run') {
      const run = await invoices.run(reportId, invoiceDate);
      if (values.json) {
        for (const part of jsonInParts(run, 'invoices')) await writeOut(part);
        await writeOut('\n');
        return EXIT.ok;
      }
      const out: string[] = [`${run.periodText}: ${run.readiness.line}`];
      for (const customer of run.unmappedCustomers)
        out.push(
          `UNMAPPED customer  ${customer.organization} (${customer.orgId || 'no id'})  ${amountsText(customer.amounts)}; ${counted(customer.lines, 'line')}`,
        );
      for (const item of run.unmappedItems)
        out.push(
          `UNMAPPED item      ${item.productName} (product ${item.productId}${item.itemCode ? `, item code ${item.itemCode}` : ''}; service ${item.serviceName} ${item.serviceId})  ${amountsText(item.amounts)}; ${item.lines} lines`,
        );
      for (const invoice of run.invoices)
        out.push(
          `${invoice.kind === 'invoice' ? 'Invoice    ' : 'Credit note'}  ${invoice.contactName}  ${formatMoney(invoice.netTotal, invoice.currency)} net + VAT ${formatMoney(invoice.vatTotal, invoice.currency)}, due ${invoice.dueDate}, ${invoice.lines.length} lines`,
        );
      for (const currency of run.currencies)
        out.push(`${currency.currency}: ${formatMoney(currency.invoiced, currency.currency)} invoiced. ${currency.explanation}`);
      for (const { adjustment, reason, by, at } of run.adjustments)
        out.push(
          `Adjustment ${adjustment.id} by ${by} at ${at}: ${adjustment.kind === 'manual' ? `${adjustment.description} ${formatMoney(adjustment.amount, adjustment.currency)} for ${adjustment.orgId}` : adjustment.kind === 'exclude' ? `leaves out ${adjustment.lineKey} of ${adjustment.orgId}` : ''} ("${reason}")`,
        );
      for (const exported of run.exported)
        out.push(`Exported ${exported.firstNumber}–${exported.lastNumber} by ${exported.exportedBy} at ${exported.exportedAt}.`);
      if (run.changedSinceExport)
        out.push(`Changed since the last export: the next export issues ${run.changedSinceExport} credit notes and invoices for what changed.`);
      for (const blocker of run.blockers) out.push(`NOT READY: ${blocker}`);
      process.stdout.write(`${out.join('\n')}\n`);
      return run.blockers.length ? EXIT.control : EXIT.ok;
    }
    if (action === 'export') {
      const format = InvoiceFormat.safeParse(values.format);
      if (!format.success || !values.out) throw new UsageError(USAGE);
      await mkdir(resolve(values.out), { recursive: true });
      const done = await invoices.export(reportId, format.data, resolve(values.out), invoiceDate);
      for (const file of done.files) process.stdout.write(`${file.path}\n`);
      for (const refused of done.refused) process.stderr.write(`NOT WRITTEN: ${refused}.\n`);
      for (const warning of done.warnings) process.stderr.write(`CHECK: ${warning}.\n`);
      process.stderr.write(
        `${done.again ? 'Wrote again' : 'Exported'} ${done.invoices} ${done.invoices === 1 ? 'invoice' : 'invoices'} (${done.firstNumber}–${done.lastNumber}) in ${done.files.length} ${done.files.length === 1 ? 'file' : 'files'}.${done.notApprovedBySecondPerson ? ' Not approved by a second person (a workstation without a team ledger).' : ''}\n`,
      );
      return done.refused.length ? EXIT.control : EXIT.ok;
    }
    throw new UsageError(USAGE);
  });
}
