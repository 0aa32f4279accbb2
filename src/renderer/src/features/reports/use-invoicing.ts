import { useCallback, useEffect, useState } from 'react';
import { create } from 'zustand';
import type { ChannelOutput } from '@shared/contract';
import type { ReportFilter } from '@shared/report-filter';
import { call, errorMessage } from '@renderer/bridge';
import type { InvoiceSort } from './invoicing-table';

export type Invoicing = ChannelOutput<'reports:invoicing'>;

// The last answer only: the view and its printout share it (a report may have 20,000 organizations; one copy is enough).
let last: { key: string; answer: Promise<Invoicing> } | null = null;

/** The Invoicing rows and totals of a report for a filter; asked once and shared by the view and the printout. */
export function loadInvoicing(reportId: string, filter: ReportFilter): Promise<Invoicing> {
  const key = JSON.stringify([reportId, filter]);
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

export interface InvoicingState {
  data: Invoicing | null;
  error: string | null;
  retry(): void;
}

/** The Invoicing answer for `filter`; an answer for an older filter is dropped. */
export function useInvoicing(reportId: string, filter: ReportFilter): InvoicingState {
  const [state, setState] = useState<{ key: string; data: Invoicing | null; error: string | null }>({ key: '', data: null, error: null });
  const [attempt, setAttempt] = useState(0);
  const filterKey = JSON.stringify(filter);
  const key = `${reportId}\n${filterKey}`;
  useEffect(() => {
    let current = true;
    loadInvoicing(reportId, JSON.parse(filterKey) as ReportFilter).then(
      (data) => current && setState({ key, data, error: null }),
      (failure: unknown) => current && setState({ key, data: null, error: errorMessage(failure) }),
    );
    return () => {
      current = false;
    };
  }, [reportId, filterKey, key, attempt]);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  // Until the answer for this filter arrives, the rows of the last one are not shown as if they were its.
  return state.key === key ? { data: state.data, error: state.error, retry } : { data: null, error: null, retry };
}

/** The Invoicing view's order, which the printout follows too. */
export const useInvoiceSort = create<{ sort: InvoiceSort; sortBy(key: InvoiceSort['key']): void }>((set) => ({
  sort: { key: 'organization', direction: 'asc' },
  sortBy: (key) =>
    set(({ sort }) => ({
      // Names read best A→Z; amounts and counts biggest first.
      sort: sort.key === key ? { key, direction: sort.direction === 'asc' ? 'desc' : 'asc' } : { key, direction: ['amount', 'cost', 'margin', 'lines', 'flags'].includes(key) ? 'desc' : 'asc' },
    })),
}));
