import { create } from 'zustand';
import { lastUsageMonth, usagePeriod } from '@shared/consumption-batch';
import { emptyRow } from '@shared/consumption-rows';
import { isGuid } from '@shared/schemas/common';
import type { ConsumptionField, InputRow, ParsedFile, RowFailure, Submission, SubmissionSummary, SubscriptionName } from '@shared/schemas/consumption';
import { call, errorMessage, RequestError } from '@renderer/bridge';

/** The batch being prepared: the one editable batch (every batch from the history opens read-only). */
export interface Batch {
  fileName: string;
  sheets: string[];
  sheet: string | null;
  rows: InputRow[];
  /** The user's own columns, shown beside the rows (values in each row's `extra`); never sent. */
  extraColumns: string[];
  fileProblems: string[];
  ignoredColumns: string[];
  /** The file's bytes, kept to re-read another sheet. */
  base64: string | null;
  /** The month the usage is for, 'YYYY-MM'. */
  month: string;
  /** What the service refused in the batch this one was copied from, beside its rows until this one is sent. */
  copiedFailures: RowFailure[];
  /** Rows typed or fixed here and not sent since: replacing the batch asks first (a file can be read again, typing cannot). */
  edited: boolean;
}

/** A name looked up for a subscription id (lower case): found, or null when no saved report of the profile has it. */
export type NameLookup = Record<string, SubscriptionName | null>;

interface ConsumptionState {
  batch: Batch | null;
  /** The last submission of the batch being prepared, watched live. */
  submission: Submission | null;
  /** A batch from the history, open read-only. */
  opened: Submission | null;
  history: SubmissionSummary[];
  failure: string | null;
  /** A repeat the service may already have: the message, until the user says "Send again" or "Don't send", or edits. */
  repeatWarning: string | null;
  /** What the last choice did, when nothing shows it otherwise ("Don't send"). */
  notice: string | null;
  busy: boolean;
  names: NameLookup;
  /** The profile the names were looked up for (another profile's reports name other things). */
  namesProfileId: string | null;
  /** How many saved reports that profile has; null until asked. */
  savedReports: number | null;
  namesError: string | null;
  load(fileName: string, base64: string, sheet?: string): Promise<void>;
  newBatch(): void;
  setCell(row: number, field: ConsumptionField, value: string): void;
  setMonth(month: string): void;
  removeRow(row: number): void;
  addRow(): void;
  submit(profileId: string, confirmRepeat?: boolean): Promise<void>;
  dontSend(): void;
  refreshHistory(): Promise<void>;
  openPast(submissionId: string): Promise<void>;
  closePast(): void;
  copyToNewBatch(): void;
  /** A new batch (for the month a new one starts with) with the subscriptions and add-ons of `from`, a past batch: quantities left to fill in. */
  startFrom(from: SubmissionSummary): Promise<void>;
  applyProgress(summary: SubmissionSummary): void;
  lookUpNames(profileId: string, subscriptionIds: string[]): Promise<void>;
  forgetNames(): void;
}

function draft(fields: Pick<Batch, 'fileName' | 'rows'> & Partial<Batch>): Batch {
  return {
    sheets: [],
    sheet: null,
    extraColumns: [],
    fileProblems: [],
    ignoredColumns: [],
    base64: null,
    month: lastUsageMonth(new Date()),
    copiedFailures: [],
    edited: false,
    ...fields,
  };
}

function batchFrom(parsed: ParsedFile, base64: string, month?: string): Batch {
  return draft({
    fileName: parsed.fileName,
    sheets: parsed.sheets,
    sheet: parsed.sheet,
    rows: parsed.rows,
    extraColumns: parsed.extraColumns,
    fileProblems: parsed.problems,
    ignoredColumns: parsed.ignoredColumns,
    base64,
    ...(month ? { month } : {}),
  });
}

/** Ids being looked up now, so a lookup started while another runs asks only for what is new. */
const asking = new Set<string>();

/** The batch being prepared (UI state), the submission watched, a past batch open; the data itself lives in the main process. */
export const useConsumption = create<ConsumptionState>((set, get) => {
  /** Changes the rows of the batch being prepared, never while its task runs (the grid is locked then too). */
  const editRows = (change: (rows: InputRow[]) => InputRow[]) =>
    set((state) => (state.batch ? { repeatWarning: null, notice: null, batch: { ...state.batch, rows: change(state.batch.rows), edited: true } } : {}));

  return {
    batch: null,
    submission: null,
    opened: null,
    history: [],
    failure: null,
    repeatWarning: null,
    notice: null,
    busy: false,
    names: {},
    namesProfileId: null,
    savedReports: null,
    namesError: null,
    load: async (fileName, base64, sheet) => {
      set({ failure: null, repeatWarning: null, busy: true });
      try {
        const parsed = await call('consumption:parse', { fileName, base64, ...(sheet ? { sheet } : {}) });
        // Another sheet of the same file keeps the month chosen for it.
        set((state) => ({ batch: batchFrom(parsed, base64, sheet ? state.batch?.month : undefined), submission: null, opened: null }));
      } catch (error) {
        set({ failure: errorMessage(error) });
      } finally {
        set({ busy: false });
      }
    },
    newBatch: () => set({ batch: draft({ fileName: 'typed rows', rows: [emptyRow(1)] }), submission: null, opened: null, repeatWarning: null, failure: null }),
    setCell: (row, field, value) => editRows((rows) => rows.map((candidate) => (candidate.row === row ? { ...candidate, [field]: value } : candidate))),
    setMonth: (month) => set((state) => (state.batch ? { repeatWarning: null, batch: { ...state.batch, month } } : {})),
    removeRow: (row) => editRows((rows) => rows.filter((candidate) => candidate.row !== row)),
    addRow: () => editRows((rows) => [...rows, emptyRow(Math.max(1, ...rows.map((row) => row.row)) + 1)]),
    submit: async (profileId, confirmRepeat) => {
      const { batch } = get();
      const period = batch ? usagePeriod(batch.month) : undefined;
      if (!batch || !period) return;
      set({ busy: true, failure: null, repeatWarning: null, notice: null });
      try {
        const submission = await call('consumption:submit', {
          profileId,
          fileName: batch.fileName,
          rows: batch.rows,
          period,
          ...(batch.extraColumns.length ? { extraColumns: batch.extraColumns } : {}),
          ...(confirmRepeat ? { confirmRepeat } : {}),
        });
        // Rows changed while it was sent stay changes not sent.
        set((state) => ({ submission, batch: state.batch ? { ...state.batch, copiedFailures: [], edited: state.batch.rows !== batch.rows } : null }));
        void get().refreshHistory();
      } catch (error) {
        if (error instanceof RequestError && error.code === 'conflict') set({ repeatWarning: error.message });
        else set({ failure: errorMessage(error) });
      } finally {
        set({ busy: false });
      }
    },
    dontSend: () => set({ repeatWarning: null, notice: 'Nothing was sent. The batch is as you left it.' }),
    refreshHistory: async () => {
      try {
        const history = await call('consumption:history', {});
        set({ history });
        // A batch on screen may have moved on while the screen was closed (its progress reaches the screen only while
        // it is open): one the history shows changed is read again whole, so a finished task no longer locks it.
        for (const key of ['submission', 'opened'] as const) {
          const shown = get()[key];
          const listed = shown && history.find((item) => item.id === shown.id);
          if (!shown || !listed || listed.updatedAt === shown.updatedAt) continue;
          const whole = await call('consumption:get', { submissionId: shown.id });
          set((state) => (state[key]?.id === whole.id ? { [key]: whole } : {}));
        }
      } catch (error) {
        set({ failure: errorMessage(error) });
      }
    },
    openPast: async (submissionId) => {
      try {
        set({ opened: await call('consumption:get', { submissionId }), failure: null });
      } catch (error) {
        set({ failure: errorMessage(error) });
      }
    },
    closePast: () => set({ opened: null }),
    copyToNewBatch: () => {
      const { opened } = get();
      if (!opened) return;
      set({
        batch: draft({
          fileName: opened.fileName,
          rows: opened.rows,
          extraColumns: opened.extraColumns ?? [],
          ...(opened.period ? { month: opened.period.startDate.slice(0, 7) } : {}),
          copiedFailures: opened.state === 'Failed' ? opened.failures : [],
        }),
        submission: null,
        opened: null,
        repeatWarning: null,
        failure: null,
      });
    },
    startFrom: async (from) => {
      try {
        const past = await call('consumption:get', { submissionId: from.id });
        // Quantities are this month's to fill in; a consumption id is one record's own, never reused.
        const rows = past.rows.map((row) => ({ ...row, quantity: '', consumptionId: '' }));
        set({
          batch: draft({
            fileName: `typed rows (from ${past.fileName})`,
            rows: rows.length ? rows : [emptyRow(1)],
            extraColumns: past.extraColumns ?? [],
          }),
          submission: null,
          opened: null,
          repeatWarning: null,
          failure: null,
          notice: `${rows.length} rows from ${past.fileName}: fill in this month's quantities.`,
        });
      } catch (error) {
        set({ failure: errorMessage(error) });
      }
    },
    applyProgress: (summary) => {
      const { submission, opened } = get();
      for (const [key, current] of [
        ['submission', submission],
        ['opened', opened],
      ] as const) {
        if (current?.id !== summary.id) continue;
        // A final state brings failures (and rows are unchanged): fetch the whole submission once.
        if (summary.state === 'Failed' || summary.state === 'Successful') {
          void call('consumption:get', { submissionId: summary.id }).then((whole) => set((state) => (state[key]?.id === whole.id ? { [key]: whole } : {})));
        } else set({ [key]: { ...current, ...summary } });
      }
      set((state) => ({
        history: [summary, ...state.history.filter((item) => item.id !== summary.id)].sort((a, b) => b.createdAt.localeCompare(a.createdAt)),
      }));
    },
    lookUpNames: async (profileId, subscriptionIds) => {
      if (get().namesProfileId !== profileId) {
        asking.clear();
        set({ names: {}, namesProfileId: profileId, savedReports: null, namesError: null });
      }
      const known = get().names;
      const wanted = [...new Set(subscriptionIds.map((id) => id.trim().toLowerCase()))].filter((id) => isGuid(id) && !(id in known) && !asking.has(id));
      if (!wanted.length) return;
      for (const id of wanted) asking.add(id);
      try {
        const answer = await call('consumption:names', { profileId, subscriptionIds: wanted });
        if (get().namesProfileId !== profileId) return;
        const found: NameLookup = Object.fromEntries(wanted.map((id) => [id, null]));
        for (const name of answer.names) found[name.subscriptionId.toLowerCase()] = name;
        set((state) => ({ names: { ...state.names, ...found }, savedReports: answer.savedReports, namesError: null }));
      } catch (error) {
        set({ namesError: errorMessage(error) });
      } finally {
        for (const id of wanted) asking.delete(id);
      }
    },
    forgetNames: () => {
      asking.clear();
      set({ names: {}, namesProfileId: null, savedReports: null, namesError: null });
    },
  };
});
