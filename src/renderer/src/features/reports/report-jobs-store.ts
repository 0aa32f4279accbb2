import { create } from 'zustand';
import type { ReportJob } from '@shared/schemas/saved-report';
import { call } from '@renderer/bridge';

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
}

/** Report requests in flight, kept live by the main process's progress events. */
export const useReportJobs = create<ReportJobsState>((set) => ({
  jobs: [],
  savedVersion: 0,
  lastReady: null,
  load: async () => set({ jobs: await call('reports:jobs', {}) }),
  closeStateChanged: () => set((state) => ({ savedVersion: state.savedVersion + 1 })),
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
