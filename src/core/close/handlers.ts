import type { ServiceHandlers } from '@shared/contract';
import { AppError } from '@shared/errors';
import {
  type CloseLog,
  MAX_CHANGES_SHOWN,
  MAX_REVIEWS_AT_ONCE,
  type MonthCloseView,
  type MonthComparison as ShownComparison,
} from '@shared/schemas/month-close';
import type { Ledger, LedgerTransaction } from '../ledger/ledger';
import type { Ports } from '../ports/ports';
import type { ConsumptionHistory } from './billing-checks';
import { exportComparisonWorkbook, monthLabel } from './close-workbook';
import { MonthClose } from './month-close';
import { compareMonths, type MonthComparison } from './month-compare';
import { workstationIdentity } from '../ports/identity';
import { monthOf, monthRef, monthsOf, previousMonth } from './months';
import { profileOfReport, reportNames } from './queries/months';
import { signedReports } from './queries/sign-offs';
import { importRates, ratesView, setRates } from './rates';
import { ThresholdStore } from './thresholds';
import { trendScopes, trendsOf } from './trends';

type CloseHandlers = Pick<
  ServiceHandlers,
  | 'close:state'
  | 'close:review'
  | 'close:prepare'
  | 'close:approve'
  | 'close:reopen'
  | 'close:log'
  | 'close:compare'
  | 'close:months'
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
  log(reportId: string): Promise<CloseLog>;
  /** Writes a comparison (from `compare`) to `path` as a workbook: the Changes sheet and an About naming both months. */
  exportComparison(comparison: MonthComparison, path: string): Promise<{ changes: number }>;
}

export interface CloseModule {
  handlers: CloseHandlers;
  api: CloseApi;
  /**
   * Closes a freshly saved month ahead of the user, in the background: its comparison with the month before and its
   * checks are made and kept, so the Close screen opens on them at once. A failure is logged, never thrown: the
   * screen makes them itself when opened.
   */
  prepare(reportId: string): void;
  /** Waits for the preparations under way (the ledger may close only after them). */
  settled(): Promise<void>;
  /**
   * Inside the transaction that deletes a saved report: refuses when a sign-off in force stands on it, and logs the
   * deletion of a draft fetch in its month's log.
   */
  guardDeletion(transaction: LedgerTransaction, reportId: string, details: string): Promise<void>;
}

/**
 * Closing a month: compare with last month, billing checks, their review, and the sign-off. `consumption` is the
 * consumption history, for the rule that compares billed quantities with what Closebook submitted.
 */
export function createClose(ports: Ports, ledger: () => Promise<Ledger>, consumption: ConsumptionHistory | null = null): CloseModule {
  const now = () => new Date(ports.clock.now()).toISOString();
  const close = new MonthClose(ledger, consumption, ports.identity ?? workstationIdentity, now);
  const thresholds = new ThresholdStore(ports.dataDir);
  const profileOf = async (reportId: string) => profileOfReport(await ledger(), reportId);
  const view = async (reportId: string): Promise<MonthCloseView> => {
    const limits = await thresholds.get(await profileOf(reportId));
    return close.state(reportId, limits);
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
    'close:state': ({ reportId }) => view(reportId),
    'close:review': async ({ reportId, exceptionIds, state, note }) => {
      await close.setReview(reportId, exceptionIds, state, note, await thresholds.get(await profileOf(reportId)));
      return view(reportId);
    },
    'close:prepare': async ({ reportId }) => {
      await close.prepare(reportId, await thresholds.get(await profileOf(reportId)));
      return view(reportId);
    },
    'close:approve': async ({ reportId }) => {
      await close.approve(reportId, await thresholds.get(await profileOf(reportId)));
      return view(reportId);
    },
    'close:reopen': async ({ reportId, reason }) => {
      await close.reopen(reportId, reason);
      return view(reportId);
    },
    'close:log': async ({ reportId }) => close.log(reportId),
    // The comparison is kept in the ledger (the checks made it already, as a rule): the panel shows its first changes.
    'close:compare': async ({ beforeId, afterId }): Promise<ShownComparison> => {
      const comparison = await compare(beforeId, afterId);
      const { beforeId: before, afterId: after, bridges, changeCount } = comparison;
      return { beforeId: before, afterId: after, bridges, changeCount, changes: await comparison.changes(0, MAX_CHANGES_SHOWN) };
    },
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
    'close:thresholds': async ({ profileId, thresholds: wanted }) => {
      return wanted ? thresholds.set(profileId, wanted) : thresholds.get(profileId);
    },
    'close:trend-scopes': async ({ reportId }) => trendScopes(await ledger(), reportId),
    'close:trends': async ({ reportId, scope }) => trendsOf(await ledger(), reportId, scope),
    'close:rates': async ({ reportId }) => ratesView(await ledger(), reportId),
    'close:set-rates': async ({ reportId, referenceCurrency, rates }) => setRates(await ledger(), reportId, referenceCurrency, rates),
    'close:import-rates': async ({ reportId, referenceCurrency, csv }) => importRates(await ledger(), reportId, referenceCurrency, csv),
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
    log: (reportId) => close.log(reportId),
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
  const preparing = new Set<Promise<unknown>>();
  const prepare = (reportId: string) => {
    const started = ports.clock.now();
    const prepared = view(reportId).then(
      (state) => ports.log.info('month close prepared', { reportId, exceptions: state.exceptions.length, ms: ports.clock.now() - started }),
      (error: unknown) => ports.log.warn('the month close could not be prepared', { reportId, error: error instanceof Error ? error.message : String(error) }),
    );
    preparing.add(prepared);
    void prepared.finally(() => preparing.delete(prepared));
  };
  const guardDeletion = async (transaction: LedgerTransaction, reportId: string, details: string) => {
    const month = await monthRef(transaction, reportId);
    if (month) await close.guardDeletion(transaction, month, reportId, details);
  };
  return { handlers, api, prepare, settled: async () => void (await Promise.allSettled([...preparing])), guardDeletion };
}
