import { useCallback, useMemo, useState } from 'react';
import type { ReportExpansion, ReportSortInput, ReportView, TreeRow } from '../../../../shared/contract';
import { call } from '../../bridge';
import { receiveFile } from '../../bridge/files';
import { ErrorNote } from '../../components/ErrorNote';
import { formatDateTime } from '../../components/format-time';
import { useAction } from '../../components/use-action';
import { CurrencyTotalsTable } from './CurrencyTotalsTable';
import { ReportFilters } from './ReportFilters';
import { TreeTable } from './TreeTable';
import type { ReportFilter, TreeQuery } from './tree-window-cache';
import { useCurrencyTotals, useReportFilter, useTreeWindows } from './use-report-data';

const ALL_CLOSED: ReportExpansion = { all: 'none', toggled: [] };

function ViewerHeader({ view, onExport, exporting, filtered }: { view: ReportView; onExport: (scope: 'all' | 'view') => void; exporting: string | null; filtered: boolean }): React.JSX.Element {
  const { meta } = view;
  return (
    <div className="viewer__header">
      <div className="viewer__title">
        <h2>{meta.name}</h2>
        <div className="muted">
          {meta.period.startDate} – {meta.period.endDate} · {meta.profileName} ({meta.host}) · fetched {formatDateTime(meta.fetchedAt)} · {meta.counts.organizations.toLocaleString()} organizations ·{' '}
          {meta.counts.lines.toLocaleString()} billing lines
        </div>
      </div>
      <div className="toolbar">
        <button type="button" onClick={() => onExport('all')} disabled={exporting !== null}>
          {exporting === 'all' ? 'Exporting…' : 'Export workbook'}
        </button>
        <button type="button" onClick={() => onExport('view')} disabled={exporting !== null || !filtered} title="Only what the filters show">
          {exporting === 'view' ? 'Exporting…' : 'Export view'}
        </button>
      </div>
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

/**
 * One saved report, as a thin view over the ledger in the main process: filters, totals per currency and the tree,
 * whose rows arrive window by window. Exports the workbook of all of it or of what the filters keep.
 */
export function ReportViewer({ view }: { view: ReportView }): React.JSX.Element {
  const reportId = view.meta.id;
  const filter = useReportFilter();
  const [sort, setSort] = useState<ReportSortInput>({ key: 'label', direction: 'asc' });
  const [expansion, setExpansion] = useState<ReportExpansion>(ALL_CLOSED);
  const query = useMemo<TreeQuery>(() => ({ reportId, filter: filter.applied, sort, expansion }), [reportId, filter.applied, sort, expansion]);
  const tree = useTreeWindows(query);
  const totals = useCurrencyTotals(reportId, filter.applied);
  const exporting = useAction();
  const [notice, setNotice] = useState<string | null>(null);

  const exportWorkbook = (scope: 'all' | 'view') => {
    setNotice(null);
    const scoped: ReportFilter | undefined = scope === 'view' ? filter.applied : undefined;
    void exporting.run(async () => setNotice(receiveFile(await call('reports:export', { reportId, ...(scoped ? { filter: scoped } : {}) }))), scope);
  };
  const onToggle = useCallback((row: TreeRow) => setExpansion((current) => toggled(current, row.key)), []);
  const onSort = useCallback((key: ReportSortInput['key']) => setSort((current) => nextSort(current, key)), []);
  const snapshot = tree.snapshot;

  return (
    <section className="viewer" aria-label={`Report ${view.meta.name}`}>
      <ViewerHeader view={view} onExport={exportWorkbook} exporting={exporting.running} filtered={Object.keys(filter.applied).length > 0} />
      <ErrorNote message={exporting.error} />
      {notice ? <p className="notice" role="status">{notice}</p> : null}
      <ReportFilters
        view={view}
        filter={filter}
        lineCount={snapshot ? { shown: snapshot.lineCount, total: snapshot.totalLines } : null}
        onExpandOrganizations={() => setExpansion({ all: 'organizations', toggled: [] })}
        onCollapseAll={() => setExpansion(ALL_CLOSED)}
      />
      <ErrorNote message={totals.error} />
      <CurrencyTotalsTable totals={totals.totals} />
      {tree.error ? (
        <div className="error-note" role="alert">
          The rows could not be read: {tree.error}{' '}
          <button type="button" className="link" onClick={tree.retry}>
            Try again
          </button>
        </div>
      ) : null}
      <TreeTable snapshot={snapshot} onWanted={tree.setWanted} onToggle={onToggle} sort={sort} onSort={onSort} resetKey={JSON.stringify([filter.applied, sort])} />
    </section>
  );
}
