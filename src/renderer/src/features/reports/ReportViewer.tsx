import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import type { ReportColumn, ReportExpansion, ReportHierarchy, ReportSortInput, ReportView, TreeRow } from '@shared/contract';
import { bridge, call } from '@renderer/bridge';
import { receiveFile } from '@renderer/bridge/files';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { formatDateTime } from '@renderer/components/format-time';
import { useAction } from '@renderer/hooks/use-action';
import { CloseScreen } from '../close/CloseScreen';
import type { ShowInReport } from '../close/ExceptionRow';
import { CurrencyTotalsTable } from './CurrencyTotalsTable';
import { formatCount } from '@renderer/components/format-number';
import { nameHeader, REPORT_COLUMNS, totalsTable, treeRowsTable, visibleColumns } from './format';
import { InvoicingView } from './InvoicingView';
import { ReportFilters } from './ReportFilters';
import { type SelectHow, TreeTable } from './TreeTable';
import { type ReportFilter, stateKeyOf, type TreeQuery } from './tree-window-cache';
import { copyTable, useCurrencyTotals, useReportFilter, useTreeWindows, useUiSettings } from './use-report-data';
import { COMMAND_KEY, useReportShortcuts } from './use-report-shortcuts';
import { ViewerActions } from './ViewerActions';

const ALL_CLOSED: ReportExpansion = { all: 'none', toggled: [] };
/** The most rows `clipboard:copy-table` takes at once. */
const MAX_COPY_ROWS = 50_000;
/** How long "Copied 12 rows" stays. */
const STATUS_MS = 6_000;

type ViewMode = 'tree' | 'invoicing' | 'close';

/** "Exporting: 60 %" for the whole report, "Exporting: 412,000 lines" for a view (its size is not known ahead). */
function exportingWords(progress: ExportProgress | null): string {
  if (!progress || progress.lines === 0) return 'Exporting…';
  if (progress.total) return `Exporting: ${Math.min(99, Math.floor((progress.lines / progress.total) * 100))} %`;
  return `Exporting: ${formatCount(progress.lines)} lines`;
}

type ExportProgress = { lines: number; total: number | null };

/** The running export's progress for this report, from the main process's events; cleared when it ends. */
function useExportProgress(reportId: string, exporting: string | null): ExportProgress | null {
  const [progress, setProgress] = useState<ExportProgress | null>(null);
  useEffect(() => {
    if (!exporting) {
      setProgress(null);
      return;
    }
    return bridge.on('reports:export-progress', (event) => {
      if (event.reportId === reportId) setProgress({ lines: event.lines, total: event.total });
    });
  }, [reportId, exporting]);
  return progress;
}

function ViewerHeader({ view, onExport, exporting, filter, mode }: { view: ReportView; onExport: (scope: 'all' | 'view') => void; exporting: string | null; filter: ReportFilter; mode: ViewMode }): React.JSX.Element {
  const progress = useExportProgress(view.meta.id, exporting);
  const { meta } = view;
  const filtered = Object.keys(filter).length > 0;
  return (
    <div className="viewer__header">
      <div className="viewer__title">
        <h2>{meta.name}</h2>
        <div className="muted">
          {/* The period is days as the service gives them; only Closebook's own fetch time is local, with its zone. */}
          {meta.period.startDate} – {meta.period.endDate} · {meta.profileName} ({meta.host}) · fetched {formatDateTime(meta.fetchedAt)} · {formatCount(meta.counts.organizations)} organizations ·{' '}
          {formatCount(meta.counts.lines)} billing lines
        </div>
      </div>
      <div className="toolbar">
        <button type="button" data-shortcut="export" onClick={() => onExport('all')} disabled={exporting !== null} title={`Export the whole report to Excel (${COMMAND_KEY}E)`}>
          {exporting === 'all' ? exportingWords(progress) : 'Export workbook'}
        </button>
        <button type="button" onClick={() => onExport('view')} disabled={exporting !== null || !filtered} title="Only what the filters show">
          {exporting === 'view' ? exportingWords(progress) : 'Export view'}
        </button>
        <ViewerActions reportId={meta.id} reportName={meta.name} filter={filter} mode={mode === 'invoicing' ? 'invoicing' : 'tree'} />
      </div>
    </div>
  );
}

/** Two or more buttons of which one is on: the view, the hierarchy. */
function Segmented<T extends string>({ label, value, choices, onChange }: { label: string; value: T; choices: { value: T; label: string }[]; onChange: (value: T) => void }): React.JSX.Element {
  return (
    <div className="segmented" role="group" aria-label={label}>
      {choices.map((choice) => (
        <button key={choice.value} type="button" aria-pressed={choice.value === value} onClick={() => onChange(choice.value)}>
          {choice.label}
        </button>
      ))}
    </div>
  );
}

/** The columns beside the name, as checkboxes in a small popover (the name column always shows). */
function ColumnChooser({ chosen, hierarchy, onChange }: { chosen: readonly ReportColumn[]; hierarchy: ReportHierarchy; onChange: (columns: ReportColumn[]) => void }): React.JSX.Element {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const id = useId();
  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (!box.current?.contains(event.target as Node)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);
  const shown = new Set(chosen);
  const flip = (column: ReportColumn) => {
    if (shown.has(column)) shown.delete(column);
    else shown.add(column);
    // Saved in the tree's own order, so the same choice is always the same setting.
    onChange(REPORT_COLUMNS.filter((spec) => shown.has(spec.key)).map((spec) => spec.key));
  };
  return (
    <div className="menu" ref={box}>
      <button ref={button} type="button" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        Columns <span aria-hidden="true">▾</span>
      </button>
      {open ? (
        <fieldset id={id} className="menu__popover">
          <legend>Columns shown</legend>
          <label className="menu__item">
            <input type="checkbox" checked disabled /> {nameHeader(hierarchy)}
          </label>
          {REPORT_COLUMNS.map((column) => (
            <label key={column.key} className="menu__item">
              <input type="checkbox" checked={shown.has(column.key)} onChange={() => flip(column.key)} /> {column.label}
            </label>
          ))}
        </fieldset>
      ) : null}
    </div>
  );
}

/** Flips one row against the expansion's default (the main process reads `toggled` that way). */
function toggled(expansion: ReportExpansion, key: string): ReportExpansion {
  const keys = new Set(expansion.toggled);
  if (keys.has(key)) keys.delete(key);
  else keys.add(key);
  return { all: expansion.all, toggled: [...keys] };
}

function nextSort(current: ReportSortInput, key: ReportSortInput['key']): ReportSortInput {
  if (current.key === key) return { key, direction: current.direction === 'asc' ? 'desc' : 'asc' };
  // Names read best A→Z; amounts biggest first.
  return { key, direction: key === 'label' ? 'asc' : 'desc' };
}

/** A selected row and where it stood when picked (its place now, if known, orders a copy). */
interface Picked {
  row: TreeRow;
  index: number;
}

/** "Copied a short while ago" in words, cleared after a few seconds. */
function useStatus(): [string | null, (text: string) => void] {
  const [status, setStatus] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const show = useCallback((text: string) => {
    clearTimeout(timer.current);
    setStatus(text);
    timer.current = setTimeout(() => setStatus(null), STATUS_MS);
  }, []);
  return [status, show];
}

function rowsWord(count: number): string {
  return `${formatCount(count)} ${count === 1 ? 'row' : 'rows'}`;
}

/**
 * One saved report, as a thin view over the ledger in the main process: filters, totals per currency and the tree,
 * whose rows arrive window by window, or the Invoicing view. Exports the workbook of all of it or of what the
 * filters keep; copies selected rows or the totals.
 */
export function ReportViewer({ view }: { view: ReportView }): React.JSX.Element {
  const reportId = view.meta.id;
  const filter = useReportFilter();
  const [mode, setMode] = useState<ViewMode>('tree');
  const [closeOpened, setCloseOpened] = useState(false);
  if (mode === 'close' && !closeOpened) setCloseOpened(true);
  const [sort, setSort] = useState<ReportSortInput>({ key: 'label', direction: 'asc' });
  const [expansion, setExpansion] = useState<ReportExpansion>(ALL_CLOSED);
  const settings = useUiSettings((state) => state.settings);
  const settingsReady = useUiSettings((state) => state.ready);
  const loadSettings = useUiSettings((state) => state.load);
  const saveSettings = useUiSettings((state) => state.save);
  useEffect(() => void loadSettings(), [loadSettings]);
  const hierarchy = settings.reportHierarchy;
  const columns = useMemo(() => visibleColumns(settings.reportColumns), [settings.reportColumns]);
  // Until the remembered hierarchy is known, asking for a tree could ask for the wrong one.
  const query = useMemo<TreeQuery | null>(() => (settingsReady ? { reportId, filter: filter.applied, sort, expansion, hierarchy } : null), [settingsReady, reportId, filter.applied, sort, expansion, hierarchy]);
  const tree = useTreeWindows(query);
  const totals = useCurrencyTotals(reportId, filter.applied);
  const exporting = useAction();
  const copying = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const [copyStatus, showCopyStatus] = useStatus();
  const snapshot = tree.snapshot;
  // Typed filter text waits while the tree is being answered; once it is (or failed), the newest text goes.
  const answered = tree.error !== null || (snapshot !== null && query !== null && snapshot.stateKey === stateKeyOf(query));
  const { answered: filterAnswered } = filter;
  useEffect(() => {
    if (answered) filterAnswered();
  }, [answered, filterAnswered, filter.applied]);

  // The selection belongs to one list: a new filter, sort or hierarchy starts without one.
  const resetKey = JSON.stringify([filter.applied, sort, hierarchy]);
  const [selection, setSelection] = useState<{ resetKey: string; rows: Map<string, Picked> }>({ resetKey, rows: new Map() });
  const picked = useMemo(() => (selection.resetKey === resetKey ? selection.rows : new Map<string, Picked>()), [selection, resetKey]);
  const selectedKeys = useMemo(() => new Set(picked.keys()), [picked]);
  const viewerRoot = useRef<HTMLElement>(null);
  useReportShortcuts(viewerRoot);
  const anchor = useRef<number | null>(null);
  const rangeRead = useRef(0);
  const { rowsIn } = tree;
  const { setError: setCopyError } = copying;

  const onSelect = useCallback(
    (index: number, row: TreeRow, how: SelectHow) => {
      const from = anchor.current;
      const read = ++rangeRead.current;
      if (how === 'range' && from !== null) {
        const [start, end] = from <= index ? [from, index] : [index, from];
        if (end - start + 1 > MAX_COPY_ROWS) {
          setCopyError(`Select at most ${formatCount(MAX_COPY_ROWS)} rows at a time.`);
          return;
        }
        // The rows between are read from the cache (or asked for, when scrolled far away).
        rowsIn(start, end).then(
          (rows) => read === rangeRead.current && setSelection({ resetKey, rows: new Map(rows.map((candidate, at) => [candidate.key, { row: candidate, index: start + at }])) }),
          (failure: unknown) => setCopyError(failure instanceof Error ? failure.message : String(failure)),
        );
        return;
      }
      anchor.current = index;
      setSelection((current) => {
        if (how !== 'toggle') return { resetKey, rows: new Map([[row.key, { row, index }]]) };
        const rows = new Map(current.resetKey === resetKey ? current.rows : []);
        if (rows.has(row.key)) rows.delete(row.key);
        else rows.set(row.key, { row, index });
        return { resetKey, rows };
      });
    },
    [resetKey, rowsIn, setCopyError],
  );
  const clearSelection = useCallback(() => setSelection({ resetKey, rows: new Map() }), [resetKey]);

  // "Show in report" from Close the month: the organization alone, its path open, the row selected and in view.
  const [revealing, setRevealing] = useState<string | null>(null);
  const [focusRow, setFocusRow] = useState<{ index: number } | null>(null);
  const { change: changeFilter, clear: clearFilter } = filter;
  const showInReport = useCallback<ShowInReport>(
    (exception) => {
      anchor.current = null;
      setMode('tree');
      if (hierarchy !== 'organization') saveSettings({ reportHierarchy: 'organization' });
      clearFilter();
      changeFilter({ organization: exception.customerNumber || exception.organization }, false);
      setExpansion({ all: 'none', toggled: exception.path.slice(0, -1) });
      setRevealing(exception.path.at(-1) ?? null);
    },
    [hierarchy, saveSettings, clearFilter, changeFilter],
  );
  useEffect(() => {
    if (!revealing || !snapshot || !query || snapshot.stateKey !== stateKeyOf(query)) return;
    const select = (index: number, row: TreeRow) => {
      setSelection({ resetKey, rows: new Map([[row.key, { row, index }]]) });
      setFocusRow({ index });
    };
    setRevealing(null);
    const index = snapshot.indexOf(revealing);
    const row = index === undefined ? undefined : snapshot.rowAt(index);
    if (index !== undefined && row) {
      select(index, row);
      return;
    }
    // Not among the rows fetched so far: read the (one organization's) tree until it turns up.
    rowsIn(0, Math.min(snapshot.rowCount, MAX_COPY_ROWS) - 1).then((rows) => {
      const at = rows.findIndex((candidate) => candidate.key === revealing);
      if (at >= 0) select(at, rows[at]!);
    }, () => undefined);
  }, [revealing, snapshot, query, resetKey, rowsIn]);

  const copyRows = (activeRow?: TreeRow) => {
    // In the tree's order: where a row stands now if it is loaded, else where it stood when picked.
    const rows = picked.size
      ? [...picked.values()].map((entry) => ({ row: entry.row, at: snapshot?.indexOf(entry.row.key) ?? entry.index })).sort((a, b) => a.at - b.at).map((entry) => entry.row)
      : activeRow
        ? [activeRow]
        : [];
    if (rows.length === 0) return;
    void copying.run(async () => {
      await copyTable(treeRowsTable(rows, columns, hierarchy));
      showCopyStatus(`Copied ${rowsWord(rows.length)}`);
    }, 'rows');
  };
  const copyTotals = () => {
    const rows = totals.totals ?? [];
    void copying.run(async () => {
      await copyTable(totalsTable(rows));
      showCopyStatus(`Copied the totals (${rowsWord(rows.length)})`);
    }, 'totals');
  };

  const exportWorkbook = (scope: 'all' | 'view') => {
    setNotice(null);
    const scoped: ReportFilter | undefined = scope === 'view' ? filter.applied : undefined;
    void exporting.run(async () => setNotice(receiveFile(await call('reports:export', { reportId, ...(scoped ? { filter: scoped } : {}) }))), scope);
  };
  const onToggle = useCallback((row: TreeRow) => setExpansion((current) => toggled(current, row.key)), []);
  const onSort = useCallback((key: ReportSortInput['key']) => setSort((current) => nextSort(current, key)), []);
  const openAll = (all: ReportExpansion['all']) => {
    // Rows move: a range from an old place would pick the wrong ones.
    anchor.current = null;
    setExpansion({ all, toggled: [] });
  };
  const changeHierarchy = (next: ReportHierarchy) => {
    if (next === hierarchy) return;
    anchor.current = null;
    // Another tree: its rows have other keys, so what was open is closed.
    setExpansion(ALL_CLOSED);
    saveSettings({ reportHierarchy: next });
  };

  return (
    <section className="viewer" aria-label={`Report ${view.meta.name}`} id="open-report" ref={viewerRoot} tabIndex={-1}>
      <ViewerHeader view={view} onExport={exportWorkbook} exporting={exporting.running} filter={filter.applied} mode={mode} />
      <ErrorNote message={exporting.error} />
      {notice ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
      {mode === 'close' ? null : <ReportFilters view={view} filter={filter} lineCount={snapshot ? { shown: snapshot.lineCount, total: snapshot.totalLines } : null} />}
      <div className="viewbar">
        <Segmented
          label="View"
          value={mode}
          choices={[
            { value: 'tree', label: 'Tree' },
            { value: 'invoicing', label: 'Invoicing' },
            { value: 'close', label: 'Close the month' },
          ]}
          onChange={setMode}
        />
        {mode === 'tree' ? (
          <>
            <Segmented
              label="Hierarchy"
              value={hierarchy}
              choices={[
                { value: 'organization', label: 'By organization' },
                { value: 'service', label: 'By service' },
              ]}
              onChange={changeHierarchy}
            />
            <ColumnChooser chosen={settings.reportColumns} hierarchy={hierarchy} onChange={(reportColumns) => saveSettings({ reportColumns })} />
            <button type="button" className="link" onClick={() => openAll('organizations')}>
              Expand organizations
            </button>
            <button type="button" className="link" onClick={() => openAll('none')}>
              Collapse all
            </button>
            <button type="button" onClick={() => copyRows()} disabled={picked.size === 0 || copying.busy} title="The selected rows as exact values, to paste into a spreadsheet (Ctrl/⌘+C)">
              Copy rows
            </button>
            {picked.size > 0 ? <span className="muted">{formatCount(picked.size)} selected</span> : null}
          </>
        ) : null}
        <span className="viewbar__status" role="status">
          {copyStatus}
        </span>
      </div>
      <ErrorNote message={copying.error} />
      {/* Once opened, Close the month stays mounted (hidden) so its filters and place survive a look at the tree. */}
      {closeOpened ? (
        <div className="viewer__close" hidden={mode !== 'close'}>
          <CloseScreen meta={view.meta} onShowInReport={showInReport} />
        </div>
      ) : null}
      {mode === 'close' ? null : mode === 'invoicing' ? (
        <InvoicingView reportId={reportId} filter={filter.applied} />
      ) : (
        <>
          <ErrorNote message={totals.error} />
          <CurrencyTotalsTable totals={totals.totals} onCopy={copyTotals} copying={copying.busy} />
          {tree.error ? (
            <div className="error-note" role="alert">
              The rows could not be read: {tree.error}{' '}
              <button type="button" className="link" onClick={tree.retry}>
                Try again
              </button>
            </div>
          ) : null}
          <TreeTable
            snapshot={snapshot}
            pendingWhat={`Adding up ${formatCount(view.meta.counts.lines)} billing lines`}
            columns={columns}
            hierarchy={hierarchy}
            onWanted={tree.setWanted}
            onToggle={onToggle}
            sort={sort}
            onSort={onSort}
            selected={selectedKeys}
            onSelect={onSelect}
            onCopy={copyRows}
            onClearSelection={clearSelection}
            resetKey={resetKey}
            focusRow={focusRow}
          />
        </>
      )}
    </section>
  );
}
