import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { OPENING_SORT, type ReportExpansion, type ReportHierarchy, type ReportSortInput, type ReportView, type TreeRow } from '@shared/contract';
import { call } from '@renderer/bridge';
import { receiveFile } from '@renderer/bridge/files';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { countOf, formatCount } from '@renderer/components/format-number';
import { useAction } from '@renderer/hooks/use-action';
import { useStableHandler } from '@renderer/hooks/use-stable-handler';
import { useStatus } from '@renderer/hooks/use-status';
import { CloseScreen } from '../close/CloseScreen';
import type { ShowInReport } from '../close/ExceptionRow';
import { CurrencyTotalsTable } from './CurrencyTotalsTable';
import { totalsTable, treeRowsTable, visibleColumns } from './format';
import { InvoicingView } from './InvoicingView';
import { ReportFilters } from './ReportFilters';
import { TreeTable } from './TreeTable';
import { type ReportFilter, stateKeyOf, type TreeQuery } from './tree-window-cache';
import { copyTable, useReportFilter, useTreeWindows, useUiSettings } from './use-report-data';
import { useReportShortcuts } from './use-report-shortcuts';
import { useRevealRow, useTreeSelection } from './use-tree-selection';
import { ViewBar, type ViewMode } from './ViewBar';
import { ViewerHeader } from './ViewerHeader';

const ALL_CLOSED: ReportExpansion = { all: 'none', toggled: [] };
/** How long "Copied 12 rows" stays. */
const STATUS_MS = 6_000;

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

function rowsWord(count: number): string {
  return countOf(count, 'row');
}

/**
 * One saved report, as a thin view over the ledger in the main process: filters, totals per currency and the tree,
 * whose rows arrive window by window, or the Invoicing view. Exports the workbook of all of it or of what the
 * filters keep; copies selected rows or the totals.
 */
export function ReportViewer({ view }: { view: ReportView }): React.JSX.Element {
  const reportId = view.meta.id;
  // A filter is asked for as it is applied — in the keystroke's own event, before React renders the input and the
  // rows it is leaving — with the rest of the query as it stands; the render then asks for the same state, at no cost.
  const askEarly = useRef<(filter: ReportFilter) => void>(() => undefined);
  const filter = useReportFilter(useCallback((applied: ReportFilter) => askEarly.current(applied), []));
  const [mode, setMode] = useState<ViewMode>('tree');
  const [closeOpened, setCloseOpened] = useState(false);
  if (mode === 'close' && !closeOpened) setCloseOpened(true);
  const [sort, setSort] = useState<ReportSortInput>(OPENING_SORT);
  const [expansion, setExpansion] = useState<ReportExpansion>(ALL_CLOSED);
  const settings = useUiSettings((state) => state.settings);
  const settingsReady = useUiSettings((state) => state.ready);
  const loadSettings = useUiSettings((state) => state.load);
  const saveSettings = useUiSettings((state) => state.save);
  useEffect(() => void loadSettings(), [loadSettings]);
  const hierarchy = settings.reportHierarchy;
  const columns = useMemo(() => visibleColumns(settings.reportColumns), [settings.reportColumns]);
  // Until the remembered hierarchy is known, asking for a tree could ask for the wrong one.
  const query = useMemo<TreeQuery | null>(
    () => (settingsReady ? { reportId, filter: filter.applied, sort, expansion, hierarchy } : null),
    [settingsReady, reportId, filter.applied, sort, expansion, hierarchy],
  );
  const tree = useTreeWindows(query);
  const { ask } = tree;
  askEarly.current = (applied) => {
    if (settingsReady) ask({ reportId, filter: applied, sort, expansion, hierarchy });
  };
  const exporting = useAction();
  const copying = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const [copyStatus, showCopyStatus] = useStatus(STATUS_MS);
  const { snapshot, rowsIn } = tree;
  // The totals come with the rows (one request a keystroke); the last ones stay while a new filter's are asked.
  const totals = snapshot?.totals ?? null;
  // Typed filter text waits while the tree is being answered; once it is (or failed), the newest text goes.
  const answered = tree.error !== null || (snapshot !== null && query !== null && snapshot.stateKey === stateKeyOf(query));
  const { answered: filterAnswered } = filter;
  useEffect(() => {
    if (answered) filterAnswered();
  }, [answered, filterAnswered, filter.applied]);

  const viewerRoot = useRef<HTMLElement>(null);
  useReportShortcuts(viewerRoot);
  // The selection belongs to one list: a new filter, sort or hierarchy starts without one — once its rows are shown,
  // so a keystroke redraws only the text it typed while the main process answers (the rows and the view stay put).
  const resetKey = snapshot?.listKey ?? '';
  const selection = useTreeSelection(resetKey, rowsIn, copying.setError);
  const { forgetAnchor } = selection;
  const { reveal, focusRow } = useRevealRow(snapshot, query, rowsIn, selection.selectOnly);

  // "Show in report" from Close the month: the organization alone, its path open, the row selected and in view.
  const { change: changeFilter, clear: clearFilter } = filter;
  const showInReport = useCallback<ShowInReport>(
    (exception) => {
      forgetAnchor();
      setMode('tree');
      if (hierarchy !== 'organization') saveSettings({ reportHierarchy: 'organization' });
      clearFilter();
      changeFilter({ organization: exception.customerNumber || exception.organization }, false);
      setExpansion({ all: 'none', toggled: exception.path.slice(0, -1) });
      reveal(exception.path.at(-1) ?? null);
    },
    [forgetAnchor, hierarchy, saveSettings, clearFilter, changeFilter, reveal],
  );

  // An exception the Invoicing view links to: Close the month opens on it (`n` tells a second click on the same one apart).
  const [exceptionShown, setExceptionShown] = useState<{ id: string; n: number } | null>(null);
  const showException = useCallback((id: string) => {
    setExceptionShown((current) => ({ id, n: (current?.n ?? 0) + 1 }));
    setMode('close');
  }, []);

  // Stable, so the memoised tree is not redrawn by a render that changed nothing it shows (a keystroke's).
  const copyRows = useStableHandler((activeRow?: TreeRow) => {
    const rows = selection.picked.size ? selection.inOrder(snapshot) : activeRow ? [activeRow] : [];
    if (rows.length === 0) return;
    void copying.run(async () => {
      await copyTable(treeRowsTable(rows, columns, hierarchy));
      showCopyStatus(`Copied ${rowsWord(rows.length)}`);
    }, 'rows');
  });
  const copyTotals = () => {
    const rows = totals ?? [];
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
    forgetAnchor();
    setExpansion({ all, toggled: [] });
  };
  const changeHierarchy = (next: ReportHierarchy) => {
    if (next === hierarchy) return;
    forgetAnchor();
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
      {mode === 'close' ? null : (
        <ReportFilters
          view={view}
          filter={filter}
          lineCount={snapshot ? { shown: snapshot.lineCount, total: snapshot.totalLines, forText: snapshot.filter.text ?? '' } : null}
        />
      )}
      <ViewBar
        mode={mode}
        onMode={setMode}
        hierarchy={hierarchy}
        onHierarchy={changeHierarchy}
        columns={settings.reportColumns}
        onColumns={(reportColumns) => saveSettings({ reportColumns })}
        onOpenAll={openAll}
        selectedCount={selection.picked.size}
        copying={copying.busy}
        onCopyRows={() => copyRows()}
        status={copyStatus}
      />
      <ErrorNote message={copying.error} />
      {/* Once opened, Close the month stays mounted (hidden) so its filters and place survive a look at the tree. */}
      {closeOpened ? (
        <div className="viewer__close" hidden={mode !== 'close'}>
          <CloseScreen meta={view.meta} onShowInReport={showInReport} exceptionShown={exceptionShown} />
        </div>
      ) : null}
      {mode === 'close' ? null : mode === 'invoicing' ? (
        <InvoicingView reportId={reportId} filter={filter.applied} onShowException={showException} />
      ) : (
        <>
          <CurrencyTotalsTable totals={totals} onCopy={copyTotals} copying={copying.busy} />
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
            selected={selection.keys}
            onSelect={selection.select}
            onCopy={copyRows}
            onClearSelection={selection.clear}
            resetKey={resetKey}
            focusRow={focusRow}
          />
        </>
      )}
    </section>
  );
}
