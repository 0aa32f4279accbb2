import { memo, useRef, useState } from 'react';
import { useFocusBackOnClose } from '@renderer/hooks/keyboard-focus';
import type { Finding } from '@shared/model/findings';
import { isOpenReview } from '@shared/model/review-state';
import type { BillingException, ReviewState } from '@shared/schemas/month-close';
import { formatCount } from '@renderer/components/format-number';
import { noteOpener, type Noting, NoteRow, ReviewButtons, ReviewCell, type ShowInReport } from './ExceptionRow';
import { afterTitle, reviewStateOf, SEVERITY_LABELS } from './exception-list';

/** What reviewing a finding asks of the screen: its open exceptions (or all, to reopen) in one state with one note. */
export type ReviewFinding = (exceptions: BillingException[], state: ReviewState, note: string) => Promise<boolean>;

interface Props {
  finding: Finding<BillingException>;
  locked: boolean;
  busy: boolean;
  onReview: ReviewFinding;
  onShow: ShowInReport;
  /** The exception a link opened the list on, when it is one of this finding's. */
  highlighted: string | null;
}

/**
 * One cause, one finding: a customer's service in one currency pair whose exceptions are one thing to look at —
 * each reason with its words and its own review, and one Accept or Resolve for the open ones (each exception keeps
 * its id and review, so the sign-off and the log still name them one by one).
 */
export const FindingRow = memo(function FindingRow({ finding, locked, busy, onReview, onShow, highlighted }: Props): React.JSX.Element {
  const [noting, setNoting] = useState<Noting>(null);
  const row = useRef<HTMLTableRowElement>(null);
  useFocusBackOnClose(noting, (openedWith) => noteOpener(row.current, openedWith));
  const open = finding.exceptions.filter((exception) => isOpenReview(exception.review));
  const first = finding.exceptions[0]!;
  const resolveNeedsNote = open.some((exception) => exception.severity !== 'low');
  const shown = finding.exceptions.find((exception) => exception.path.length) ?? first;
  const reasons = `${formatCount(finding.exceptions.length)} reasons`;
  return (
    <>
      <tr className={`exc exc--finding exc--${open.length ? 'open' : 'accepted'}`} data-testid="finding-row" data-finding={finding.key} ref={row}>
        <td className="exc__who">
          <span className="exc__org" title={first.organization}>
            {first.organization || <em>(no name)</em>}
          </span>
          <span className="muted exc__cust">{first.customerNumber || 'no customer number'}</span>
          <span className="muted exc__place">
            {[first.service, first.currencyKey].filter(Boolean).join(' · ')} · {reasons}
          </span>
        </td>
        <td className="exc__message">
          {finding.exceptions.map((exception) => (
            <div
              key={exception.id}
              className={`finding__reason finding__reason--${reviewStateOf(exception)}${exception.id === highlighted ? ' exc--linked' : ''}`}
              data-testid="finding-reason"
              data-rule={exception.rule}
              data-exception-id={exception.id}
              aria-current={exception.id === highlighted || undefined}
              tabIndex={exception.id === highlighted ? -1 : undefined}
              title={`${exception.title}: ${exception.explanation}`}
            >
              <span className={`sev sev--${exception.severity}`}>{SEVERITY_LABELS[exception.severity]}</span> <strong>{exception.title}.</strong>{' '}
              {afterTitle(exception)}
            </div>
          ))}
        </td>
        <td className="exc__review">
          {finding.exceptions.map((exception) => (
            <div key={exception.id} className="finding__review">
              <ReviewCell review={exception.review} />
            </div>
          ))}
        </td>
        <td className="exc__actions">
          <ReviewButtons
            needsReview={open.length > 0}
            resolveNeedsNote={resolveNeedsNote}
            locked={locked}
            busy={busy}
            noting={noting}
            onNoting={setNoting}
            onResolve={() => void onReview(open, 'resolved', '')}
            onReopen={() => void onReview(finding.exceptions, 'open', '')}
            onShow={() => onShow(shown)}
            acceptLabel={`Accept${open.length < finding.exceptions.length ? ` ${formatCount(open.length)} open` : ''}…`}
            titles={{
              accept: `Accept the ${formatCount(open.length)} open reasons as they are, with one note saying why`,
              reopen: 'Open its reasons again (the reviews are kept in the log)',
              show: 'Open this row in the report tree',
            }}
          />
        </td>
      </tr>
      {noting ? (
        <NoteRow
          noting={noting}
          labels={{
            accepted: `Why is ${finding.name} acceptable? The note goes on each of its ${formatCount(open.length)} open reasons.`,
            resolved: `How was ${finding.name} put right? The note goes on each of its ${formatCount(open.length)} open reasons.`,
          }}
          busy={busy}
          onSubmit={(note) => void onReview(open, noting, note).then((done) => done && setNoting(null))}
          onCancel={() => setNoting(null)}
        />
      ) : null}
    </>
  );
});
