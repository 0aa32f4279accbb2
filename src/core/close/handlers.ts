import type { ServiceHandlers } from '@shared/contract';
import { AppError } from '@shared/errors';
import {
  type Checklist,
  type CloseCalendar,
  type CloseLog,
  CHANGES_PER_WINDOW,
  MAX_REVIEWS_AT_ONCE,
  type MonthCloseView,
  type MonthComparison as ShownComparison,
} from '@shared/schemas/month-close';
import type { Ledger, LedgerTransaction } from '../ledger/ledger';
import type { Ports } from '../ports/ports';
import type { ConsumptionHistory } from './billing-checks';
import { exportComparisonWorkbook, monthLabel } from './close-workbook';
import { writeEvidencePdf } from './evidence-pdf';
import { type CloseStamp, closeStamp } from './close-stamp';
import { deliverFile } from '../storage/files';
import { CalendarFile } from './calendar';
import { MonthClose } from './month-close';
import { changeWindow, compareMonths, type MonthComparison } from './month-compare';
import { type IdentityPort, workstationIdentity } from '../ports/identity';
import type { CloseRecordPort, InvoiceStep } from './close-record';
import { monthOf, monthRef, monthsOf, previousMonth } from './months';
import { profileOfReport, reportNames } from './queries/months';
import { signedReports } from './queries/sign-offs';
import { importRates, ratesView, setRates } from './rates';
import { ThresholdStore } from './thresholds';
import { trendScopes, trendsOf } from './trends';
import { BackgroundWork } from '../runtime/background-work';
import { errorMessage } from '@shared/error-message';

type CloseHandlers = Pick<
  ServiceHandlers,
  | 'close:state'
  | 'close:review'
  | 'close:prepare'
  | 'close:approve'
  | 'close:reopen'
  | 'close:log'
  | 'close:checklist'
  | 'close:calendar'
  | 'close:evidence'
  | 'close:compare'
  | 'close:changes'
  | 'close:months'
  | 'close:fetch-states'
  | 'close:thresholds'
  | 'close:trend-scopes'
  | 'close:trends'
  | 'close:rates'
  | 'close:set-rates'
  | 'close:import-rates'
>;

/** What hosts may do beyond the contract: the CLI's `reports compare` and `reports check`, with every change and exception. */
export interface CloseApi {
  /** `afterId` compared with `beforeId`; with one id, that month with the month before it. */
  compare(beforeId: string, afterId: string | null): Promise<MonthComparison>;
  /** The month before a report's (same service and reseller), or null. */
  previousOf(reportId: string): Promise<string | null>;
  check(reportId: string): Promise<MonthCloseView>;
  /** Gives each exception the same review (in parts of MAX_REVIEWS_AT_ONCE); the month as it is afterwards. */
  review(reportId: string, exceptionIds: readonly string[], state: 'open' | 'accepted' | 'resolved', note: string): Promise<MonthCloseView>;
  prepare(reportId: string): Promise<MonthCloseView>;
  approve(reportId: string): Promise<MonthCloseView>;
  reopen(reportId: string, reason: string): Promise<MonthCloseView>;
  log(reportId: string): Promise<CloseLog>;
  checklist(reportId: string): Promise<Checklist>;
  /** The close calendar; with `calendar`, replaces it. */
  calendar(calendar?: CloseCalendar): Promise<CloseCalendar>;
  /** Writes the month's evidence pack (one PDF) to `path`. */
  evidence(reportId: string, path: string): Promise<{ pages: number }>;
  /** Writes a comparison (from `compare`) to `path` as a workbook: the Changes sheet and an About naming both months. */
  exportComparison(comparison: MonthComparison, path: string): Promise<{ changes: number }>;
}

export interface CloseModule {
  handlers: CloseHandlers;
  api: CloseApi;
  /**
   * Checks a freshly saved month ahead of the user, in the background: its checks, then its comparison with the month
   * before, are made and kept, so the Close screen and its Compare panel open on them at once. A failure is logged,
   * never thrown: the screen makes them itself when opened.
   */
  checkAhead(reportId: string): void;
  /** Waits for the checks made ahead that are under way (the ledger may close only after them). */
  settled(): Promise<void>;
  /**
   * Inside the transaction that deletes a saved report: refuses when a sign-off in force stands on it, and logs the
   * deletion of a draft fetch in its month's log.
   */
  guardDeletion(transaction: LedgerTransaction, reportId: string, details: string): Promise<void>;
  /** Logs that a month's invoices were exported (`what`: the file), for its checklist; a failure is logged, not thrown. */
  recordExport(reportId: string, what: string): Promise<void>;
  /**
   * The month's close state of a fetch in words (DRAFT, PREPARED, APPROVED with who and when), for every file made of
   * it; with the content hash of its signed lines when they are this fetch's and still match it (hashed again now).
   */
  stampOf(reportId: string): Promise<CloseStamp & { signedContentHash: string | null }>;
  /** Logs a step of the month's invoicing (an adjustment, the approval of adjustments) in the record in force. */
  invoiceStep(reportId: string, step: InvoiceStep): Promise<void>;
}

/**
 * Closing a month: compare with last month, billing checks, their review, and the sign-off. `consumption` is the
 * consumption history, for the rule that compares billed quantities with what Closebook submitted; `team`, the team
 * ledger's record of the close and who is signed in there, while one is connected.
 */
export function createClose(
  ports: Ports,
  ledger: () => Promise<Ledger>,
  consumption: ConsumptionHistory | null = null,
  team?: { record: CloseRecordPort; identity: IdentityPort },
): CloseModule {
  const now = () => new Date(ports.clock.now()).toISOString();
  const close = new MonthClose(
    ledger,
    consumption,
    team?.identity ?? ports.identity ?? workstationIdentity,
    now,
    team?.record,
    new CalendarFile(ports.dataDir),
  );
  const thresholds = new ThresholdStore(ports.dataDir);
  const profileOf = async (reportId: string) => profileOfReport(await ledger(), reportId);
  /**
   * The team's thresholds with a team ledger, else those of the report's profile (a Prepared or Approved month is
   * read with its own, see MonthClose).
   */
  const limitsOf = async (reportId: string) => (await close.teamThresholds()) ?? thresholds.get(await profileOf(reportId));
  const view = async (reportId: string): Promise<MonthCloseView> => close.state(reportId, await limitsOf(reportId));
  const evidence = async (reportId: string, path: string) => {
    const opened = await ledger();
    const month = await monthOf(opened, reportId);
    const state = await view(reportId);
    const [log, label, rates] = [await close.log(reportId), await monthLabel(opened, reportId), await (await close.ratesStore()).rates(month)];
    const previousLabel = state.previousReportId ? await monthLabel(opened, state.previousReportId) : null;
    const previous =
      state.previousReportId && previousLabel
        ? { label: previousLabel, bridges: (await compareMonths(opened, state.previousReportId, reportId)).bridges }
        : null;
    if (!label) throw new AppError('not-found', 'That saved report no longer exists.');
    return writeEvidencePdf(opened.outputs, path, {
      reportId,
      month,
      label,
      view: state,
      log,
      previous,
      rates,
      appVersion: ports.appVersion,
      madeAt: new Date(ports.clock.now()),
    });
  };
  const pairOf = async (beforeId: string, afterId: string | null) => {
    const opened = await ledger();
    const after = afterId ?? beforeId;
    const before = afterId ? beforeId : (await previousMonth(opened, await monthOf(opened, after)))?.reportId;
    if (!before) throw new AppError('not-found', 'There is no earlier month of this service in the ledger to compare with. Fetch or import last month first.');
    await monthOf(opened, before); // both exist
    return { before, after };
  };
  const compare = async (beforeId: string, afterId: string | null) => {
    const { before, after } = await pairOf(beforeId, afterId);
    return compareMonths(await ledger(), before, after);
  };

  const handlers: CloseHandlers = {
    'close:state': async ({ reportId }) => {
      const state = await view(reportId);
      // The Compare panel is what the screen offers next: its comparison is made now, in the background.
      if (state.previousReportId) compareAhead(state.previousReportId, reportId);
      return state;
    },
    'close:review': async ({ reportId, exceptionIds, state, note }) => {
      await close.setReview(reportId, exceptionIds, state, note, await limitsOf(reportId));
      return view(reportId);
    },
    'close:prepare': async ({ reportId }) => {
      await close.prepare(reportId, await limitsOf(reportId));
      return view(reportId);
    },
    'close:approve': async ({ reportId }) => {
      await close.approve(reportId, await limitsOf(reportId));
      return view(reportId);
    },
    'close:reopen': async ({ reportId, reason }) => {
      await close.reopen(reportId, reason);
      return view(reportId);
    },
    'close:log': async ({ reportId }) => close.log(reportId),
    'close:checklist': async ({ reportId }) => close.checklist(reportId, await limitsOf(reportId)),
    'close:calendar': async ({ calendar }) => (calendar ? close.setCalendar(calendar) : close.calendar()),
    'close:evidence': async ({ reportId }) => {
      const label = await monthLabel(await ledger(), reportId);
      const name = `${label?.name ?? 'Month'} evidence`;
      return deliverFile(ports, `${name}.pdf`, 'pdf', (path) => evidence(reportId, path));
    },
    // The comparison is kept in the ledger (made by the first ask): the panel shows the first window of its changes at
    // once, and reads the others in the view it shows (close:changes) as they come into view.
    'close:compare': async ({ beforeId, afterId }): Promise<ShownComparison> => {
      const comparison = await compare(beforeId, afterId);
      const { beforeId: before, afterId: after, bridges, changeCount, kinds } = comparison;
      return { beforeId: before, afterId: after, bridges, changeCount, kinds, changes: await comparison.changes(0, CHANGES_PER_WINDOW) };
    },
    'close:changes': async (asked) => changeWindow(await ledger(), asked),
    'close:fetch-states': () => close.fetchStates(),
    'close:months': async ({ reportId }) => {
      const opened = await ledger();
      const months = await monthsOf(opened, await monthOf(opened, reportId));
      const signed = await signedReports(opened);
      const names = await reportNames(opened);
      return months.map((month) => ({
        reportId: month.reportId,
        name: names.get(month.reportId) ?? '',
        period: { startDate: month.startDate, endDate: month.endDate },
        fetchedAt: month.fetchedAt,
        state: signed.get(month.reportId) ?? ('draft' as const),
      }));
    },
    // With a team ledger the thresholds are the team's, whichever profile asks; else each profile's.
    'close:thresholds': async ({ profileId, thresholds: wanted }) => {
      if (await close.teamConnected()) return wanted ? close.setTeamThresholds(wanted) : ((await close.teamThresholds()) ?? thresholds.get(profileId));
      return wanted ? thresholds.set(profileId, wanted) : thresholds.get(profileId);
    },
    'close:trend-scopes': async ({ reportId }) => trendScopes(await ledger(), reportId),
    'close:trends': async ({ reportId, scope }) => trendsOf(await ledger(), reportId, scope),
    'close:rates': async ({ reportId }) => ratesView(await ledger(), await close.ratesStore(), reportId),
    'close:set-rates': async ({ reportId, referenceCurrency, rates }) => setRates(await ledger(), await close.ratesStore(), reportId, referenceCurrency, rates),
    'close:import-rates': async ({ reportId, referenceCurrency, csv }) =>
      importRates(await ledger(), await close.ratesStore(), reportId, referenceCurrency, csv),
  };
  const api: CloseApi = {
    compare,
    previousOf: async (reportId) => {
      const opened = await ledger();
      return (await previousMonth(opened, await monthOf(opened, reportId)))?.reportId ?? null;
    },
    check: view,
    review: async (reportId, exceptionIds, state, note) => {
      let view: MonthCloseView | undefined;
      for (let at = 0; at < exceptionIds.length; at += MAX_REVIEWS_AT_ONCE)
        view = await handlers['close:review']({ reportId, exceptionIds: exceptionIds.slice(at, at + MAX_REVIEWS_AT_ONCE), state, note });
      if (!view) throw new AppError('validation', 'Name at least one exception to review.');
      return view;
    },
    prepare: (reportId) => handlers['close:prepare']({ reportId }),
    approve: (reportId) => handlers['close:approve']({ reportId }),
    reopen: (reportId, reason) => handlers['close:reopen']({ reportId, reason }),
    log: (reportId) => close.log(reportId),
    checklist: (reportId) => handlers['close:checklist']({ reportId }),
    calendar: (calendar) => handlers['close:calendar'](calendar ? { calendar } : {}),
    evidence,
    exportComparison: async (comparison, path) => {
      const opened = await ledger();
      return exportComparisonWorkbook(opened.outputs, comparison, path, {
        before: await monthLabel(opened, comparison.beforeId),
        after: await monthLabel(opened, comparison.afterId),
        appVersion: ports.appVersion,
        exportedAt: new Date(ports.clock.now()),
      });
    },
  };
  const checking = new BackgroundWork();
  /**
   * Compares a month with the month before in the background when its Close screen opens (made once and kept; a
   * Compare clicked meanwhile waits for the same one): a month fetched before the app started has none made ahead.
   */
  const compareAhead = (beforeId: string, afterId: string) =>
    checking.add(
      ledger()
        .then((opened) => compareMonths(opened, beforeId, afterId))
        .catch((error: unknown) => ports.log.warn('the months could not be compared ahead', { afterId, error: errorMessage(error) })),
    );
  const checkAhead = (reportId: string) => {
    const started = ports.clock.now();
    // The checks first (they find what they need without a comparison), then the comparison the Compare panel shows.
    const checkedAndCompared = view(reportId).then(async (state) => {
      if (state.previousReportId) await compareMonths(await ledger(), state.previousReportId, reportId);
      return state;
    });
    const checked = checkedAndCompared.then(
      (state) => ports.log.info('month checked ahead', { reportId, exceptions: state.exceptions.length, ms: ports.clock.now() - started }),
      (error: unknown) => ports.log.warn('the month could not be checked ahead', { reportId, error: errorMessage(error) }),
    );
    checking.add(checked);
  };
  const guardDeletion = async (transaction: LedgerTransaction, reportId: string, details: string) => {
    const month = await monthRef(transaction, reportId);
    if (month) await close.guardDeletion(transaction, month, reportId, details);
  };
  const stampOf = async (reportId: string) => {
    const state = await view(reportId);
    const signed = state.signOff?.reportId === reportId && !state.integrity.contentChanged ? state.signOff.contentHash : null;
    return { ...closeStamp(state, reportId, undefined), signedContentHash: signed };
  };
  const recordExport = (reportId: string, what: string) =>
    close
      .recordExport(reportId, what)
      .catch((error: unknown) => ports.log.warn('the export could not be logged in the month', { reportId, error: errorMessage(error) }));
  const invoiceStep = (reportId: string, step: InvoiceStep) => close.invoiceStep(reportId, step);
  return { handlers, api, checkAhead, settled: () => checking.settled(), guardDeletion, stampOf, recordExport, invoiceStep };
}
