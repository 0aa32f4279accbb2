import { FILTER_SHORTCUT } from '../reports/use-report-shortcuts';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { isOpenReview } from '@shared/model/review-state';
import { endsTheDayBefore } from '@shared/model/month-before';
import type { BillingException, MonthCloseView, ReviewState, Severity } from '@shared/schemas/month-close';
import type { ReportMeta } from '@shared/schemas/saved-report';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { useAction } from '@renderer/hooks/use-action';
import { useFocusBackOnClose, useFocusStaysInList } from '@renderer/hooks/keyboard-focus';
import { formatCount } from '@renderer/components/format-number';
import {
  type ExceptionFilter,
  filterExceptions,
  groupByRule,
  REVIEW_LABELS,
  type ReviewFilter,
  reviewCounts,
  type RuleGroup,
  rulesOf,
  SEVERITIES,
  SEVERITY_LABELS,
} from './exception-list';
import { ExceptionRow, NoteForm, noteOpener, type ShowInReport } from './ExceptionRow';
import { FetchMonthBefore } from './FetchMonthBefore';
import { FindingRow } from './FindingRow';
import { monthLabel } from './month-label';
import { bySeverity, groupFindings } from '@shared/model/findings';
import type { MonthCloseState } from './use-month-close';
import type { ExceptionGrouping } from '@shared/contract';
import { comparedWithPartialText, partialFetch } from '@shared/model/period-end';

/** Rows drawn per group before "Show more": a month of a million lines may have thousands of exceptions of one rule. */
const ROWS_PER_GROUP = 100;
/** The rows a review is taken on: an exception's, a finding's, and a rule's header (its Accept all / Resolve all). */
const REVIEW_ROWS = 'tr.exc, tr.exc-group';
/** Findings drawn before "Show more", for the same reason. */
const FINDINGS_SHOWN = 200;

const REVIEW_FILTERS: readonly ReviewFilter[] = ['open', 'accepted', 'resolved', 'all'];

/** An exception to show on arriving (a link from another view); each new `n` shows it again. */
export interface ExceptionShown {
  id: string;
  n: number;
}

interface Props {
  view: MonthCloseView;
  /** The month's report. */
  meta: ReportMeta;
  close: Pick<MonthCloseState, 'review' | 'reviewMany' | 'bulk' | 'stop'>;
  onShow: ShowInReport;
  shown?: ExceptionShown | null;
  /** By finding or by rule: kept by the Close screen, so it outlives a look at another tab. */
  groupBy: ExceptionGrouping;
  onGroupBy: (groupBy: ExceptionGrouping) => void;
}

const GROUPINGS: readonly { id: ExceptionGrouping; label: string; title: string }[] = [
  { id: 'finding', label: 'Findings', title: "One customer's service in one currency: its reasons together" },
  { id: 'rule', label: 'Rules', title: 'Every exception of a rule together, to review them at once' },
];

function GroupHeader({
  group,
  shownOpen,
  locked,
  busy,
  onBulk,
}: {
  group: RuleGroup;
  shownOpen: number;
  locked: boolean;
  busy: boolean;
  /** Reviews a group's open exceptions; true once done (a refused one keeps its note form open, the note in it). */
  onBulk: (group: RuleGroup, state: ReviewState, note: string) => Promise<boolean>;
}): React.JSX.Element {
  // Accepting needs a note; so does resolving a high or medium exception (how it was put right).
  const [noting, setNoting] = useState<'accepted' | 'resolved' | null>(null);
  const header = useRef<HTMLTableRowElement>(null);
  useFocusBackOnClose(noting, (openedWith) => noteOpener(header.current, openedWith));
  const all = shownOpen === group.exceptions.length ? 'all ' : '';
  const resolveNeedsNote = group.severity !== 'low';
  return (
    <tr className="exc-group" data-testid="exception-group" data-rule={group.rule} ref={header}>
      <th colSpan={4} scope="colgroup">
        <div className="exc-group__line">
          <span className={`sev sev--${group.severity}`}>{SEVERITY_LABELS[group.severity]}</span>
          <span className="exc-group__title">{group.title}</span>
          <span className="muted">{formatCount(group.exceptions.length)}</span>
          <span className="exc-group__explain">{group.explanation}</span>
          {shownOpen > 1 && !locked ? (
            <span className="exc-group__bulk">
              <button type="button" onClick={() => setNoting('accepted')} disabled={busy || noting !== null} data-control="accepted">
                Accept {all}
                {formatCount(shownOpen)} open…
              </button>
              <button
                type="button"
                onClick={() => (resolveNeedsNote ? setNoting('resolved') : void onBulk(group, 'resolved', ''))}
                disabled={busy || noting !== null}
                data-control="resolved"
              >
                Resolve {all}
                {formatCount(shownOpen)} open{resolveNeedsNote ? '…' : ''}
              </button>
            </span>
          ) : null}
        </div>
        {noting ? (
          <NoteForm
            label={
              noting === 'accepted'
                ? `Why are these ${formatCount(shownOpen)} acceptable? The same note goes on each.`
                : `How were these ${formatCount(shownOpen)} put right? The same note goes on each.`
            }
            submitLabel={`${noting === 'accepted' ? 'Accept' : 'Resolve'} ${formatCount(shownOpen)}`}
            busy={busy}
            onSubmit={(note) => void onBulk(group, noting, note).then((done) => done && setNoting(null))}
            onCancel={() => setNoting(null)}
          />
        ) : null}
      </th>
    </tr>
  );
}

/**
 * The month's exceptions, open ones first: as findings (one customer's service in one currency, its reasons together,
 * reviewed together) or grouped by rule, most severe first, each with its evidence, its review and its actions.
 * Filters by review state, severity, rule and text; a whole rule's open exceptions can be accepted (one note) or
 * resolved at once.
 */
export function ExceptionsPanel({ view, meta, close, onShow, shown = null, groupBy, onGroupBy: setGroupBy }: Props): React.JSX.Element {
  const [filter, setFilter] = useState<ExceptionFilter>({ review: 'open' });
  const [shownPerGroup, setShownPerGroup] = useState<Record<string, number>>({});
  const table = useRef<HTMLTableElement>(null);
  // A linked exception: the filters that would hide it are cleared to its organization (its finding stays whole),
  // then its row is scrolled to, marked and focused. Once per link (`n`).
  const [highlighted, setHighlighted] = useState<string | null>(null);
  const [handled, setHandled] = useState(0);
  const linked = shown && shown.n !== handled ? view.exceptions.find((exception) => exception.id === shown.id) : undefined;
  if (shown && linked) {
    setHandled(shown.n);
    setFilter({ review: 'all', text: linked.customerNumber || linked.organization });
    setHighlighted(linked.id);
  }
  useEffect(() => {
    if (!highlighted) return;
    const row = [...(table.current?.querySelectorAll<HTMLElement>('[data-exception-id]') ?? [])].find(
      (candidate) => candidate.dataset.exceptionId === highlighted,
    );
    row?.scrollIntoView({ block: 'center' });
    row?.focus({ preventScroll: true });
  }, [highlighted, filter]);
  const action = useAction();
  // Reviews lock while the month is Prepared or Approved, on whichever fetch — and while the team ledger is unreachable.
  const locked = view.signOff !== null || view.teamOfflineSince !== null;
  const partialBefore = partialFetch(view.previousPeriod?.endDate, view.previousFetchedAt);
  const counts = useMemo(() => reviewCounts(view.exceptions), [view.exceptions]);
  const rules = useMemo(() => rulesOf(view.exceptions), [view.exceptions]);
  const [shownFindings, setShownFindings] = useState(FINDINGS_SHOWN);
  const filtered = useMemo(() => filterExceptions(view.exceptions, filter), [view.exceptions, filter]);
  const groups = useMemo(() => (groupBy === 'rule' ? groupByRule(filtered) : []), [groupBy, filtered]);
  const findings = useMemo(() => (groupBy === 'finding' ? bySeverity(groupFindings(filtered)) : []), [groupBy, filtered]);
  const busy = action.busy || close.bulk !== null;
  const { review, reviewMany } = close;
  const { run } = action;

  // A reviewed row leaves the Open list (or redraws its buttons): the keyboard goes on to the row in its place.
  const emptyNote = useRef<HTMLParagraphElement>(null);
  const keepFocus = useFocusStaysInList(
    table,
    REVIEW_ROWS,
    useCallback(() => emptyNote.current, []),
  );
  const rowOf = useCallback(
    (exceptionId: string) => table.current?.querySelector(`[data-exception-id="${CSS.escape(exceptionId)}"]`)?.closest(REVIEW_ROWS) ?? null,
    [],
  );
  // Stable, so a review redraws only the rows whose exception changed.
  const onReview = useCallback(
    async (exception: BillingException, state: ReviewState, note: string) =>
      Boolean(
        await keepFocus(rowOf(exception.id), () =>
          run(async () => {
            await review(exception.id, state, note);
            return true;
          }, exception.id),
        ),
      ),
    [run, review, keepFocus, rowOf],
  );
  const onReviewFinding = useCallback(
    async (exceptions: BillingException[], state: ReviewState, note: string) =>
      Boolean(
        await keepFocus(rowOf(exceptions[0]?.id ?? ''), () =>
          run(async () => {
            await reviewMany(
              exceptions.map((exception) => exception.id),
              state,
              note,
            );
            return true;
          }, 'finding'),
        ),
      ),
    [run, reviewMany, keepFocus, rowOf],
  );
  const onBulk = async (group: RuleGroup, state: ReviewState, note: string) => {
    const ids = group.exceptions.filter((exception) => isOpenReview(exception.review)).map((exception) => exception.id);
    const header = table.current?.querySelector(`tr.exc-group[data-rule="${CSS.escape(group.rule)}"]`) ?? null;
    return (
      (await keepFocus(header, () =>
        run(async () => {
          await reviewMany(ids, state, note);
          return true;
        }, 'bulk'),
      )) ?? false
    );
  };
  const change = (fields: Partial<ExceptionFilter>) => setFilter((current) => ({ ...current, ...fields }));

  return (
    <div className="exceptions">
      <div className="close-bar" role="search" aria-label="Exception filters">
        <div className="segmented" role="group" aria-label="Group by">
          {GROUPINGS.map((grouping) => (
            <button key={grouping.id} type="button" aria-pressed={groupBy === grouping.id} onClick={() => setGroupBy(grouping.id)} title={grouping.title}>
              {grouping.label}
            </button>
          ))}
        </div>
        <div className="segmented" role="group" aria-label="Review state">
          {REVIEW_FILTERS.map((state) => (
            <button key={state} type="button" aria-pressed={filter.review === state} onClick={() => change({ review: state })}>
              {REVIEW_LABELS[state]} <span className="segmented__count">{formatCount(counts[state])}</span>
            </button>
          ))}
        </div>
        <select
          aria-label="Severity"
          value={filter.severity ?? ''}
          onChange={(event) => change({ severity: (event.target.value || undefined) as Severity | undefined })}
        >
          <option value="">All severities</option>
          {SEVERITIES.map((severity) => (
            <option key={severity} value={severity}>
              {SEVERITY_LABELS[severity]}
            </option>
          ))}
        </select>
        <select aria-label="Rule" value={filter.rule ?? ''} onChange={(event) => change({ rule: event.target.value || undefined })}>
          <option value="">All rules</option>
          {rules.map((rule) => (
            <option key={rule.rule} value={rule.rule}>
              {rule.title}
            </option>
          ))}
        </select>
        <input
          type="search"
          aria-label="Search exceptions"
          {...FILTER_SHORTCUT}
          placeholder="Organization, cust. no., product…"
          value={filter.text ?? ''}
          onChange={(event) => change({ text: event.target.value })}
        />
        {close.bulk ? (
          <span className="close-bar__progress" role="status">
            Reviewing {formatCount(close.bulk.done)} of {formatCount(close.bulk.total)}…{' '}
            <button type="button" className="link" onClick={close.stop}>
              Stop
            </button>
          </span>
        ) : null}
      </div>
      {view.previousPeriod === null ? (
        <div className="close__gap">
          <p role="note">
            There is no earlier month of this service in the ledger, so nothing is checked against last month: a subscription no longer billed, a unit price or
            cost changed, a quantity jump.
          </p>
          <FetchMonthBefore meta={meta} signed={view.state === 'draft' ? null : view.state} />
        </div>
      ) : null}
      {view.previousPeriod && !endsTheDayBefore(view.previousPeriod, meta.period) ? (
        // The months between were never fetched: "since last month" in the checks means since that one.
        <div className="close__gap">
          <p role="note">
            {monthLabel(view.previousPeriod)} is the newest earlier month in the ledger, not the month before: the checks against last month compare with it.
            Fetch the months between to check against the month before.
          </p>
          <FetchMonthBefore meta={meta} signed={view.state === 'draft' ? null : view.state} />
        </div>
      ) : null}
      {view.previousPeriod && partialBefore ? (
        // Compared with a fetch of a month not over yet: a subscription billed later in it reads as lost.
        <div className="close__gap">
          <p role="note">{comparedWithPartialText(monthLabel(view.previousPeriod), partialBefore.endDate, partialBefore.fetchedAt)}</p>
          {endsTheDayBefore(view.previousPeriod, meta.period) ? <FetchMonthBefore meta={meta} signed={view.state === 'draft' ? null : view.state} /> : null}
        </div>
      ) : null}
      {view.signOff !== null ? (
        <p className="hint">
          The month is {view.signOff?.state === 'approved' ? 'Approved' : 'Prepared'}, so the reviews are locked. Reopen it (with a reason) to change them.
        </p>
      ) : null}
      <ErrorNote message={action.error} />
      <div className="exceptions__scroll">
        <table className="grid exc-table" aria-label="Exceptions" ref={table}>
          <colgroup>
            <col className="exc-col--who" />
            <col className="exc-col--message" />
            <col className="exc-col--review" />
            <col className="exc-col--actions" />
          </colgroup>
          <thead>
            <tr>
              <th scope="col">Organization · where</th>
              <th scope="col">Finding</th>
              <th scope="col">Review</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          {groupBy === 'finding' ? (
            <tbody>
              {findings
                .slice(0, shownFindings)
                .map((finding) =>
                  finding.exceptions.length === 1 ? (
                    <ExceptionRow
                      key={finding.key}
                      exception={finding.exceptions[0]!}
                      locked={locked}
                      busy={busy}
                      onReview={onReview}
                      onShow={onShow}
                      highlighted={finding.exceptions[0]!.id === highlighted}
                      showTitle
                    />
                  ) : (
                    <FindingRow
                      key={finding.key}
                      finding={finding}
                      locked={locked}
                      busy={busy}
                      onReview={onReviewFinding}
                      onShow={onShow}
                      highlighted={highlighted}
                    />
                  ),
                )}
              {findings.length > shownFindings ? (
                <tr>
                  <td colSpan={4}>
                    <button type="button" className="link" onClick={() => setShownFindings((shown) => shown + FINDINGS_SHOWN * 5)}>
                      Show {formatCount(Math.min(findings.length - shownFindings, FINDINGS_SHOWN * 5))} more of {formatCount(findings.length - shownFindings)}
                    </button>
                  </td>
                </tr>
              ) : null}
            </tbody>
          ) : null}
          {groups.map((group) => {
            const limit = shownPerGroup[group.rule] ?? ROWS_PER_GROUP;
            const rest = group.exceptions.length - limit;
            const shownOpen = group.exceptions.filter((exception) => isOpenReview(exception.review)).length;
            return (
              <tbody key={group.rule}>
                <GroupHeader group={group} shownOpen={shownOpen} locked={locked} busy={busy} onBulk={onBulk} />
                {group.exceptions.slice(0, limit).map((exception) => (
                  <ExceptionRow
                    key={exception.id}
                    exception={exception}
                    locked={locked}
                    busy={busy}
                    onReview={onReview}
                    onShow={onShow}
                    highlighted={exception.id === highlighted}
                  />
                ))}
                {rest > 0 ? (
                  <tr>
                    <td colSpan={4}>
                      <button
                        type="button"
                        className="link"
                        onClick={() => setShownPerGroup((current) => ({ ...current, [group.rule]: limit + ROWS_PER_GROUP * 5 }))}
                      >
                        Show {formatCount(Math.min(rest, ROWS_PER_GROUP * 5))} more of {formatCount(rest)}
                      </button>
                    </td>
                  </tr>
                ) : null}
              </tbody>
            );
          })}
        </table>
        {filtered.length === 0 ? (
          <p className="empty" ref={emptyNote} tabIndex={-1}>
            {view.exceptions.length === 0
              ? 'The checks found nothing in this month.'
              : filter.review === 'open' && counts.open === 0 && !filter.text && !filter.rule && !filter.severity
                ? 'Nothing is open: every exception is accepted or resolved.'
                : 'No exceptions match these filters.'}
          </p>
        ) : null}
      </div>
    </div>
  );
}
