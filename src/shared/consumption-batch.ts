import type { ReportPeriod } from './schemas/billing-report';
import type { SubmissionSummary } from './schemas/consumption';
import { monthInWords } from './model/month-in-words';

/** A batch's period is a calendar month, given as 'YYYY-MM'. */
export const USAGE_MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** The calendar month 'YYYY-MM' as a period, first to last day; undefined when it is not such a month. */
export function usagePeriod(month: string): ReportPeriod | undefined {
  const match = USAGE_MONTH.exec(month.trim());
  if (!match) return undefined;
  const [year, number] = [Number(match[1]), Number(match[2])];
  const lastDay = new Date(Date.UTC(year, number, 0)).getUTCDate();
  return { startDate: `${match[1]}-${match[2]}-01`, endDate: `${match[1]}-${match[2]}-${String(lastDay).padStart(2, '0')}` };
}

/** `today`'s month (in local time), as 'YYYY-MM': the last a batch's usage can be for. */
export function currentUsageMonth(today: Date): string {
  return `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}`;
}

/** Why usage for `period` cannot be submitted on `today` (a month that has not begun); null when it can. */
export function usageNotBegun(period: ReportPeriod, today: Date): string | null {
  return period.startDate.slice(0, 7) > currentUsageMonth(today)
    ? `Usage for ${periodInWords(period)} cannot be submitted yet: the month has not begun. Choose the month the usage was measured in.`
    : null;
}

/** The month before `today`'s (in local time, as the user reads the calendar), as 'YYYY-MM': a batch's default period. */
export function lastUsageMonth(today: Date): string {
  return currentUsageMonth(new Date(today.getFullYear(), today.getMonth() - 1, 1));
}

/** "March 2026" for a whole calendar month, else "2026-03-01 – 2026-03-15". */
export function periodInWords(period: ReportPeriod): string {
  const month = period.startDate.slice(0, 7);
  const whole = usagePeriod(month);
  if (whole && whole.startDate === period.startDate && whole.endDate === period.endDate) return monthInWords(month);
  return `${period.startDate} – ${period.endDate}`;
}

/**
 * A submission's state as people read it, never the raw code. An `error` after the service gave a task id was
 * sent: only the checking stopped.
 */
export function stateInWords(submission: Pick<SubmissionSummary, 'state' | 'taskId'>): string {
  switch (submission.state) {
    case 'sending':
      return 'Sending…';
    case 'outcome-unknown':
      return 'Outcome unknown — may have arrived';
    case 'Queued':
      return 'Queued at the service';
    case 'Processing':
      return 'Processing';
    case 'Successful':
      return 'Successful';
    case 'Failed':
      return 'Failed — nothing was saved';
    case 'error':
      return submission.taskId ? 'Sent — checking stopped on an error' : 'Error — not sent';
  }
}

/** While its task is being sent, queued or processed, a batch cannot change. */
export function taskRunning(state: SubmissionSummary['state']): boolean {
  return state === 'sending' || state === 'Queued' || state === 'Processing';
}
