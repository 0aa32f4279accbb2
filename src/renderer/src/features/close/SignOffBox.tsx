import { useId, useRef, useState } from 'react';
import type { MonthCloseView } from '@shared/schemas/month-close';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { escapeTo } from '@renderer/components/escape-to';
import { useAction } from '@renderer/hooks/use-action';
import { useFocusBackOnClose } from '@renderer/hooks/keyboard-focus';
import { countOf } from '@renderer/components/format-number';
import { formatDateTime } from '@renderer/components/format-time';
import { approvalRefusal, openSinceSignOffAdvice } from './approval-rule';
import { fetchedBeforeEndAdvice } from '@shared/model/period-end';

interface Props {
  view: MonthCloseView;
  openCount: number;
  onPrepare: () => Promise<void>;
  onApprove: () => Promise<void>;
  onReopen: (reason: string) => Promise<void>;
  /** The sign-off as a whole, for the screen to put the focus on once a step is done. */
  region: React.RefObject<HTMLDivElement | null>;
}

/** Reopening with a reason: a button that opens a one-line form. */
function ReopenForm({ onReopen, title }: { onReopen: (reason: string) => Promise<void>; title: string }): React.JSX.Element {
  const [reason, setReason] = useState('');
  const [open, setOpen] = useState(false);
  const action = useAction();
  const reasonId = useId();
  // Cancelled (or refused and closed), the form goes with the focus in it: back to the button that opened it.
  const opener = useRef<HTMLButtonElement>(null);
  useFocusBackOnClose(open, () => opener.current);
  if (!open)
    return (
      <>
        <button type="button" onClick={() => setOpen(true)} title={title} ref={opener}>
          Reopen…
        </button>
        <ErrorNote message={action.error} />
      </>
    );
  const reopen = async (event: React.FormEvent) => {
    event.preventDefault();
    const done = await action.run(async () => {
      await onReopen(reason.trim());
      return true;
    }, 'reopen');
    if (done) {
      setOpen(false);
      setReason('');
    }
  };
  return (
    <form className="signoff__form" onSubmit={(event) => void reopen(event)} onKeyDown={escapeTo(action.busy ? undefined : () => setOpen(false))}>
      <label htmlFor={reasonId} className="muted">
        Why reopen?
      </label>
      <input
        id={reasonId}
        value={reason}
        onChange={(event) => setReason(event.target.value)}
        placeholder="e.g. credit note from the service"
        maxLength={2000}
        autoFocus
      />
      <button type="submit" className="primary" disabled={!reason.trim() || action.busy}>
        {action.busy ? 'Reopening…' : 'Reopen the month'}
      </button>
      <button type="button" onClick={() => setOpen(false)}>
        Cancel
      </button>
      <ErrorNote message={action.error} />
    </form>
  );
}

function ContentHash({ hash }: { hash: string }): React.JSX.Element {
  return (
    <p className="signoff__hash">
      <span className="muted">Content hash</span>{' '}
      <code className="mono" title={hash} data-testid="content-hash">
        {hash}
      </code>
    </p>
  );
}

/**
 * The month's four-eyes sign-off: Prepare (when nothing is open), then Approve by a second person, each recorded as
 * the signed-in identity (never a typed name); who and when, the content hash, and reopening with a reason.
 */
export function SignOffBox(props: Props): React.JSX.Element {
  const since = props.view.teamOfflineSince;
  if (!since) return <SignOffSteps {...props} />;
  // One region: the steps inside it are its part, not a second "Sign-off" for a screen reader to land in.
  return (
    <div className="signoff" role="region" aria-label="Sign-off" ref={props.region} tabIndex={-1}>
      <p className="signoff__offline" role="status">
        The team ledger cannot be reached. This is the month as it was last read from it, at {formatDateTime(since)}: nothing can be reviewed, prepared or
        approved until it answers again.
      </p>
      <fieldset className="signoff__steps" disabled>
        <SignOffSteps {...props} region={null} />
      </fieldset>
    </div>
  );
}

/** The sign-off's own box: the region the screen focuses after a step, or — `region` null — a part of one. */
function regionOf(region: React.RefObject<HTMLDivElement | null> | null) {
  return region ? ({ role: 'region', 'aria-label': 'Sign-off', ref: region, tabIndex: -1 } as const) : {};
}

function SignOffSteps({
  view,
  openCount,
  onPrepare,
  onApprove,
  onReopen,
  region,
}: Omit<Props, 'region'> & { region: Props['region'] | null }): React.JSX.Element {
  const action = useAction();
  const whyId = useId();
  const { signOff, you } = view;
  const run = (step: () => Promise<void>, name: string) =>
    void action.run(async () => {
      await step();
      return true;
    }, name);

  if (signOff && view.state === 'draft') {
    // Signed on another fetch: this one is a draft (a restatement, or an older fetch).
    return (
      <div className="signoff signoff--signed" {...regionOf(region)}>
        <p className="muted">
          The month is {signOff.state === 'approved' ? 'Approved' : 'Prepared'} on another fetch (by {signOff.approvedBy ?? signOff.preparedBy}). To sign off
          this fetch, reopen the month with a reason.
        </p>
        <ReopenForm onReopen={onReopen} title="Reopening sends the month back to Draft; it is logged with your reason" />
      </div>
    );
  }

  if (signOff) {
    const approved = view.state === 'approved';
    const refusal = approvalRefusal(view);
    return (
      <div className="signoff signoff--signed" {...regionOf(region)}>
        {approved ? (
          <p className="signoff__who">
            Approved by <strong>{signOff.approvedBy}</strong> at {formatDateTime(signOff.approvedAt ?? '')}
          </p>
        ) : null}
        <p className="signoff__who">
          Prepared by <strong>{signOff.preparedBy}</strong> at {formatDateTime(signOff.preparedAt)}
        </p>
        <ContentHash hash={signOff.contentHash} />
        {/* Prepared, the approval's why says it (nobody may approve); Approved, this does. */}
        {openCount > 0 && approved ? (
          <p className="signoff__held" role="note" data-testid="open-since-sign-off">
            {openSinceSignOffAdvice(openCount)}
          </p>
        ) : null}
        {approved ? null : (
          <div className="signoff__approve">
            <button
              type="button"
              className="primary"
              disabled={refusal !== null || action.busy}
              aria-describedby={whyId}
              onClick={() => run(onApprove, 'approve')}
            >
              {action.busy ? 'Approving…' : 'Approve the month'}
            </button>
            <p id={whyId} className={`signoff__why ${openCount > 0 ? 'signoff__held' : 'muted'}`} data-testid="approval-rule">
              {refusal ??
                `Approving records you (${you}) and the time. You may not approve a month in which you accepted a high exception, or whose invoices you adjusted since its last approval.`}
            </p>
          </div>
        )}
        <ReopenForm
          onReopen={onReopen}
          title={
            approved
              ? 'An approver may reopen an Approved month; it goes back to Draft and is logged with your reason'
              : 'Reopening unlocks the reviews; it is logged with your reason'
          }
        />
        <ErrorNote message={action.error} />
      </div>
    );
  }

  // A fetch of a period not over yet is refused first: reviewing its exceptions would not make it the whole month.
  const early = view.fetchedBeforeEnd;
  const blocked = early !== null || openCount > 0;
  return (
    <div className="signoff" {...regionOf(region)}>
      <button type="button" className="primary" disabled={blocked || action.busy} aria-describedby={whyId} onClick={() => run(onPrepare, 'prepare')}>
        {action.busy ? 'Preparing…' : 'Prepare the month'}
      </button>
      <p id={whyId} className={`signoff__why ${early ? 'signoff__held' : 'muted'}`} data-testid="prepare-rule">
        {early
          ? fetchedBeforeEndAdvice(early.endDate, early.fetchedAt)
          : openCount > 0
            ? `${countOf(openCount, 'exception is', 'exceptions are')} still open: accept each with a note, or resolve it, first.`
            : `Nothing is open. Preparing records you (${you}), the time and a hash of the lines, and locks the reviews; a second person then approves.`}
      </p>
      <ErrorNote message={action.error} />
    </div>
  );
}

/**
 * The sign-off's place while the month is checked, the size of a Draft's (its button and two lines of why), so
 * that nothing below it moves when the checks come. Hidden from assistive technology: it says nothing yet.
 */
export function SignOffPending(): React.JSX.Element {
  return (
    <div className="signoff" aria-hidden="true">
      <button type="button" className="primary" disabled tabIndex={-1}>
        Prepare the month
      </button>
      <p className="signoff__why signoff__why--pending" />
    </div>
  );
}
