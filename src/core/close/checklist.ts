import { endedBefore } from '@shared/model/period-end';
import { CHECKLIST_STEPS, type ChecklistStep, type ChecklistStepId, type CloseCalendar, type CloseLogEntry, type SignOff } from '@shared/schemas/month-close';

const LABELS: Record<ChecklistStepId, string> = {
  consumption: 'Consumption submitted',
  fetched: 'Billing report fetched',
  reviewed: 'Exceptions reviewed',
  rates: 'Reference-currency rates entered',
  prepared: 'Prepared',
  approved: 'Approved by a second person',
  exported: 'Invoices exported',
};

const DAY_MS = 86_400_000;

/**
 * The `n`th business day of the month after the one `periodEnd` falls in: weekdays that are not holidays, from the
 * 1st. Dates are calendar dates (no time zone enters).
 */
export function businessDay(periodEnd: string, n: number, holidays: ReadonlySet<string>): string {
  const [year, month] = periodEnd.split('-').map(Number) as [number, number];
  let day = Date.UTC(year, month, 1); // month is 1-based, so this is the 1st of the next month
  for (let found = 0; ; day += DAY_MS) {
    const date = new Date(day);
    const iso = date.toISOString().slice(0, 10);
    if (date.getUTCDay() !== 0 && date.getUTCDay() !== 6 && !holidays.has(iso) && ++found === Math.max(1, n)) return iso;
  }
}

/** What the checklist is made from: the month's state as the close sees it, its log, and what Closebook saw happen. */
export interface ChecklistFacts {
  periodEnd: string;
  state: 'draft' | 'prepared' | 'approved';
  signOff: SignOff | null;
  openCount: number;
  log: readonly CloseLogEntry[];
  /** When this fetch was saved here. */
  fetchedAt: string;
  /** The newest Successful consumption batch given this period, or null. */
  consumption: { at: string } | null;
  ratesEntered: boolean;
  calendar: CloseCalendar;
  /** Today's date where the person is (YYYY-MM-DD). */
  today: string;
}

const lastEntry = (log: readonly CloseLogEntry[], actions: string[]) => [...log].reverse().find((entry) => actions.includes(entry.action));

/** Each step of the month's close with its due date, who did it and when, and how late it is if not done. */
export function checklistSteps(facts: ChecklistFacts): ChecklistStep[] {
  const holidays = new Set(facts.calendar.holidays);
  const fetchedEntry = lastEntry(facts.log, ['fetched']);
  const reviewEntry = lastEntry(facts.log, ['accepted', 'resolved']);
  const exportEntry = lastEntry(facts.log, ['exported']);
  const ratesEntry = lastEntry(facts.log, ['rates']);
  const signed = facts.signOff && facts.state !== 'draft' ? facts.signOff : null;
  const done: Record<ChecklistStepId, ChecklistStep['done']> = {
    consumption: facts.consumption ? { by: null, at: facts.consumption.at } : null,
    // A fetch made before the period was over is not the month's report: the step waits for one made after.
    fetched: !endedBefore(facts.periodEnd, facts.fetchedAt)
      ? null
      : fetchedEntry
        ? { by: fetchedEntry.actor, at: fetchedEntry.at }
        : { by: null, at: facts.fetchedAt },
    reviewed: facts.openCount === 0 ? { by: reviewEntry?.actor ?? null, at: reviewEntry?.at ?? null } : null,
    rates: facts.ratesEntered ? { by: ratesEntry?.actor ?? null, at: ratesEntry?.at ?? null } : null,
    prepared: signed ? { by: signed.preparedBy, at: signed.preparedAt } : null,
    approved: signed?.approvedBy ? { by: signed.approvedBy, at: signed.approvedAt } : null,
    exported: exportEntry ? { by: exportEntry.actor, at: exportEntry.at } : null,
  };
  return CHECKLIST_STEPS.map((id) => {
    const due = businessDay(facts.periodEnd, facts.calendar.dueBusinessDay[id], holidays);
    const late = Math.round((Date.parse(facts.today) - Date.parse(due)) / DAY_MS);
    return { id, label: LABELS[id], due, done: done[id], overdueDays: done[id] ? 0 : Math.max(0, late) };
  });
}
