import { useEffect, useMemo, useRef, useState } from 'react';
import { currentUsageMonth, lastUsageMonth, periodInWords, stateInWords, taskRunning, usagePeriod } from '@shared/consumption-batch';
import { failureStillApplies, validateRows } from '@shared/consumption-rows';
import { CONSUMPTION_FIELDS, PLAIN_HEADERS } from '@shared/schemas/consumption';
import { bridge, call } from '@renderer/bridge';
import { receiveFile } from '@renderer/bridge/files';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { formatDateTime } from '@renderer/components/format-time';
import { useAction } from '@renderer/hooks/use-action';
import { useFocusBackOnClose } from '@renderer/hooks/keyboard-focus';
import { SidePanelToggle, useSidePanel } from '@renderer/components/SidePanelToggle';
import { useActiveProfile, useAppStore } from '@renderer/stores/app-store';
import { BatchGrid } from './BatchGrid';
import { useConsumption } from './consumption-store';
import { NamesNote } from './NamesNote';
import { PastBatch } from './PastBatch';
import { ReplaceQuestion } from './ReplaceQuestion';
import { SubmissionPanel } from './SubmissionPanel';
import { useNamesLookup } from './use-names-lookup';
import './consumption.css';
import { counted } from '@shared/counted';

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let index = 0; index < bytes.length; index += 0x8000) binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  return btoa(binary);
}

/**
 * Metered consumption: import or type a batch, give its month, fix it, submit it, watch the task, and fix what the
 * service refused. Past batches open read-only; "Copy to a new batch" makes one editable again.
 */
export function ConsumptionScreen(): React.JSX.Element {
  const profile = useActiveProfile();
  const go = useAppStore((state) => state.go);
  const {
    batch,
    submission,
    opened,
    history,
    failure,
    repeatWarning,
    notice: batchNotice,
    busy,
    load,
    newBatch,
    startFrom,
    copyToNewBatch,
    setMonth,
    submit,
    dontSend,
    refreshHistory,
    openPast,
    applyProgress,
    forgetNames,
  } = useConsumption();
  const fileInput = useRef<HTMLInputElement>(null);
  const [pasted, setPasted] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const [showRow, setShowRow] = useState<{ row: number; request: number } | null>(null);
  /** A replacement of the batch waiting for a yes: what would replace it, and how. */
  const [replacing, setReplacing] = useState<{ by: string; replace: () => void } | null>(null);
  const templateAction = useAction();
  // Below this width the grid needs the whole row: import and history step aside while a batch is open.
  const side = useSidePanel('(min-width: 1180px)', Boolean(batch || opened));
  const sideShown = side.shown;

  useEffect(() => {
    void refreshHistory();
    // Reports saved since the screen was last open may name more subscriptions.
    forgetNames();
    return bridge.on('consumption:progress', applyProgress);
  }, [refreshHistory, applyProgress, forgetNames]);
  // A past batch is named from the reports of the profile it was sent with.
  useNamesLookup(opened ? opened.profileId : (profile?.id ?? null), opened ? opened.rows : (batch?.rows ?? []));

  // Last month's rows: the newest batch of this profile the service accepted for a month before the one a new batch is for.
  const lastMonth = history.find(
    (item) => item.state === 'Successful' && item.profileId === profile?.id && item.period && item.period.startDate.slice(0, 7) < lastUsageMonth(new Date()),
  );
  const lastMonthWords = lastMonth?.period ? periodInWords(lastMonth.period) : '';
  const validation = useMemo(() => (batch ? validateRows(batch.rows) : null), [batch]);
  const firstProblem = validation?.problems.find((problem) => problem.row > 0);
  const running = submission !== null && taskRunning(submission.state);
  const period = batch ? usagePeriod(batch.month) : undefined;
  const failures = submission?.state === 'Failed' ? submission.failures : (batch?.copiedFailures ?? []);
  // The row to show first: a problem found here, else the first row the service refused that is not fixed yet.
  const firstRefused = useMemo(() => {
    const rows = new Map((batch?.rows ?? []).map((row) => [row.row, row]));
    return failures.find((failure) => {
      const row = failure.row === null ? undefined : rows.get(failure.row);
      return row !== undefined && failureStillApplies(failure, row);
    })?.row;
  }, [failures, batch]);
  const rowToShow = firstProblem?.row ?? firstRefused ?? null;
  // Submit is locked while the task runs, and the keyboard falls off it; the task ended, it goes to Show row (a task
  // refused), else to the line saying how the task ended.
  const showRowButton = useRef<HTMLButtonElement>(null);
  const submissionState = useRef<HTMLDivElement>(null);
  useFocusBackOnClose(running, () => showRowButton.current ?? submissionState.current);
  const canSubmit = Boolean(profile && batch && !batch.fileProblems.length && validation && validation.problems.length === 0 && period && !busy && !running);

  /** Replaces the batch at once, or asks first when that would drop rows typed or fixed here and not sent. */
  const replaceBatch = (by: string, replace: () => void) => {
    if (batch?.edited) setReplacing({ by, replace });
    else {
      setReplacing(null);
      replace();
    }
  };

  const openFile = (file: File | undefined) => {
    // Cleared at once, so choosing the same file again (after "Keep my batch") still reads it.
    if (fileInput.current) fileInput.current.value = '';
    if (!file) return;
    replaceBatch(`Opening ${file.name}`, () => void file.arrayBuffer().then((bytes) => load(file.name, toBase64(new Uint8Array(bytes)))));
  };

  const template = async (format: 'xlsx' | 'csv') => {
    setNotice(null);
    await templateAction.run(async () => setNotice(receiveFile(await call('consumption:template', { format }))));
  };

  const status = !validation
    ? ''
    : validation.problems.length
      ? `${counted(validation.problems.length, 'problem')} to fix before submitting`
      : !period
        ? 'Choose the month the usage is for'
        : `${counted(validation.records.length, 'record')} ready · usage for ${periodInWords(period)}`;

  return (
    <section className="screen consumption" aria-labelledby="consumption-title">
      <div className="screen__header">
        <h1 id="consumption-title">Consumption</h1>
        {batch || opened ? <SidePanelToggle panel={side} controls="consumption-side" what="import and history" /> : null}
      </div>
      <div className={`reports__layout${sideShown ? '' : ' reports__layout--list-hidden'}`}>
        {/* Hidden, not removed: pasted text and the file input keep their state. */}
        <aside className="reports__side" id="consumption-side" hidden={!sideShown}>
          <section className="panel" aria-label="Import consumption">
            <h2>Import a batch</h2>
            <div className="toolbar">
              <button type="button" className="primary" onClick={() => fileInput.current?.click()} disabled={busy}>
                Open CSV or Excel file…
              </button>
              {/* Not while a file is read: its rows would land over the typed ones. */}
              <button type="button" onClick={() => replaceBatch('A new batch of typed rows', newBatch)} disabled={busy}>
                Type rows
              </button>
              {lastMonth?.period ? (
                <button
                  type="button"
                  onClick={() => replaceBatch(`Starting from ${lastMonthWords}`, () => void startFrom(lastMonth))}
                  disabled={busy}
                  title={`A new batch with the subscriptions and add-ons of ${lastMonth.fileName} (${lastMonthWords}), quantities left to fill in`}
                >
                  Start from {lastMonthWords}
                </button>
              ) : null}
            </div>
            <input
              ref={fileInput}
              type="file"
              hidden
              accept=".csv,.txt,.xlsx"
              aria-label="Consumption file"
              onChange={(event) => openFile(event.target.files?.[0])}
            />
            <p className="hint">
              Columns: {CONSUMPTION_FIELDS.map((field) => PLAIN_HEADERS[field]).join(', ')} (any case; the spec's names work too). Your own columns (a customer,
              a cost centre) are kept and shown, never sent. Quantities: 12.5 or 12,5; write 1234 or 1.234, not the ambiguous 1,234.
            </p>
            <div className="toolbar">
              <span className="muted">Template:</span>
              <button type="button" className="link" onClick={() => void template('xlsx')}>
                Excel
              </button>
              <button type="button" className="link" onClick={() => void template('csv')}>
                CSV
              </button>
            </div>
            <label className="field paste">
              <span>Or paste rows (with their header row) from a spreadsheet</span>
              <textarea aria-label="Pasted rows" rows={3} value={pasted} onChange={(event) => setPasted(event.target.value)} />
            </label>
            <button
              type="button"
              disabled={!pasted.trim()}
              onClick={() =>
                replaceBatch(
                  'Reading the pasted rows',
                  () => void load('pasted rows.csv', toBase64(new TextEncoder().encode(pasted))).then(() => setPasted('')),
                )
              }
            >
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
                <li key={item.id} className={`report-item${opened?.id === item.id ? ' report-item--open' : ''}`} data-testid="history-item">
                  <button type="button" className="report-item__name link" title="Open this batch (read-only)" onClick={() => void openPast(item.id)}>
                    {item.fileName}
                  </button>
                  {submission?.id === item.id ? <span className="tag">current batch</span> : null}
                  <div className="report-item__detail">
                    <span className={`state state--${item.state}`} data-testid="history-state">
                      {stateInWords(item)}
                    </span>
                    <div data-testid="history-period">
                      {item.period ? `Usage for ${periodInWords(item.period)}` : 'No month given'} · {item.recordCount} records
                    </div>
                    <div>
                      {formatDateTime(item.createdAt)} · {item.profileName}
                    </div>
                    {item.taskId ? <div className="mono">task {item.taskId}</div> : null}
                  </div>
                </li>
              ))}
            </ul>
          </section>
        </aside>
        <div className="reports__main consumption__main">
          <ErrorNote message={failure} />
          {replacing && batch ? (
            <ReplaceQuestion
              by={replacing.by}
              batch={batch}
              onReplace={() => {
                setReplacing(null);
                replacing.replace();
              }}
              onKeep={() => setReplacing(null)}
            />
          ) : null}
          {opened ? (
            <PastBatch submission={opened} onCopy={() => replaceBatch('Copying this batch', copyToNewBatch)} />
          ) : (
            <>
              {submission ? <SubmissionPanel submission={submission} stateRef={submissionState} /> : null}
              {batch ? (
                <section className="panel" aria-label="Batch">
                  <div className="panel__header batch-header">
                    <h2>
                      {batch.fileName} <span className="muted">({counted(batch.rows.length, 'row')})</span>
                    </h2>
                    <label className="usage-month">
                      Usage for{' '}
                      <input
                        type="month"
                        aria-label="Usage month"
                        value={batch.month}
                        max={currentUsageMonth(new Date())}
                        disabled={running}
                        required
                        onChange={(event) => setMonth(event.target.value)}
                      />
                    </label>
                    {batch.sheets.length > 1 && batch.base64 ? (
                      <label>
                        Sheet{' '}
                        <select
                          value={batch.sheet ?? ''}
                          aria-label="Sheet"
                          disabled={running}
                          onChange={(event) => {
                            const sheet = event.target.value;
                            replaceBatch(`Reading the sheet ${sheet}`, () => void load(batch.fileName, batch.base64 as string, sheet));
                          }}
                        >
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
                  {batch.extraColumns.length ? (
                    <p className="muted" data-testid="own-columns">
                      Your own columns, kept and shown but not sent: {batch.extraColumns.join(', ')}
                    </p>
                  ) : null}
                  {batch.ignoredColumns.length ? <p className="muted">Ignored columns (more than Closebook keeps): {batch.ignoredColumns.join(', ')}</p> : null}
                  {running && submission ? (
                    <p className="lock-note" role="status" data-testid="batch-locked">
                      Locked while the service works on this batch ({stateInWords(submission).toLowerCase()}): it cannot be changed or sent again until the task
                      ends.
                    </p>
                  ) : null}
                  {!batch.fileProblems.length ? (
                    <BatchGrid rows={batch.rows} showRow={showRow} extraColumns={batch.extraColumns} failures={failures} readOnly={running} />
                  ) : null}
                  <div className="submit-bar">
                    <span>
                      <span data-testid="batch-status" className={validation?.problems.length || !period ? 'warn-text' : 'muted'}>
                        {status}
                      </span>
                      {rowToShow !== null ? (
                        <button
                          type="button"
                          className="link"
                          onClick={() => setShowRow((shown) => ({ row: rowToShow, request: (shown?.request ?? 0) + 1 }))}
                          ref={showRowButton}
                        >
                          Show row {rowToShow}
                        </button>
                      ) : null}
                    </span>
                    {profile ? (
                      <button
                        type="button"
                        className="primary"
                        disabled={!canSubmit}
                        title={running ? 'The task of this batch is still running' : undefined}
                        onClick={() => void submit(profile.id)}
                      >
                        {busy ? 'Submitting…' : submission?.state === 'Failed' ? 'Submit the whole batch again' : 'Submit batch'}
                      </button>
                    ) : (
                      <button type="button" className="link" onClick={() => go('profiles')}>
                        Choose a profile to submit
                      </button>
                    )}
                  </div>
                  {repeatWarning && profile ? (
                    <div className="error-note repeat-warning" role="alertdialog" aria-label="Send this batch again?">
                      <p>{repeatWarning}</p>
                      <div className="toolbar">
                        <button type="button" className="danger" onClick={() => void submit(profile.id, true)}>
                          Send again
                        </button>
                        <button type="button" className="primary" onClick={dontSend}>
                          Don't send
                        </button>
                      </div>
                    </div>
                  ) : null}
                  {batchNotice ? (
                    <p className="notice" role="status">
                      {batchNotice}
                    </p>
                  ) : null}
                  {/* Below the grid and its Submit: it comes with the names' answer, and must not move what is about to be clicked. */}
                  <NamesNote hasProfile={Boolean(profile)} />
                </section>
              ) : (
                <p className="empty">Open a CSV or Excel file, paste rows, or type them, to prepare a batch of metered consumption.</p>
              )}
            </>
          )}
        </div>
      </div>
    </section>
  );
}
