import { useEffect, useMemo, useRef, useState } from 'react';
import { validateRows } from '../../../../shared/consumption-rows';
import { CONSUMPTION_FIELDS, PLAIN_HEADERS } from '../../../../shared/schemas/consumption';
import { bridge, call } from '../../bridge';
import { receiveFile } from '../../bridge/files';
import { ErrorNote } from '../../components/ErrorNote';
import { formatDateTime } from '../../components/format-time';
import { useAction } from '../../components/use-action';
import { useActiveProfile, useAppStore } from '../../stores/app-store';
import { BatchGrid } from './BatchGrid';
import { useConsumption } from './consumption-store';
import { SubmissionPanel } from './SubmissionPanel';

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let index = 0; index < bytes.length; index += 0x8000) binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  return btoa(binary);
}

/** Metered consumption: import or type a batch, fix it, submit it, watch the task, and fix what the service refused. */
export function ConsumptionScreen(): React.JSX.Element {
  const profile = useActiveProfile();
  const go = useAppStore((state) => state.go);
  const { batch, submission, history, failure, repeatWarning, busy, load, newBatch, submit, refreshHistory, showSubmission, applyProgress } = useConsumption();
  const fileInput = useRef<HTMLInputElement>(null);
  const [pasted, setPasted] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const templateAction = useAction();

  useEffect(() => {
    void refreshHistory();
    return bridge.on('consumption:progress', applyProgress);
  }, [refreshHistory, applyProgress]);

  const validation = useMemo(() => (batch ? validateRows(batch.rows) : null), [batch]);
  const failures = submission?.state === 'Failed' ? submission.failures : [];
  const canSubmit = Boolean(profile && batch && !batch.fileProblems.length && validation && validation.problems.length === 0 && !busy);

  const openFile = async (file: File | undefined) => {
    if (!file) return;
    await load(file.name, toBase64(new Uint8Array(await file.arrayBuffer())));
    if (fileInput.current) fileInput.current.value = '';
  };

  const template = async (format: 'xlsx' | 'csv') => {
    setNotice(null);
    await templateAction.run(async () => setNotice(receiveFile(await call('consumption:template', { format }))));
  };

  return (
    <section className="screen consumption" aria-labelledby="consumption-title">
      <h1 id="consumption-title">Consumption</h1>
      <div className="reports__layout">
        <aside className="reports__side">
          <section className="panel" aria-label="Import consumption">
            <h2>Import a batch</h2>
            <div className="toolbar">
              <button type="button" className="primary" onClick={() => fileInput.current?.click()} disabled={busy}>
                Open CSV or Excel file…
              </button>
              <button type="button" onClick={newBatch}>
                Type rows
              </button>
            </div>
            <input ref={fileInput} type="file" hidden accept=".csv,.txt,.xlsx" aria-label="Consumption file" onChange={(event) => void openFile(event.target.files?.[0])} />
            <p className="hint">
              Columns: {CONSUMPTION_FIELDS.map((field) => PLAIN_HEADERS[field]).join(', ')} (any case; the spec's names work too). CSV with “,” or “;” (then decimal commas).
            </p>
            <div className="toolbar">
              <span className="muted">Template:</span>
              <button type="button" className="link" onClick={() => void template('xlsx')}>Excel</button>
              <button type="button" className="link" onClick={() => void template('csv')}>CSV</button>
            </div>
            <label className="field paste">
              <span>Or paste rows (with their header row) from a spreadsheet</span>
              <textarea aria-label="Pasted rows" rows={3} value={pasted} onChange={(event) => setPasted(event.target.value)} />
            </label>
            <button type="button" disabled={!pasted.trim()} onClick={() => void load('pasted rows.csv', toBase64(new TextEncoder().encode(pasted))).then(() => setPasted(''))}>
              Read pasted rows
            </button>
            {notice ? <p className="notice">{notice}</p> : null}
            <ErrorNote message={templateAction.error} />
          </section>
          <section className="panel" aria-label="Submission history">
            <h2>History</h2>
            {history.length === 0 ? <p className="empty">No submissions yet.</p> : null}
            <ul className="report-list">
              {history.map((item) => (
                <li key={item.id} className={`report-item${submission?.id === item.id ? ' report-item--open' : ''}`} data-testid="history-item">
                  <button type="button" className="report-item__name link" onClick={() => void showSubmission(item.id)}>
                    {item.fileName}
                  </button>
                  <div className="report-item__detail">
                    <span className={`state state--${item.state}`}>{item.state}</span> · {item.recordCount} records · {formatDateTime(item.createdAt)} · {item.profileName}
                    {item.taskId ? <div className="mono">task {item.taskId}</div> : null}
                  </div>
                </li>
              ))}
            </ul>
          </section>
        </aside>
        <div className="reports__main consumption__main">
          <ErrorNote message={failure} />
          {submission ? <SubmissionPanel submission={submission} /> : null}
          {batch ? (
            <section className="panel" aria-label="Batch">
              <div className="panel__header">
                <h2>
                  {batch.fileName} <span className="muted">({batch.rows.length} rows)</span>
                </h2>
                {batch.sheets.length > 1 && batch.base64 ? (
                  <label>
                    Sheet{' '}
                    <select value={batch.sheet ?? ''} aria-label="Sheet" onChange={(event) => void load(batch.fileName, batch.base64 as string, event.target.value)}>
                      {batch.sheets.map((sheet) => (
                        <option key={sheet}>{sheet}</option>
                      ))}
                    </select>
                  </label>
                ) : null}
              </div>
              {batch.fileProblems.map((problem) => (
                <ErrorNote key={problem} message={problem} />
              ))}
              {batch.ignoredColumns.length ? <p className="muted">Ignored columns: {batch.ignoredColumns.join(', ')}</p> : null}
              {!batch.fileProblems.length ? <BatchGrid rows={batch.rows} failures={failures} /> : null}
              <div className="submit-bar">
                <span data-testid="batch-status" className={validation?.problems.length ? 'warn-text' : 'muted'}>
                  {validation?.problems.length ? `${validation.problems.length} problem${validation.problems.length === 1 ? '' : 's'} to fix before submitting` : `${validation?.records.length ?? 0} records ready`}
                </span>
                {profile ? (
                  <button type="button" className="primary" disabled={!canSubmit} onClick={() => void submit(profile.id)}>
                    {busy ? 'Submitting…' : submission?.state === 'Failed' ? 'Submit the whole batch again' : 'Submit batch'}
                  </button>
                ) : (
                  <button type="button" className="link" onClick={() => go('profiles')}>
                    Choose a profile to submit
                  </button>
                )}
              </div>
              {repeatWarning && profile ? (
                <div className="error-note" role="alertdialog" aria-label="Send this batch again?">
                  <p>{repeatWarning}</p>
                  <button type="button" className="danger" onClick={() => void submit(profile.id, true)}>
                    Send it again anyway
                  </button>
                </div>
              ) : null}
            </section>
          ) : (
            <p className="empty">Open a CSV or Excel file, paste rows, or type them, to prepare a batch of metered consumption.</p>
          )}
        </div>
      </div>
    </section>
  );
}
