import { memo, useId, useRef, useState } from 'react';
import type { BillingException, Review, ReviewState } from '@shared/schemas/month-close';
import { describeFigures } from '@shared/model/review-state';
import { escapeTo } from '@renderer/components/escape-to';
import { formatDateTime } from '@renderer/components/format-time';
import { useFocusBackOnClose } from '@renderer/hooks/keyboard-focus';
import { afterTitle, messageText, placeOf, reviewStateOf, SEVERITY_LABELS } from './exception-list';

/** What reviewing an exception asks of the screen: a state with a note (which may fail, e.g. the month was signed off meanwhile). */
export type ReviewAction = (exception: BillingException, state: ReviewState, note: string) => Promise<boolean>;

/** How a row is to be opened in the report's tree (the viewer decides how). */
export type ShowInReport = (exception: BillingException) => void;

const LOCKED = 'Reviews are locked: the month is Prepared or Approved (reopen it to change them), or the team ledger cannot be reached';

export function ReviewCell({ review }: { review: Review | null }): React.JSX.Element {
  if (!review) return <span className="review review--open">Open</span>;
  const word = review.state === 'accepted' ? 'Accepted' : 'Resolved';
  return (
    <span className={`review review--${review.suspended ? 'suspended' : review.state}`}>
      <span className="review__state">{review.suspended ? `${word} — suspended` : word}</span>{' '}
      <span className="muted">
        by {review.reviewedBy}, {formatDateTime(review.reviewedAt)}
        {review.capturedAtMigration ? ' · evidence captured at migration' : ''}
      </span>
      {review.note ? <span className="review__note">“{review.note}”</span> : null}
      {review.suspended ? (
        <span className="review__suspended" data-testid="suspended-figures">
          The figures changed since: reviewed on {describeFigures(review.suspended.reviewed)}; now {describeFigures(review.suspended.now)}. Review it again.
        </span>
      ) : null}
    </span>
  );
}

/** The note an acceptance needs, in the row's own second line. */
export function NoteForm({
  label,
  submitLabel,
  busy,
  onSubmit,
  onCancel,
}: {
  label: string;
  submitLabel: string;
  busy: boolean;
  onSubmit: (note: string) => void;
  onCancel: () => void;
}): React.JSX.Element {
  const [note, setNote] = useState('');
  const id = useId();
  return (
    <form
      className="note-form"
      onKeyDown={escapeTo(busy ? undefined : onCancel)}
      onSubmit={(event) => {
        event.preventDefault();
        if (note.trim()) onSubmit(note.trim());
      }}
    >
      <label htmlFor={id}>{label}</label>
      <input id={id} value={note} onChange={(event) => setNote(event.target.value)} maxLength={2000} placeholder="A note is required" autoFocus />
      <button type="submit" className="primary" disabled={!note.trim() || busy}>
        {submitLabel}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}

/** Which note is being written on a row: its acceptance or its resolution (null: none). */
export type Noting = 'accepted' | 'resolved' | null;

/** The button of `row` that opened its note (Accept… or Resolve…), to give the focus back to once the note closes. */
export const noteOpener = (row: Element | null, noting: Exclude<Noting, null>) => row?.querySelector<HTMLElement>(`[data-control="${noting}"]`);

/**
 * A row's review buttons, as an exception and a finding have them: Accept… and Resolve… (Resolve asks for a note when
 * `resolveNeedsNote`) while something needs a review, else Reopen; then Show in report.
 */
export function ReviewButtons({
  needsReview,
  resolveNeedsNote,
  locked,
  busy,
  noting,
  onNoting,
  onResolve,
  onReopen,
  onShow,
  acceptLabel = 'Accept…',
  titles,
}: {
  needsReview: boolean;
  resolveNeedsNote: boolean;
  locked: boolean;
  busy: boolean;
  noting: Noting;
  onNoting: (noting: Noting) => void;
  /** Resolve with no note (a low one). */
  onResolve: () => void;
  onReopen: () => void;
  onShow: () => void;
  acceptLabel?: string;
  titles: { accept: string; reopen: string; show: string };
}): React.JSX.Element {
  const disabled = locked || busy;
  return (
    <div className="exc__buttons">
      {needsReview ? (
        <>
          <button
            type="button"
            onClick={() => onNoting('accepted')}
            disabled={disabled || noting !== null}
            title={locked ? LOCKED : titles.accept}
            data-control="accepted"
          >
            {acceptLabel}
          </button>
          <button
            type="button"
            onClick={() => (resolveNeedsNote ? onNoting('resolved') : onResolve())}
            disabled={disabled || noting !== null}
            title={locked ? LOCKED : 'It was wrong and is put right (e.g. corrected in the ERP)'}
            data-control="resolved"
          >
            {resolveNeedsNote ? 'Resolve…' : 'Resolve'}
          </button>
        </>
      ) : (
        <button type="button" onClick={onReopen} disabled={disabled} title={locked ? LOCKED : titles.reopen}>
          Reopen
        </button>
      )}
      <button type="button" className="link" onClick={onShow} title={titles.show}>
        Show in report
      </button>
    </div>
  );
}

/** The note an acceptance or resolution needs, in a row of its own under the row it is for. */
export function NoteRow({
  noting,
  labels,
  busy,
  onSubmit,
  onCancel,
}: {
  noting: Exclude<Noting, null>;
  labels: Record<Exclude<Noting, null>, string>;
  busy: boolean;
  onSubmit: (note: string) => void;
  onCancel: () => void;
}): React.JSX.Element {
  return (
    <tr className="exc__note-row">
      <td colSpan={4}>
        <NoteForm label={labels[noting]} submitLabel={noting === 'accepted' ? 'Accept' : 'Resolve'} busy={busy} onSubmit={onSubmit} onCancel={onCancel} />
      </td>
    </tr>
  );
}

interface Props {
  exception: BillingException;
  locked: boolean;
  busy: boolean;
  onReview: ReviewAction;
  onShow: ShowInReport;
  /** The exception a link opened the list on: marked, and focusable so the keyboard starts there. */
  highlighted?: boolean;
  /** Its rule's title before its words (where the list is not grouped by rule). */
  showTitle?: boolean;
}

/** One exception: who and where, what was found (the rule's words in the tooltip), its review, and what can be done. */
export const ExceptionRow = memo(function ExceptionRow({
  exception,
  locked,
  busy,
  onReview,
  onShow,
  highlighted = false,
  showTitle = false,
}: Props): React.JSX.Element {
  const [noting, setNoting] = useState<Noting>(null);
  const row = useRef<HTMLTableRowElement>(null);
  useFocusBackOnClose(noting, (openedWith) => noteOpener(row.current, openedWith));
  const state = reviewStateOf(exception);
  const needsReview = state === 'open' || state === 'suspended';
  // Resolving a high or medium exception needs a note too: how it was put right.
  const resolveNeedsNote = exception.severity !== 'low';
  const place = placeOf(exception);
  const where = exception.path.length ? 'Open this row in the report tree' : 'Show this organization in the report tree (the row is not in this month)';
  return (
    <>
      <tr
        className={`exc exc--${state}${highlighted ? ' exc--linked' : ''}`}
        data-testid="exception-row"
        data-rule={exception.rule}
        data-state={state}
        data-exception-id={exception.id}
        aria-current={highlighted || undefined}
        tabIndex={highlighted ? -1 : undefined}
        ref={row}
      >
        <td className="exc__who">
          <span className="exc__org" title={exception.organization}>
            {exception.organization || <em>(no name)</em>}
          </span>
          <span className="muted exc__cust">{exception.customerNumber || 'no customer number'}</span>
          {place ? (
            <span className="muted exc__place" title={place}>
              {place}
            </span>
          ) : null}
        </td>
        <td className="exc__message" title={`${exception.title}: ${exception.explanation}`}>
          {/* Grouped by rule, the group's header says the severity; a finding of one reason says it here, as one of several does. */}
          {showTitle ? (
            <>
              <span className={`sev sev--${exception.severity}`}>{SEVERITY_LABELS[exception.severity]}</span>{' '}
              <strong className="exc__title">{exception.title}. </strong>
            </>
          ) : null}
          {showTitle ? afterTitle(exception) : messageText(exception)}
        </td>
        <td className="exc__review">
          <ReviewCell review={exception.review} />
        </td>
        <td className="exc__actions">
          <ReviewButtons
            needsReview={needsReview}
            resolveNeedsNote={resolveNeedsNote}
            locked={locked}
            busy={busy}
            noting={noting}
            onNoting={setNoting}
            onResolve={() => void onReview(exception, 'resolved', '')}
            onReopen={() => void onReview(exception, 'open', '')}
            onShow={() => onShow(exception)}
            titles={{ accept: 'Accept it as it is, with a note saying why', reopen: 'Open it again (the review is kept in the log)', show: where }}
          />
        </td>
      </tr>
      {noting ? (
        <NoteRow
          noting={noting}
          labels={{
            accepted: `Why is “${exception.title.toLowerCase()}” at ${exception.organization} acceptable?`,
            resolved: `How was “${exception.title.toLowerCase()}” at ${exception.organization} put right?`,
          }}
          busy={busy}
          onSubmit={(note) => void onReview(exception, noting, note).then((done) => done && setNoting(null))}
          onCancel={() => setNoting(null)}
        />
      ) : null}
    </>
  );
});
