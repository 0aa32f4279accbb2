import { useCallback, useEffect, useState } from 'react';
import { COMMAND_KEY } from './use-report-shortcuts';
import { createPortal } from 'react-dom';
import type { ChannelOutput } from '@shared/contract';
import type { ReportFilter } from '@shared/report-filter';
import { call } from '@renderer/bridge';
import { receiveFile } from '@renderer/bridge/files';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { useAction } from '@renderer/hooks/use-action';
import { countOf, formatCount } from '@renderer/components/format-number';
import { PrintableReport } from './PrintableReport';
import './print.css';

/** The desktop app prints to a PDF itself (Electron's printToPDF); the browser bridge has the browser's own print. */
const desktop = Boolean(window.closebook);

const PACKS_HINT =
  'One workbook per organization group, and one for the organizations in no group ("Ungrouped"). An organization in two groups is in both packs.';

type GroupPacks = ChannelOutput<'reports:export-groups'>;

function PacksResult({ result }: { result: GroupPacks }): React.JSX.Element {
  const count = countOf(result.packs.length, 'workbook');
  return (
    <>
      <p role="status">{result.folder ? `${count} written to ${result.folder}` : `${count} downloaded`}</p>
      <table className="grid">
        <thead>
          <tr>
            <th>Group</th>
            <th className="num">Organizations</th>
            <th>File</th>
          </tr>
        </thead>
        <tbody>
          {result.packs.map((pack) => (
            <tr key={pack.fileName} data-testid="group-pack">
              <td>{pack.group ?? <em>Ungrouped</em>}</td>
              <td className="num">{formatCount(pack.organizations)}</td>
              <td className="mono">{pack.fileName}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="hint">An organization in two groups appears in both packs.</p>
    </>
  );
}

/**
 * The viewer's print and per-group actions. Print: the rows the printout needs are fetched into a print-only table
 * first (never the virtual list on screen), then the desktop app saves the window as a PDF and the browser opens its
 * print dialog. Workbooks per group: one workbook per organization group, into a folder (desktop) or as downloads.
 */
export function ViewerActions({
  reportId,
  reportName,
  filter,
  mode,
}: {
  reportId: string;
  reportName: string;
  filter: ReportFilter;
  mode: 'tree' | 'invoicing';
}): React.JSX.Element | null {
  const action = useAction();
  const [printing, setPrinting] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [packs, setPacks] = useState<GroupPacks | null>(null);

  // The browser's print dialog closes (printed or not): the print-only rows go (a big report would keep them in the DOM).
  useEffect(() => {
    if (!printing || desktop) return;
    const done = () => setPrinting(false);
    window.addEventListener('afterprint', done);
    return () => window.removeEventListener('afterprint', done);
  }, [printing]);

  const close = () => {
    setNotice(null);
    setPacks(null);
    action.clearError();
  };
  const startPrint = () => {
    close();
    setPrinting(true);
  };
  const printReady = useCallback(() => {
    if (!desktop) {
      // After this commit is laid out; the dialog blocks until it closes, then 'afterprint' clears the rows.
      setTimeout(() => window.print());
      return;
    }
    void action.run(async () => setNotice(receiveFile(await call('view:print-pdf', { fileName: reportName }))), 'print').finally(() => setPrinting(false));
  }, [action, reportName]);
  const printFailed = useCallback(
    (message: string) => {
      setPrinting(false);
      action.setError(`The rows to print could not be read: ${message}`);
    },
    [action],
  );

  const exportGroups = () => {
    close();
    void action.run(async () => {
      const result = await call('reports:export-groups', { reportId, filter });
      if (result.packs.length === 0) return; // cancelled
      // The browser bridge hands each workbook over as a download of its own.
      for (const pack of result.packs) receiveFile(pack.file);
      setPacks(result);
    }, 'packs');
  };

  return (
    <div className="viewer-actions">
      <button
        type="button"
        data-shortcut="print"
        onClick={startPrint}
        disabled={printing || action.busy}
        title={`${desktop ? 'Save the report as a PDF (landscape A4)' : 'Print the report, or save it as a PDF from the print dialog'} (${COMMAND_KEY}P)`}
      >
        {printing ? 'Preparing…' : desktop ? 'Save as PDF…' : 'Print…'}
      </button>
      <button type="button" onClick={exportGroups} disabled={action.busy} title={PACKS_HINT}>
        {action.running === 'packs' ? 'Writing workbooks…' : 'Workbooks per group…'}
      </button>
      {notice || action.error || packs ? (
        <div className="viewer-actions__popover panel" role="region" aria-label={packs ? 'Workbooks per group' : 'Print'}>
          {notice ? (
            <p className="notice" role="status">
              {notice}
            </p>
          ) : null}
          <ErrorNote message={action.error} />
          {packs ? <PacksResult result={packs} /> : null}
          <button type="button" onClick={close}>
            Close
          </button>
        </div>
      ) : null}
      {createPortal(
        printing ? (
          <PrintableReport reportId={reportId} filter={filter} mode={mode} onReady={printReady} onError={printFailed} />
        ) : (
          <p className="print-note">To print every row, use {desktop ? 'Save as PDF…' : 'Print…'} in the report's toolbar.</p>
        ),
        document.body,
      )}
    </div>
  );
}
