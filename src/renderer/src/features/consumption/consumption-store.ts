import { create } from 'zustand';
import { emptyRow } from '../../../../shared/consumption-rows';
import type { ConsumptionField, InputRow, ParsedFile, Submission, SubmissionSummary } from '../../../../shared/schemas/consumption';
import { call, errorMessage, RequestError } from '../../bridge';

interface Batch {
  fileName: string;
  sheets: string[];
  sheet: string | null;
  rows: InputRow[];
  fileProblems: string[];
  ignoredColumns: string[];
  /** The file's bytes, kept to re-read another sheet. */
  base64: string | null;
}

interface ConsumptionState {
  batch: Batch | null;
  submission: Submission | null;
  history: SubmissionSummary[];
  failure: string | null;
  /** A repeat the service may already have: the message, until the user confirms or edits. */
  repeatWarning: string | null;
  busy: boolean;
  load(fileName: string, base64: string, sheet?: string): Promise<void>;
  newBatch(): void;
  setCell(row: number, field: ConsumptionField, value: string): void;
  removeRow(row: number): void;
  addRow(): void;
  submit(profileId: string, confirmRepeat?: boolean): Promise<void>;
  refreshHistory(): Promise<void>;
  showSubmission(submissionId: string): Promise<void>;
  applyProgress(summary: SubmissionSummary): void;
}

function batchFrom(parsed: ParsedFile, base64: string | null): Batch {
  return { fileName: parsed.fileName, sheets: parsed.sheets, sheet: parsed.sheet, rows: parsed.rows, fileProblems: parsed.problems, ignoredColumns: parsed.ignoredColumns, base64 };
}

/** The batch being prepared (UI state) and the submission being watched; the data itself lives in the main process. */
export const useConsumption = create<ConsumptionState>((set, get) => ({
  batch: null,
  submission: null,
  history: [],
  failure: null,
  repeatWarning: null,
  busy: false,
  load: async (fileName, base64, sheet) => {
    set({ failure: null, repeatWarning: null, busy: true });
    try {
      const parsed = await call('consumption:parse', { fileName, base64, ...(sheet ? { sheet } : {}) });
      set({ batch: batchFrom(parsed, base64), submission: null });
    } catch (error) {
      set({ failure: errorMessage(error) });
    } finally {
      set({ busy: false });
    }
  },
  newBatch: () => set({ batch: { fileName: 'typed rows', sheets: [], sheet: null, rows: [emptyRow(1)], fileProblems: [], ignoredColumns: [], base64: null }, submission: null, repeatWarning: null, failure: null }),
  setCell: (row, field, value) =>
    set((state) => (state.batch ? { repeatWarning: null, batch: { ...state.batch, rows: state.batch.rows.map((candidate) => (candidate.row === row ? { ...candidate, [field]: value } : candidate)) } } : {})),
  removeRow: (row) => set((state) => (state.batch ? { repeatWarning: null, batch: { ...state.batch, rows: state.batch.rows.filter((candidate) => candidate.row !== row) } } : {})),
  addRow: () =>
    set((state) => {
      if (!state.batch) return {};
      const next = Math.max(1, ...state.batch.rows.map((row) => row.row)) + 1;
      return { batch: { ...state.batch, rows: [...state.batch.rows, emptyRow(next)] } };
    }),
  submit: async (profileId, confirmRepeat) => {
    const { batch } = get();
    if (!batch) return;
    set({ busy: true, failure: null, repeatWarning: null });
    try {
      const submission = await call('consumption:submit', { profileId, fileName: batch.fileName, rows: batch.rows, ...(confirmRepeat ? { confirmRepeat } : {}) });
      set({ submission });
      void get().refreshHistory();
    } catch (error) {
      if (error instanceof RequestError && error.code === 'conflict') set({ repeatWarning: error.message });
      else set({ failure: errorMessage(error) });
    } finally {
      set({ busy: false });
    }
  },
  refreshHistory: async () => {
    try {
      set({ history: await call('consumption:history', {}) });
    } catch (error) {
      set({ failure: errorMessage(error) });
    }
  },
  showSubmission: async (submissionId) => {
    try {
      const submission = await call('consumption:get', { submissionId });
      set({ submission, batch: { fileName: submission.fileName, sheets: [], sheet: null, rows: submission.rows, fileProblems: [], ignoredColumns: [], base64: null } });
    } catch (error) {
      set({ failure: errorMessage(error) });
    }
  },
  applyProgress: (summary) => {
    const current = get().submission;
    if (current?.id === summary.id) {
      if (summary.state === 'Failed' || summary.state === 'Successful') void call('consumption:get', { submissionId: summary.id }).then((submission) => set({ submission }));
      else set({ submission: { ...current, ...summary } });
    }
    set((state) => ({ history: [summary, ...state.history.filter((item) => item.id !== summary.id)].sort((a, b) => b.createdAt.localeCompare(a.createdAt)) }));
  },
}));
