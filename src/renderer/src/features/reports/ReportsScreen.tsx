import { useEffect, useRef, useState } from 'react';
import type { ReportView } from '@shared/contract';
import type { ReportMeta } from '@shared/schemas/saved-report';
import { bridge, call } from '@renderer/bridge';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { Pending } from '@renderer/components/Pending';
import { useAction } from '@renderer/hooks/use-action';
import { ifNewest, newestOnly } from '@renderer/hooks/latest-answer';
import { SidePanelToggle, useSidePanel } from '@renderer/components/SidePanelToggle';
import { useActiveProfile, useAppStore } from '@renderer/stores/app-store';
import { countOf } from '@renderer/components/format-number';
import { JobList } from './JobList';
import { ReportViewer } from './ReportViewer';
import { RequestForm } from './RequestForm';
import { SavedReportList } from './SavedReportList';
import { useReportJobs } from './report-jobs-store';
import { useUiSettings } from './use-report-data';

/** Month-end billing reports: request and watch, saved reports (offline), and the viewer. */
export function ReportsScreen(): React.JSX.Element {
  const profile = useActiveProfile();
  const go = useAppStore((state) => state.go);
  const load = useReportJobs((state) => state.load);
  const apply = useReportJobs((state) => state.apply);
  const lastReady = useReportJobs((state) => state.lastReady);
  const openWhenReady = useReportJobs((state) => state.openWhenReady);
  const opened = useReportJobs((state) => state.opened);
  const loadSettings = useUiSettings((state) => state.load);
  const [openId, setOpenId] = useState<string | null>(null);
  const [openingWhat, setOpeningWhat] = useState('Opening the report');
  const [report, setReport] = useState<ReportView | null>(null);
  const { run, running, error: failure } = useAction();
  const openings = useRef(newestOnly());
  const opening = running === 'open';
  // Below this width the tree needs the whole row: the list of reports steps aside while one is open.
  const list = useSidePanel('(min-width: 1360px)', report !== null);
  const listShown = list.shown;

  // The viewer's remembered arrangement is read now, not when a month is opened: one request less before its rows.
  useEffect(() => void loadSettings(), [loadSettings]);

  useEffect(() => {
    void run(load, 'load');
    return bridge.on('report:progress', apply);
  }, [run, load, apply]);

  // Only the summary and the filter choices come back; the viewer then asks for totals and rows by itself. The
  // month opened last is the one shown: a larger one clicked before it, answering later, is dropped.
  const open = async (reportId: string, about?: ReportMeta) => {
    const request = openings.current.begin();
    setOpenId(reportId);
    setOpeningWhat(about ? `Opening ${about.name} — ${countOf(about.counts.lines, 'billing line')}` : 'Opening the report');
    // The remembered arrangement, when known: the main process starts the first rows the viewer will ask for.
    const { ready, settings } = useUiSettings.getState();
    const opened = await run(() => ifNewest(request, call('reports:open', { reportId, ...(ready ? { hierarchy: settings.reportHierarchy } : {}) })), 'open');
    if (request.latest()) setReport(opened ?? null);
  };

  // The first start's next step: the demo's last month opens as soon as it is saved.
  const readyToOpen = lastReady?.id === openWhenReady ? lastReady?.reportId : undefined;
  useEffect(() => {
    if (!readyToOpen) return;
    opened();
    void open(readyToOpen);
  }, [readyToOpen, opened]);

  return (
    <section className="screen reports" aria-labelledby="reports-title">
      <div className="screen__header">
        <h1 id="reports-title">Reports</h1>
        {report ? <SidePanelToggle panel={list} controls="reports-side" what="the list of reports" /> : null}
      </div>
      <div className={`reports__layout${listShown ? '' : ' reports__layout--list-hidden'}`}>
        {/* Hidden, not removed: the request form and the saved list keep their state. */}
        <aside className="reports__side" id="reports-side" hidden={!listShown}>
          {profile ? (
            <RequestForm />
          ) : (
            <p className="panel">
              Saved reports open without a profile. To request a new one,{' '}
              <button type="button" className="link" onClick={() => go('profiles')}>
                choose or create a profile
              </button>
              .
            </p>
          )}
          {/* Keyboard users jump from the request form past the list to the report itself (seen only when focused). */}
          {report && !opening ? (
            <a
              className="skip-link"
              href="#open-report"
              onClick={(event) => {
                event.preventDefault();
                document.getElementById('open-report')?.focus();
              }}
            >
              Skip to the open report
            </a>
          ) : null}
          <JobList />
          {lastReady?.reportId && lastReady.reportId !== openId ? (
            <p className="notice" role="status">
              A report is ready.{' '}
              <button type="button" className="link" onClick={() => void open(lastReady.reportId as string)}>
                Open it
              </button>
            </p>
          ) : null}
          <SavedReportList
            openId={openId}
            onOpen={(meta) => void open(meta.id, meta)}
            onDeleted={(id) => {
              if (id === openId) {
                setOpenId(null);
                setReport(null);
              }
            }}
          />
        </aside>
        <div className="reports__main">
          <ErrorNote message={failure} />
          {opening ? <Pending what={openingWhat} /> : null}
          {report && !opening ? <ReportViewer key={report.meta.id} view={report} /> : null}
          {!report && !opening && !failure ? (
            <p className="empty">Open a saved report to read it by organization, service, subscription and billing line.</p>
          ) : null}
        </div>
      </div>
    </section>
  );
}
