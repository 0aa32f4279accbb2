import { openTotal } from '@shared/model/review-state';
import { useCallback, useEffect, useId, useState } from 'react';
import { CHECKLIST_STEPS, type Checklist, type CloseCalendar, type MonthCloseView } from '@shared/schemas/month-close';
import { bridge, call } from '@renderer/bridge';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { formatDate, formatDateTime } from '@renderer/components/format-time';
import { useAction } from '@renderer/hooks/use-action';

const days = (count: number) => `${count} ${count === 1 ? 'day' : 'days'}`;

function StepState({ step }: { step: Checklist['steps'][number] }): React.JSX.Element {
  if (step.done)
    return (
      <span className="checklist__done">
        Done{step.done.by ? ` by ${step.done.by}` : ''}
        {step.done.at ? `, ${formatDateTime(step.done.at)}` : ''}
      </span>
    );
  if (step.overdueDays > 0) return <strong className="checklist__overdue">Overdue by {days(step.overdueDays)}</strong>;
  return <span className="muted">To do</span>;
}

/** The calendar as the team keeps it: each step's due business day and the holidays (one date a line). */
function CalendarForm({
  calendar,
  labels,
  onSaved,
}: {
  calendar: CloseCalendar;
  labels: Record<string, string>;
  onSaved: () => Promise<void>;
}): React.JSX.Element {
  const [due, setDue] = useState(calendar.dueBusinessDay);
  const [holidays, setHolidays] = useState(calendar.holidays.join('\n'));
  const action = useAction();
  const holidaysId = useId();
  const save = async (event: React.FormEvent) => {
    event.preventDefault();
    const saved = await action.run(
      () => call('close:calendar', { calendar: { dueBusinessDay: due, holidays: holidays.split(/[\s,;]+/).filter(Boolean) } }),
      'calendar',
    );
    if (saved) await onSaved();
  };
  return (
    <form className="checklist__calendar" onSubmit={(event) => void save(event)} aria-label="Close calendar">
      <fieldset>
        <legend>Due business day of the month after</legend>
        {CHECKLIST_STEPS.map((step) => (
          <label key={step}>
            <span>{labels[step] ?? step}</span>
            <input
              type="number"
              min={1}
              max={23}
              value={due[step]}
              onChange={(event) => setDue({ ...due, [step]: Number(event.target.value) })}
              aria-label={`Due business day: ${labels[step] ?? step}`}
            />
          </label>
        ))}
      </fieldset>
      <label htmlFor={holidaysId}>Holidays (not working days; one date a line, like 2026-12-24)</label>
      <textarea id={holidaysId} rows={4} value={holidays} onChange={(event) => setHolidays(event.target.value)} />
      <div className="form__actions">
        <button type="submit" disabled={action.busy}>
          {action.busy ? 'Saving…' : 'Save the calendar'}
        </button>
      </div>
      <ErrorNote message={action.error} />
    </form>
  );
}

/**
 * The month's checklist: each step of the close with its due date (a business day of the month after), who did it
 * and when — seen by Closebook as it happened — and what is overdue. The calendar is the team's with a team ledger.
 */
export function ChecklistPanel({ reportId, view }: { reportId: string; view: MonthCloseView }): React.JSX.Element {
  const [checklist, setChecklist] = useState<Checklist | null>(null);
  const action = useAction();
  const { run } = action;
  const load = useCallback(async () => {
    const answer = await run(() => call('close:checklist', { reportId }), 'load');
    if (answer) setChecklist(answer);
  }, [run, reportId]);
  // Read again when the month's close changes (a review, a sign-off), here or on a colleague's workstation.
  const changed = `${view.state}|${openTotal(view.open)}|${view.signOff?.approvedAt ?? ''}`;
  useEffect(() => void load(), [load, changed]);
  useEffect(() => bridge.on('team:changed', () => void load()), [load]);

  if (!checklist) return <p className="empty">{action.error ?? 'Reading the checklist…'}</p>;
  const overdue = checklist.steps.filter((step) => step.overdueDays > 0).length;
  return (
    <div className="checklist">
      <p className="muted" data-testid="checklist-summary">
        {checklist.steps.filter((step) => step.done).length} of {checklist.steps.length} steps done
        {overdue ? `, ${overdue} overdue` : ''} · today {formatDate(checklist.today)}
      </p>
      <table className="grid" aria-label="Checklist">
        <thead>
          <tr>
            <th scope="col">Step</th>
            <th scope="col">Due</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {checklist.steps.map((step) => (
            <tr key={step.id} className={step.overdueDays > 0 ? 'checklist__row--overdue' : undefined}>
              <td>{step.label}</td>
              <td>{formatDate(step.due)}</td>
              <td>
                <StepState step={step} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <details className="checklist__settings">
        <summary>Calendar: due days and holidays</summary>
        <CalendarForm
          key={JSON.stringify(checklist.calendar)}
          calendar={checklist.calendar}
          labels={Object.fromEntries(checklist.steps.map((step) => [step.id, step.label]))}
          onSaved={load}
        />
      </details>
      <ErrorNote message={action.error} />
    </div>
  );
}
