import { useCallback, useEffect, useRef, useState } from 'react';
import { create } from 'zustand';
import { type TreeRow, UiSettings } from '@shared/contract';
import { call, errorMessage } from '@renderer/bridge';
import { LatestWhenIdle } from './latest-when-idle';
import { type ReportFilter, type TreeQuery, TreeWindowCache, type TreeSnapshot } from './tree-window-cache';

export interface TreeWindows {
  snapshot: TreeSnapshot | null;
  error: string | null;
  /** The rows in view, inclusive; the cache fetches the windows around them. */
  setWanted(start: number, end: number): void;
  /** The rows `start … end` of the tree shown now, fetching what is not cached. */
  rowsIn(start: number, end: number): Promise<TreeRow[]>;
  retry(): void;
  /** Asks for `query` now, ahead of the render that will show it (asking for it again then costs nothing). */
  ask(query: TreeQuery): void;
}

/** The rows of the report tree for `query` (null: not yet known), fetched window by window from the main process. */
export function useTreeWindows(query: TreeQuery | null): TreeWindows {
  const [snapshot, setSnapshot] = useState<TreeSnapshot | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [cache] = useState(
    () =>
      new TreeWindowCache(
        (request) => call('reports:window', request),
        (next) => {
          setSnapshot(next);
          setError(null);
        },
        (failure) => setError(errorMessage(failure)),
      ),
  );

  // The cache itself tells a new state from the same one asked again (stateKeyOf), so identity churn costs nothing.
  useEffect(() => {
    if (query) cache.setQuery(query);
  }, [cache, query]);
  useEffect(() => () => cache.dispose(), [cache]);

  const setWanted = useCallback((start: number, end: number) => cache.setWanted(start, end), [cache]);
  const rowsIn = useCallback((start: number, end: number) => cache.rowsIn(start, end), [cache]);
  const retry = useCallback(() => {
    setError(null);
    cache.retry();
  }, [cache]);
  const ask = useCallback((query: TreeQuery) => cache.setQuery(query), [cache]);
  return { snapshot, error, setWanted, rowsIn, retry, ask };
}

export interface ReportFilterState {
  /** What the inputs show, keystroke by keystroke. */
  draft: ReportFilter;
  /** What the tree and totals are asked for: typed fields once the tree has answered the filter before, choices at once. */
  applied: ReportFilter;
  /** Sets the given fields (an empty text or `false` removes one); typed ones wait while the tree is being answered. */
  change(fields: ReportFilter, typed: boolean): void;
  clear(): void;
  /** The tree has answered the applied filter (or failed to): typed text that waited goes now. */
  answered(): void;
}

/** Drops empty fields, so an emptied filter asks for the same state as no filter. */
function withoutEmpty(filter: ReportFilter): ReportFilter {
  return Object.fromEntries(Object.entries(filter).filter(([, value]) => value)) as ReportFilter;
}

/**
 * The viewer's filter. Typed text is asked for at once — a typing pause would be waited out on every keystroke —
 * but only one filter at a time: text typed while the tree is being answered waits, and only the newest goes.
 * `onApply` hears each filter as it is applied, before the render that shows it (see ReportViewer).
 */
export function useReportFilter(onApply: (filter: ReportFilter) => void): ReportFilterState {
  const [draft, setDraft] = useState<ReportFilter>({});
  const [applied, setApplied] = useState<ReportFilter>({});
  const latestDraft = useRef(draft);
  const applyListener = useRef(onApply);
  applyListener.current = onApply;
  const [gate] = useState(
    () =>
      new LatestWhenIdle<ReportFilter>((filter) => {
        setApplied(filter);
        applyListener.current(filter);
      }),
  );
  useEffect(() => () => gate.dispose(), [gate]);

  const change = useCallback(
    (fields: ReportFilter, typed: boolean) => {
      const next = withoutEmpty({ ...latestDraft.current, ...fields });
      latestDraft.current = next;
      setDraft(next);
      if (typed) gate.offer(next);
      else gate.now(next);
    },
    [gate],
  );
  const clear = useCallback(() => {
    latestDraft.current = {};
    setDraft({});
    gate.now({});
  }, [gate]);
  const answered = useCallback(() => gate.answered(), [gate]);
  return { draft, applied, change, clear, answered };
}

interface UiSettingsState {
  settings: UiSettings;
  /** True once the main process answered, or failed to (the defaults then stay): the tree waits for it. */
  ready: boolean;
  load(): Promise<void>;
  /** Applies a change at once and asks the main process to keep it; if it cannot, the choice lasts this session. */
  save(change: Partial<UiSettings>): void;
}

const DEFAULT_SETTINGS: UiSettings = UiSettings.parse({});
let settingsLoad: Promise<void> | null = null;
let changedBeforeLoad = false;

/** The screens' remembered choices (columns, hierarchy), read once per session and saved through the main process. */
export const useUiSettings = create<UiSettingsState>((set, get) => ({
  settings: DEFAULT_SETTINGS,
  ready: false,
  load: () => {
    settingsLoad ??= call('settings:get', {}).then(
      (settings) => set(changedBeforeLoad ? { ready: true } : { settings, ready: true }),
      // Not answered (e.g. an older main process): the defaults stand.
      () => set({ ready: true }),
    );
    return settingsLoad;
  },
  save: (change) => {
    changedBeforeLoad = !get().ready;
    const settings = { ...get().settings, ...change };
    set({ settings });
    call('settings:save', settings).then(
      (saved) => {
        if (get().settings === settings) set({ settings: saved });
      },
      () => undefined,
    );
  },
}));

/**
 * Puts a table on the clipboard through the main process (which escapes formula-leading text); a host without a
 * clipboard of its own (the browser bridge) hands the text back for the page to write.
 */
export async function copyTable(rows: string[][]): Promise<void> {
  const answer = await call('clipboard:copy-table', { rows });
  if (answer.copied) return;
  if (answer.text === undefined) throw new Error('The clipboard did not take the rows.');
  await writeTableToClipboard(answer.text, answer.html);
}

/** Text and HTML where the browser takes both (a spreadsheet then keeps text cells as text), else the text alone. */
async function writeTableToClipboard(text: string, html: string | undefined): Promise<void> {
  if (html === undefined || typeof ClipboardItem === 'undefined') return navigator.clipboard.writeText(text);
  const item = new ClipboardItem({ 'text/plain': new Blob([text], { type: 'text/plain' }), 'text/html': new Blob([html], { type: 'text/html' }) });
  await navigator.clipboard.write([item]);
}
