import { useEffect, useState } from 'react';
import type { SavedReport } from '../../../../shared/schemas/saved-report';
import { bridge, call } from '../../bridge';
import { ErrorNote } from '../../components/ErrorNote';
import { useAction } from '../../components/use-action';
import { useActiveProfile, useAppStore } from '../../stores/app-store';
import { JobList } from './JobList';
import { ReportViewer } from './ReportViewer';
import { RequestForm } from './RequestForm';
import { SavedReportList } from './SavedReportList';
import { useReportJobs } from './report-jobs-store';

/** Month-end billing reports: request and watch, saved reports (offline), and the viewer. */
export function ReportsScreen(): React.JSX.Element {
  const profile = useActiveProfile();
  const go = useAppStore((state) => state.go);
  const load = useReportJobs((state) => state.load);
  const apply = useReportJobs((state) => state.apply);
  const lastReady = useReportJobs((state) => state.lastReady);
  const [openId, setOpenId] = useState<string | null>(null);
  const [report, setReport] = useState<SavedReport | null>(null);
  const { run, running, error: failure } = useAction();
  const opening = running === 'open';

  useEffect(() => {
    void run(load, 'load');
    return bridge.on('report:progress', apply);
  }, [run, load, apply]);

  const open = async (reportId: string) => {
    setOpenId(reportId);
    setReport((await run(() => call('reports:open', { reportId }), 'open')) ?? null);
  };

  return (
    <section className="screen reports" aria-labelledby="reports-title">
      <h1 id="reports-title">Reports</h1>
      <div className="reports__layout">
        <aside className="reports__side">
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
            onOpen={(id) => void open(id)}
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
          {opening ? <p className="empty">Opening…</p> : null}
          {report && !opening ? <ReportViewer report={report} /> : null}
          {!report && !opening && !failure ? <p className="empty">Open a saved report to read it by organization, service, subscription and billing line.</p> : null}
        </div>
      </div>
    </section>
  );
}
