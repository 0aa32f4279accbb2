import { create } from 'zustand';
import type { ReportJob, ReportProgress } from '../../../../shared/schemas/saved-report';
import { call } from '../../bridge';

interface ReportJobsState {
  jobs: ReportJob[];
  progress: Record<string, ReportProgress>;
  /** Bumped when a report is saved, so the saved list reloads. */
  savedVersion: number;
  lastReady: ReportProgress | null;
  load(): Promise<void>;
  apply(progress: ReportProgress): void;
}

/** Report requests in flight, kept live by the main process's progress events. */
export const useReportJobs = create<ReportJobsState>((set, get) => ({
  jobs: [],
  progress: {},
  savedVersion: 0,
  lastReady: null,
  load: async () => set({ jobs: await call('reports:jobs', {}) }),
  apply: (progress) => {
    set((state) => ({ progress: { ...state.progress, [progress.jobId]: progress } }));
    if (['done', 'cancelled'].includes(progress.state)) {
      set((state) => ({ jobs: state.jobs.filter((job) => job.id !== progress.jobId) }));
      if (progress.state === 'done') set((state) => ({ savedVersion: state.savedVersion + 1, lastReady: progress }));
    } else if (!get().jobs.some((job) => job.id === progress.jobId)) {
      void get().load();
    }
  },
}));
