import { useEffect, useState } from 'react';
import type { ReportView } from '@shared/contract';
import { bridge } from '@renderer/bridge';
import { countOf, formatCount } from '@renderer/components/format-number';
import { formatDateTime } from '@renderer/components/format-time';
import type { ReportFilter } from './tree-window-cache';
import { COMMAND_KEY } from './use-report-shortcuts';
import { ViewerActions } from './ViewerActions';

type ExportProgress = { lines: number; total: number | null };

/** "Exporting: 60 %" for the whole report, "Exporting: 412,000 lines" for a view (its size is not known ahead). */
function exportingWords(progress: ExportProgress | null): string {
  if (!progress || progress.lines === 0) return 'Exporting…';
  if (progress.total) return `Exporting: ${Math.min(99, Math.floor((progress.lines / progress.total) * 100))} %`;
  return `Exporting: ${formatCount(progress.lines)} lines`;
}

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

interface Props {
  view: ReportView;
  onExport: (scope: 'all' | 'view') => void;
  /** Which export runs ('all' or 'view'), or null. */
  exporting: string | null;
  filter: ReportFilter;
  mode: 'tree' | 'invoicing' | 'close';
}

/** The report's name and what it holds, and its exports, print and per-group workbooks. */
export function ViewerHeader({ view, onExport, exporting, filter, mode }: Props): React.JSX.Element {
  const progress = useExportProgress(view.meta.id, exporting);
  const { meta } = view;
  const filtered = Object.keys(filter).length > 0;
  return (
    <div className="viewer__header">
      <div className="viewer__title">
        <h2>{meta.name}</h2>
        <div className="muted">
          {/* The period is days as the service gives them; only Closebook's own fetch time is local, with its zone. */}
          {meta.period.startDate} – {meta.period.endDate} · {meta.profileName} ({meta.host}) · fetched {formatDateTime(meta.fetchedAt)} ·{' '}
          {countOf(meta.counts.organizations, 'organization')} · {countOf(meta.counts.lines, 'billing line')}
        </div>
      </div>
      <div className="toolbar">
        <button
          type="button"
          data-shortcut="export"
          onClick={() => onExport('all')}
          disabled={exporting !== null}
          title={`Export the whole report to Excel (${COMMAND_KEY}E)`}
        >
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
