import { openTotal } from '@shared/model/review-state';
import { useState } from 'react';
import type { ReportMeta } from '@shared/schemas/saved-report';
import { call } from '@renderer/bridge';
import { receiveFile } from '@renderer/bridge/files';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { useAction } from '@renderer/hooks/use-action';
import type { MonthCloseView } from '@shared/schemas/month-close';
import { formatDateTime } from '@renderer/components/format-time';
import { formatCount } from '@renderer/components/format-number';
import { SEVERITIES, SEVERITY_LABELS } from './exception-list';
import { monthLabel } from './month-label';
import { fetchedBeforeEndText, partialFetch } from '@shared/model/period-end';

/** Where the month stands, in words: Draft, Prepared or Approved (on this fetch or another), or changed after sign-off. */
function MonthState({ view }: { view: MonthCloseView }): React.JSX.Element {
  const { signOff, integrity } = view;
  const broken = signOff !== null && (integrity.contentChanged === true || !integrity.logIntact);
  const elsewhere = signOff !== null && signOff.reportId !== view.reportId;
  return (
    <span className="close__states" data-testid="close-state">
      {broken ? (
        <span className="state-badge state-badge--broken" title="The signed lines or the close log no longer match what was signed">
          Changed after sign-off
        </span>
      ) : view.state === 'approved' && signOff ? (
        <span className="state-badge state-badge--signed" title={`Content hash ${signOff.contentHash}`}>
          Approved by {signOff.approvedBy} at {formatDateTime(signOff.approvedAt ?? '')}
        </span>
      ) : view.state === 'prepared' && signOff ? (
        <span className="state-badge state-badge--prepared" title={`Content hash ${signOff.contentHash}`}>
          Prepared by {signOff.preparedBy} at {formatDateTime(signOff.preparedAt)}
        </span>
      ) : (
        <span className="state-badge state-badge--draft">
          Draft{elsewhere ? ` · the month is ${signOff.state === 'approved' ? 'Approved' : 'Prepared'} on another fetch` : ''}
        </span>
      )}
      {view.readyToInvoice ? (
        <span className="state-badge state-badge--ready" title={view.state === 'prepared' ? 'Not approved by a second person' : 'Approved by a second person'}>
          Ready to invoice{view.state === 'prepared' ? ' (not approved by a second person)' : ''}
        </span>
      ) : null}
      {view.superseded ? (
        <span className="state-badge state-badge--superseded" title="The ledger holds a newer fetch of this month; checks and sign-off count the newest one">
          Superseded by a newer fetch
        </span>
      ) : null}
      {view.fetchedBeforeEnd ? (
        <span className="state-badge state-badge--partial" title={`${fetchedBeforeEndText(view.fetchedBeforeEnd.endDate, view.fetchedBeforeEnd.fetchedAt)}.`}>
          Partial
        </span>
      ) : null}
    </span>
  );
}

/** The month's evidence pack for an auditor (one PDF): state, who and when, the hash, every exception and the log. */
function EvidenceButton({ reportId }: { reportId: string }): React.JSX.Element {
  const action = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const make = () => {
    setNotice(null);
    void action.run(async () => setNotice(receiveFile(await call('close:evidence', { reportId }))), 'evidence');
  };
  return (
    <p className="close__evidence">
      <button type="button" className="link" onClick={make} disabled={action.busy}>
        {action.busy ? 'Writing the evidence…' : 'Evidence for the auditor (PDF)…'}
      </button>
      {notice ? (
        <span className="muted" role="status">
          {' '}
          {notice}
        </span>
      ) : null}
      <ErrorNote message={action.error} />
    </p>
  );
}

/** Open exceptions by severity, the most severe first; a zero reads as done. */
export function OpenCounts({ open }: { open: MonthCloseView['open'] }): React.JSX.Element {
  const total = openTotal(open);
  return (
    <span className="open-counts" aria-label={`Open exceptions: ${total}`} data-testid="open-counts">
      {total === 0 ? (
        <span className="open-counts__none">No open exceptions</span>
      ) : (
        <>
          <span className="muted">Open:</span>
          {SEVERITIES.map((severity) => (
            <span key={severity} className={`sev sev--${severity}${open[severity] === 0 ? ' sev--zero' : ''}`}>
              {SEVERITY_LABELS[severity]} {formatCount(open[severity])}
            </span>
          ))}
        </>
      )}
    </span>
  );
}

/** The month being closed: its name, state, open exceptions, and what this report is (profile, fetch time). */
export function CloseHeader({ meta, view, children }: { meta: ReportMeta; view: MonthCloseView | null; children?: React.ReactNode }): React.JSX.Element {
  const previous = view?.previousPeriod ?? null;
  // Said on every tab: the comparison too is with what was billed by then (the Exceptions tab says more).
  const partial = partialFetch(previous?.endDate, view?.previousFetchedAt) ? ' (Partial)' : '';
  const against = !view ? 'looking for the month before…' : previous ? `checked against ${monthLabel(previous)}${partial}` : 'nothing earlier to check against';
  const fetch = `${meta.profileName} · fetched ${formatDateTime(meta.fetchedAt)} · ${against}`;
  return (
    <div className="close__head">
      <div className="close__title">
        <h3>Close {monthLabel(meta.period)}</h3>
        <div className="close__status">
          {view ? (
            <>
              <MonthState view={view} />
              <OpenCounts open={view.open} />
            </>
          ) : (
            // A badge's height, as the state that replaces it: the tabs below stay where they are when the checks come.
            <span className="state-badge state-badge--pending">Checking the month…</span>
          )}
        </div>
        <p className="muted close__fetch" title={fetch}>
          {fetch}
        </p>
        <EvidenceButton reportId={meta.id} />
      </div>
      {children}
    </div>
  );
}
