import { create } from 'zustand';
import type { ReportPeriod } from '@shared/schemas/billing-report';
import type { ReportJob } from '@shared/schemas/saved-report';
import { bridge, call } from '@renderer/bridge';

interface ReportJobsState {
  /** Requests not yet saved, as the main process last told (each progress event is the whole job). */
  jobs: ReportJob[];
  /** Bumped when a report is saved or a month's close state changes, so the saved list reloads. */
  savedVersion: number;
  lastReady: ReportJob | null;
  load(): Promise<void>;
  apply(job: ReportJob): void;
  /** A month was prepared, approved or reopened: the saved list shows each fetch's state again. */
  closeStateChanged(): void;
  /** The request whose report the Reports screen opens as soon as it is saved (the first start's next step). */
  openWhenReady: string | null;
  /** Requests a period's report; its job is followed here from the answer on. */
  request(profileId: string, period: ReportPeriod): Promise<ReportJob>;
  /** Requests a month and has the Reports screen open it once saved. */
  requestAndOpen(profileId: string, period: ReportPeriod): Promise<void>;
  /** The report of `openWhenReady` was opened. */
  opened(): void;
}

/** Report requests in flight, kept live by the main process's progress events. */
export const useReportJobs = create<ReportJobsState>((set, get) => ({
  jobs: [],
  savedVersion: 0,
  lastReady: null,
  load: async () => set({ jobs: await call('reports:jobs', {}) }),
  closeStateChanged: () => set((state) => ({ savedVersion: state.savedVersion + 1 })),
  openWhenReady: null,
  request: async (profileId, period) => {
    const job = await call('reports:request', { profileId, period });
    get().apply(job);
    return job;
  },
  requestAndOpen: async (profileId, period) => {
    const job = await get().request(profileId, period);
    set({ openWhenReady: job.id });
    // Followed here too: the request may end before the Reports screen listens (its list is read afresh when it opens).
    const stop = bridge.on('report:progress', (next) => {
      if (next.id !== job.id || !['done', 'failed', 'cancelled'].includes(next.state)) return;
      stop();
      if (next.state === 'done') set({ lastReady: next });
    });
  },
  opened: () => set({ openWhenReady: null }),
  apply: (job) => {
    if (job.state === 'done' || job.state === 'cancelled') {
      set((state) => ({ jobs: state.jobs.filter((candidate) => candidate.id !== job.id) }));
      if (job.state === 'done') set((state) => ({ savedVersion: state.savedVersion + 1, lastReady: job }));
      return;
    }
    set((state) => {
      const known = state.jobs.some((candidate) => candidate.id === job.id);
      return { jobs: known ? state.jobs.map((candidate) => (candidate.id === job.id ? job : candidate)) : [...state.jobs, job] };
    });
  },
}));
