import { create } from 'zustand';
import type { ChannelOutput } from '@shared/contract';
import { filterIdentity, type ReportFilter } from '@shared/report-filter';
import { call } from '@renderer/bridge';
import { useAppStore } from '@renderer/stores/app-store';
import { type LatestAnswer, useLatestAnswer } from '@renderer/hooks/use-latest-answer';
import type { InvoiceSort } from './invoicing-table';

export type Invoicing = ChannelOutput<'reports:invoicing'>;

// The last answer only: the view and its printout share it (a report may have 20,000 organizations; one copy is enough).
let last: { key: string; answer: Promise<Invoicing> } | null = null;
// Profiles changed (one's name order, which sorts its months' rows): the kept answer may be in the order of before.
useAppStore.subscribe((state, previous) => {
  if (state.profiles !== previous.profiles) last = null;
});

/** The Invoicing rows and totals of a report for a filter; asked once and shared by the view and the printout. */
export function loadInvoicing(reportId: string, filter: ReportFilter): Promise<Invoicing> {
  const key = `${reportId}|${filterIdentity(filter)}`;
  if (last?.key === key) return last.answer;
  const answer = call('reports:invoicing', { reportId, filter });
  const entry = { key, answer };
  last = entry;
  // A failure is not kept: asking again asks the main process again.
  answer.catch(() => {
    if (last === entry) last = null;
  });
  return answer;
}

/** The Invoicing answer for `filter`; an answer for an older filter is dropped, and never shown as if it were this one's. */
export function useInvoicing(reportId: string, filter: ReportFilter): LatestAnswer<Invoicing> {
  return useLatestAnswer(JSON.stringify([reportId, filter]), () => loadInvoicing(reportId, filter));
}

/** The Invoicing view's order, which the printout follows too. */
export const useInvoiceSort = create<{ sort: InvoiceSort; sortBy(key: InvoiceSort['key']): void }>((set) => ({
  sort: { key: 'organization', direction: 'asc' },
  sortBy: (key) =>
    set(({ sort }) => ({
      // Names read best A→Z; amounts and counts biggest first.
      sort:
        sort.key === key
          ? { key, direction: sort.direction === 'asc' ? 'desc' : 'asc' }
          : { key, direction: ['amount', 'cost', 'margin', 'lines', 'flags'].includes(key) ? 'desc' : 'asc' },
    })),
}));
