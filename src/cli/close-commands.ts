import { resolve } from 'node:path';
import { AppError } from '@shared/errors';
import {
  type BillingException,
  CHECKLIST_STEPS,
  type ChecklistStepId,
  CloseCalendar,
  type Evidence,
  MonthChange,
  type MonthCloseView,
  type Severity,
} from '@shared/schemas/month-close';
import { bridgeLines } from '@shared/model/bridge-text';
import { endsTheDayBefore } from '@shared/model/month-before';
import { comparedWithPartialText, fetchedBeforeEndAdvice, partialFetch } from '@shared/model/period-end';
import { describeFigures, openSinceSignOff, openTotal, type ShownReviewState, shownReviewState } from '@shared/model/review-state';
import type { CliContext } from './context';
import { EXIT, parse, UsageError, withContext } from './context';
import { indentedJsonArray, writeOut } from './standard-output';
import { counted } from '@shared/counted';

/** `reports check` ends with this when exceptions at or above --fail-on are still open (for scripts and CI). */
export const EXIT_OPEN_EXCEPTIONS = 4;

/** The `reports` actions this module answers; the rest are report-commands.ts'. */
export const CLOSE_ACTIONS = ['compare', 'check', 'accept', 'prepare', 'approve', 'reopen', 'log', 'evidence', 'checklist', 'calendar'] as const;

export function isCloseAction(action: string | undefined): boolean {
  return (CLOSE_ACTIONS as readonly string[]).includes(action ?? '');
}

type LineValues = NonNullable<MonthChange['before']>;
type Values = Omit<LineValues, 'quantity'> & { quantity: string | null };

/** Where a change or an exception is: each level's name and id, null where the level does not apply. */
interface PlaceJson {
  organization: string;
  customerNumber: string;
  orgId: string | null;
  service: string | null;
  serviceId: string | null;
  subscription: string | null;
  subscriptionId: string | null;
  product: string | null;
  productId: string | null;
}

/**
 * One change of `reports compare --json`, one object per change. Amounts are exact decimal strings; a field that does
 * not apply at the change's level is null (a new organization has no subscriptionId or productId).
 *
 *   kind            "new" | "lost" | "quantity" | "price" | "amount"
 *   level           "organization" | "service" | "subscription" | "line"
 *   organization, customerNumber, orgId
 *   service, serviceId, subscription, subscriptionId, product, productId   (null where they do not apply)
 *   currency        "EUR", or "USD→SEK" when cost and sales are in two currencies (never added together)
 *   before, after   { quantity, unitPrice, unitCost, cost, sales } or null (new: before is null; lost: after is
 *                   null); quantity is null for a whole organization or service, a unit price null when it is mixed
 *   effects         { price, quantity, newLost, other }: this change's part of the change in sales
 */
export interface ChangeJson extends PlaceJson {
  kind: MonthChange['kind'];
  level: MonthChange['level'];
  currency: string;
  before: Values | null;
  after: Values | null;
  effects: MonthChange['effects'];
}

/**
 * One exception of `reports check --json`:
 *   id              what `reports accept` takes (rule and entity keys, stable through a refetch)
 *   rule, severity ("high" | "medium" | "low"), title, message
 *   organization, customerNumber, orgId, service, serviceId, subscription, subscriptionId, product, productId,
 *   currency        (null where they do not apply)
 *   evidence        the figures the rule saw, by name (exact decimal strings)
 *   state           "open" | "accepted" | "resolved" | "suspended" (reviewed on other figures: open again), with note,
 *                   reviewedBy and reviewedAt (null while open), and reviewedEvidence (the figures reviewed)
 */
export interface ExceptionJson extends PlaceJson {
  id: string;
  rule: string;
  severity: Severity;
  title: string;
  message: string;
  currency: string | null;
  evidence: Evidence;
  state: ShownReviewState;
  reviewedEvidence: Evidence | null;
  note: string | null;
  reviewedBy: string | null;
  reviewedAt: string | null;
}

function placeJson(
  place: Pick<MonthChange, 'organization' | 'customerNumber' | 'orgId' | 'service' | 'serviceId' | 'subscription' | 'subscriptionId' | 'product' | 'productId'>,
): PlaceJson {
  return {
    organization: place.organization,
    customerNumber: place.customerNumber,
    orgId: place.orgId || null,
    service: place.service || null,
    serviceId: place.serviceId,
    subscription: place.subscription,
    subscriptionId: place.subscriptionId,
    product: place.product,
    productId: place.productId,
  };
}

const valuesOf = (values: LineValues | null): Values | null => values && { ...values, quantity: values.quantity === '' ? null : values.quantity };

export function changeJson(change: MonthChange): ChangeJson {
  return {
    kind: change.kind,
    level: change.level,
    ...placeJson(change),
    currency: change.currencyKey,
    before: valuesOf(change.before),
    after: valuesOf(change.after),
    effects: change.effects,
  };
}

export function exceptionJson(exception: BillingException): ExceptionJson {
  return {
    id: exception.id,
    rule: exception.rule,
    severity: exception.severity,
    title: exception.title,
    message: exception.message,
    ...placeJson({ ...exception, service: exception.service ?? '' }),
    currency: exception.currencyKey,
    evidence: exception.evidence,
    state: shownReviewState(exception.review),
    reviewedEvidence: exception.review?.evidence ?? null,
    note: exception.review?.note ?? null,
    reviewedBy: exception.review?.reviewedBy ?? null,
    reviewedAt: exception.review?.reviewedAt ?? null,
  };
}

/** Where a change is: organization, then service, subscription and product as far as they apply. */
export function exceptionLines(exception: BillingException): string {
  const state = shownReviewState(exception.review);
  const note = exception.review?.note ? `\n    note: ${exception.review.note} (${exception.review.reviewedBy})` : '';
  const suspended = exception.review?.suspended
    ? `\n    suspended: reviewed on ${describeFigures(exception.review.suspended.reviewed)}; now ${describeFigures(exception.review.suspended.now)}`
    : '';
  return `${exception.severity.padEnd(6)} ${state.padEnd(8)} ${exception.rule.padEnd(22)} ${exception.organization}: ${exception.message}\n    id: ${exception.id}${note}${suspended}`;
}

const SEVERITIES: Severity[] = ['high', 'medium', 'low'];

/** Open exceptions at or above a severity. */
export function openAtOrAbove(view: Pick<MonthCloseView, 'open'>, failOn: Severity): number {
  return SEVERITIES.slice(0, SEVERITIES.indexOf(failOn) + 1).reduce((sum, severity) => sum + view.open[severity], 0);
}

const openSummary = (view: Pick<MonthCloseView, 'open'>) => {
  const open = openAtOrAbove(view, 'low');
  return `${counted(open, 'exception')} open (${view.open.high} high, ${view.open.medium} medium, ${view.open.low} low)`;
};

/** The saved reports' names and periods, and a plain refusal (exit 1) for an id that is not one of them. */
async function savedReports(context: CliContext) {
  const listings = await context.call('reports:list', {});
  const metas = new Map(listings.flatMap((listing) => (listing.state === 'ok' ? [[listing.meta.id, listing.meta] as const] : [])));
  const metaOf = (id: string) => {
    const meta = metas.get(id);
    if (!meta) throw new UsageError(`No saved report with id ${id}. See: closebook reports list`);
    return meta;
  };
  return {
    nameOf: (id: string) => {
      const { name, period } = metaOf(id);
      return `${name} (${period.startDate}…${period.endDate})`;
    },
    periodOf: (id: string) => metaOf(id).period,
  };
}

async function compareCommand(context: CliContext, ids: string[], values: { json: boolean; out?: string | undefined }): Promise<number> {
  if (ids.length < 1 || ids.length > 2)
    throw new UsageError('Usage: reports compare [BEFORE-ID] AFTER-ID [--json] [--out FILE.xlsx] (one id: that month against the month before it)');
  if (values.out && !/\.xlsx$/i.test(values.out)) throw new UsageError('--out must name an .xlsx file');
  const { nameOf } = await savedReports(context);
  for (const id of ids) nameOf(id);
  const close = context.service.close;
  const afterId = ids[ids.length - 1] as string;
  const beforeId = ids.length === 2 ? (ids[0] as string) : await close.previousOf(afterId);
  if (!beforeId)
    throw new UsageError(
      `There is no earlier month of this service in the ledger to compare ${nameOf(afterId)} with. Fetch or import last month first, or name both: reports compare BEFORE-ID AFTER-ID`,
    );
  const comparison = await close.compare(beforeId, afterId);
  // A comparison made now is folded into the ledger's file while its changes are written out: left to the ledger's
  // closing, at 1,000,000 lines it took a second more after the last line.
  const folded = context.service.ledger.foldIn();
  folded.catch(() => undefined); // awaited below, after the output
  if (values.json) {
    // A month can have hundreds of thousands of changes: written a batch at a time.
    const changes = async function* () {
      for await (const batch of comparison.batches()) yield batch.map(changeJson);
    };
    for await (const text of indentedJsonArray(changes())) await writeOut(text);
  } else {
    await writeOut(
      `${nameOf(afterId)} compared with ${nameOf(beforeId)}\n\nSales and cost by currency (before + price + quantity + new/lost + other = after), and the margin:\n`,
    );
    for (const bridge of comparison.bridges)
      await writeOut(
        bridgeLines(bridge)
          .map((line) => `  ${line}\n`)
          .join(''),
      );
    await writeOut(`\nChanges (${comparison.changeCount}):\n`);
    for await (const lines of comparison.listing('  ')) await writeOut(lines);
  }
  const kinds = MonthChange.shape.kind.options.flatMap((kind) => (comparison.kinds[kind] ? [`${comparison.kinds[kind]} ${kind}`] : []));
  process.stderr.write(`${counted(comparison.changeCount, 'change')}${kinds.length ? `: ${kinds.join(', ')}` : ''}.\n`);
  if (values.out) {
    const written = await close.exportComparison(comparison, resolve(values.out));
    process.stderr.write(`Wrote ${written.changes} changes to ${resolve(values.out)}.\n`);
  }
  await folded;
  return EXIT.ok;
}

function severityFlag(value: string | undefined): Severity {
  const severity = value ?? 'low';
  if (!(SEVERITIES as string[]).includes(severity)) throw new UsageError('--fail-on must be high, medium or low');
  return severity as Severity;
}

async function checkCommand(context: CliContext, ids: string[], values: { json: boolean; 'fail-on'?: string | undefined }): Promise<number> {
  const failOn = severityFlag(values['fail-on']);
  if (ids.length !== 1) throw new UsageError('Usage: reports check ID [--json] [--fail-on high|medium|low]');
  const reportId = ids[0] as string;
  const saved = await savedReports(context);
  const name = saved.nameOf(reportId);
  const view = await context.service.close.check(reportId);
  if (values.json) process.stdout.write(`${JSON.stringify(view.exceptions.map(exceptionJson), null, 2)}\n`);
  else for (const exception of view.exceptions) process.stdout.write(`${exceptionLines(exception)}\n`);
  const failing = openAtOrAbove(view, failOn);
  const previous = view.previousPeriod;
  const against = !previous
    ? ' No earlier month is in the ledger, so the rules against last month were not run.'
    : endsTheDayBefore(previous, saved.periodOf(reportId))
      ? ''
      : ` The rules against last month compared with ${previous.startDate}…${previous.endDate}, the newest earlier month in the ledger: the months between are not in it (fetch them to check against the month before).`;
  const partialBefore = partialFetch(previous?.endDate, view.previousFetchedAt);
  const partial =
    previous && partialBefore ? ` ${comparedWithPartialText(`${previous.startDate}…${previous.endDate}`, partialBefore.endDate, partialBefore.fetchedAt)}` : '';
  process.stderr.write(`${name}: ${counted(view.exceptions.length, 'exception')}, ${openSummary(view)}.${against}${partial}\n${stateLine(view)}\n`);
  // A signed month's reviews are locked: the state line says to reopen it instead.
  if (failing > 0 && view.state === 'draft')
    process.stderr.write(`Accept each with a note (reports accept ${reportId} EXCEPTION-ID --note TEXT) or put it right and --resolve it.\n`);
  return failing > 0 ? EXIT_OPEN_EXCEPTIONS : EXIT.ok;
}

async function acceptCommand(context: CliContext, ids: string[], values: { note?: string | undefined; resolve: boolean }): Promise<number> {
  const [reportId, ...exceptionIds] = ids;
  if (!reportId || exceptionIds.length === 0)
    throw new UsageError('Usage: reports accept ID EXCEPTION-ID… --note TEXT [--resolve] (the ids `reports check ID` prints)');
  const note = values.note?.trim() ?? '';
  if (!values.resolve && !note) throw new UsageError('Say why the exception is accepted: --note TEXT (or --resolve when it was put right).');
  (await savedReports(context)).nameOf(reportId);
  const close = context.service.close;
  // The core refuses an id the month does not have (exit 1), and a review of a Prepared or Approved month (exit 5).
  const done = await close.review(reportId, exceptionIds, values.resolve ? 'resolved' : 'accepted', note);
  process.stdout.write(`${openAtOrAbove(done, 'low')}\n`);
  process.stderr.write(`${values.resolve ? 'Resolved' : 'Accepted'} ${counted(exceptionIds.length, 'exception')}; ${openSummary(done)}.\n`);
  return EXIT.ok;
}

/** The month's close state in one line: DRAFT, PREPARED or APPROVED with who and when, or what failed its checks. */
function stateLine(view: MonthCloseView): string {
  const offline = view.teamOfflineSince
    ? `\nThe team ledger cannot be reached: this is the state last read from it, at ${view.teamOfflineSince}; nothing can be changed until it answers.`
    : '';
  // A signed month's exceptions were all reviewed when it was signed: one open now came after, and holds it back.
  const open = openTotal(view.open);
  const since =
    view.state !== 'draft' && open > 0
      ? `\n${openSinceSignOff(open)}. Reopen the month (reports reopen ${view.reportId} --reason TEXT) to review them; until then it is not ready to invoice.`
      : '';
  const early =
    view.state === 'draft' && view.fetchedBeforeEnd ? `\n${fetchedBeforeEndAdvice(view.fetchedBeforeEnd.endDate, view.fetchedBeforeEnd.fetchedAt)}` : '';
  return `${signOffLine(view)}${since}${early}${offline}`;
}

function signOffLine(view: MonthCloseView): string {
  const { signOff, integrity } = view;
  if (signOff && integrity.contentChanged) return 'CHANGED AFTER SIGN-OFF: the signed lines no longer match their content hash.';
  if (!integrity.logIntact) return `CHANGED AFTER SIGN-OFF: the close log was changed (its chain breaks at entry ${integrity.logBrokenAt}).`;
  if (view.state === 'draft') return signOff ? `DRAFT: the month is ${signOff.state} on another fetch (${signOff.reportId}).` : 'DRAFT: not prepared.';
  const prepared = `prepared by ${signOff?.preparedBy} at ${signOff?.preparedAt}`;
  if (view.state === 'approved') return `APPROVED by ${signOff?.approvedBy} at ${signOff?.approvedAt}; ${prepared}.`;
  return view.teamLedger ? `PREPARED: ${prepared}; awaiting approval by a second person.` : `PREPARED: ${prepared}; not approved by a second person.`;
}

async function stepCommand(context: CliContext, ids: string[], action: 'prepare' | 'approve'): Promise<number> {
  if (ids.length !== 1) throw new UsageError(`Usage: reports ${action} ID`);
  const reportId = ids[0] as string;
  const name = (await savedReports(context)).nameOf(reportId);
  const view = action === 'prepare' ? await context.service.close.prepare(reportId) : await context.service.close.approve(reportId);
  process.stderr.write(`${name}: ${stateLine(view)}\n`);
  process.stdout.write(`${view.state}\n`);
  return EXIT.ok;
}

async function reopenCommand(context: CliContext, ids: string[], values: { reason?: string | undefined }): Promise<number> {
  const reason = values.reason?.trim() ?? '';
  if (ids.length !== 1 || !reason) throw new UsageError('Usage: reports reopen ID --reason TEXT (why the month goes back to Draft)');
  const reportId = ids[0] as string;
  const name = (await savedReports(context)).nameOf(reportId);
  const view = await context.service.close.reopen(reportId, reason);
  process.stderr.write(`${name}: ${stateLine(view)}\n`);
  process.stdout.write(`${view.state}\n`);
  return EXIT.ok;
}

async function logCommand(context: CliContext, ids: string[], values: { json: boolean }): Promise<number> {
  if (ids.length !== 1) throw new UsageError('Usage: reports log ID [--json]');
  const reportId = ids[0] as string;
  const name = (await savedReports(context)).nameOf(reportId);
  const log = await context.service.close.log(reportId);
  if (values.json) process.stdout.write(`${JSON.stringify(log, null, 2)}\n`);
  else
    for (const entry of log.entries)
      await writeOut(
        `${String(entry.seq).padStart(4)}  ${entry.at}  ${entry.actor.padEnd(16)} ${entry.action.padEnd(9)} ${entry.exceptionId}${entry.note ? `  "${entry.note}"` : ''}\n`,
      );
  process.stderr.write(
    log.intact
      ? `${name}: ${log.entries.length} log entries, the hash chain intact.\n`
      : `${name}: the log was changed — its hash chain breaks at entry ${log.brokenAt}.\n`,
  );
  return log.intact ? EXIT.ok : EXIT.control;
}

async function evidenceCommand(context: CliContext, ids: string[], values: { out?: string | undefined }): Promise<number> {
  if (ids.length !== 1 || !values.out) throw new UsageError('Usage: reports evidence ID --out FILE.pdf');
  if (!/\.pdf$/i.test(values.out)) throw new UsageError('--out must name a .pdf file');
  const reportId = ids[0] as string;
  const name = (await savedReports(context)).nameOf(reportId);
  const path = resolve(values.out);
  const { pages } = await context.service.close.evidence(reportId, path);
  process.stderr.write(`${name}: wrote the month's evidence (${pages} ${pages === 1 ? 'page' : 'pages'}) to ${path}.\n`);
  return EXIT.ok;
}

/**
 * `reports compare [A] B [--json] [--out F.xlsx]`, `reports check ID [--json] [--fail-on high|medium|low]`,
 * `reports accept ID EXCEPTION-ID… --note TEXT [--resolve]`, `reports prepare ID`, `reports approve ID` and
 * `reports reopen ID --reason TEXT`, `reports log ID [--json]` and `reports evidence ID --out F.pdf`: closing a month, offline, on the saved months. A refusal by a control exits 5.
 */
async function checklistCommand(context: CliContext, ids: string[], values: { json: boolean }): Promise<number> {
  if (ids.length !== 1) throw new UsageError('Usage: reports checklist ID [--json]');
  const reportId = ids[0] as string;
  const name = (await savedReports(context)).nameOf(reportId);
  const checklist = await context.service.close.checklist(reportId);
  if (values.json) process.stdout.write(`${JSON.stringify(checklist, null, 2)}\n`);
  else
    for (const step of checklist.steps) {
      const state = step.done
        ? `done${step.done.by ? ` by ${step.done.by}` : ''}${step.done.at ? ` at ${step.done.at}` : ''}`
        : step.overdueDays
          ? `OVERDUE by ${step.overdueDays} ${step.overdueDays === 1 ? 'day' : 'days'}`
          : 'to do';
      process.stdout.write(`${step.label.padEnd(34)} due ${step.due}  ${state}\n`);
    }
  const overdue = checklist.steps.filter((step) => step.overdueDays > 0).length;
  process.stderr.write(
    `${name}: ${checklist.steps.filter((step) => step.done).length} of ${checklist.steps.length} steps done${overdue ? `, ${overdue} overdue` : ''} (today ${checklist.today}).\n`,
  );
  return EXIT.ok;
}

/** `--due STEP=N`: a step's due business day. */
function dueDays(values: string[] | undefined, calendar: CloseCalendar): CloseCalendar['dueBusinessDay'] {
  const due = { ...calendar.dueBusinessDay };
  for (const value of values ?? []) {
    const [step, day] = value.split('=');
    if (!step || !(CHECKLIST_STEPS as readonly string[]).includes(step) || !/^\d+$/.test(day ?? ''))
      throw new UsageError(`--due takes STEP=N, a step (${CHECKLIST_STEPS.join(', ')}) and its business day; not ${value}`);
    due[step as ChecklistStepId] = Number(day);
  }
  return due;
}

/** A calendar field as the options give it: "holiday x" (--holidays), "--due fetched". */
function calendarField([field, key]: PropertyKey[], holidays: string[]): string {
  return field === 'holidays' ? `holiday ${JSON.stringify(holidays[Number(key)] ?? '')}` : `--due ${String(key)}`;
}

async function calendarCommand(
  context: CliContext,
  ids: string[],
  values: { json: boolean; holidays?: string | undefined; due?: string[] | undefined },
): Promise<number> {
  if (ids.length) throw new UsageError('Usage: reports calendar [--holidays 2026-12-24,2026-12-25,…] [--due STEP=N]… [--json]');
  const close = context.service.close;
  let calendar = await close.calendar();
  if (values.holidays !== undefined || values.due) {
    const holidays =
      values.holidays === undefined
        ? calendar.holidays
        : values.holidays
            .split(',')
            .map((day) => day.trim())
            .filter(Boolean);
    const wanted = CloseCalendar.safeParse({ dueBusinessDay: dueDays(values.due, calendar), holidays });
    if (!wanted.success)
      throw new UsageError(
        `The calendar is not usable: ${wanted.error.issues.map((issue) => `${calendarField(issue.path, holidays)} ${issue.message}`).join('; ')}.`,
      );
    calendar = await close.calendar(wanted.data);
  }
  if (values.json) process.stdout.write(`${JSON.stringify(calendar, null, 2)}\n`);
  else {
    for (const step of CHECKLIST_STEPS) process.stdout.write(`${step.padEnd(12)} business day ${calendar.dueBusinessDay[step]}\n`);
    process.stdout.write(`holidays     ${calendar.holidays.join(', ') || 'none'}\n`);
  }
  return EXIT.ok;
}

export async function closeCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parse(rest, {
    out: { type: 'string' },
    'fail-on': { type: 'string' },
    note: { type: 'string' },
    reason: { type: 'string' },
    resolve: { type: 'boolean', default: false },
    holidays: { type: 'string' },
    due: { type: 'string', multiple: true },
  });
  return withContext(values['data-dir'], async (context) => {
    try {
      if (action === 'compare') return await compareCommand(context, positionals, values);
      if (action === 'check') return await checkCommand(context, positionals, values);
      if (action === 'prepare' || action === 'approve') return await stepCommand(context, positionals, action);
      if (action === 'reopen') return await reopenCommand(context, positionals, values);
      if (action === 'log') return await logCommand(context, positionals, values);
      if (action === 'evidence') return await evidenceCommand(context, positionals, values);
      if (action === 'checklist') return await checklistCommand(context, positionals, values);
      if (action === 'calendar') return await calendarCommand(context, positionals, values);
      return await acceptCommand(context, positionals, values);
    } catch (error) {
      // A report deleted between the listing and the work is as unknown as one never saved.
      if (error instanceof AppError && error.code === 'not-found') throw new UsageError(error.message);
      throw error;
    }
  });
}
