import { describe, expect, it } from 'vitest';
import { DEFAULT_CALENDAR, type SignOff } from '@shared/schemas/month-close';
import { businessDay, type ChecklistFacts, checklistSteps } from './checklist';

describe('the business days of the month after a period', () => {
  it('counts weekdays from the 1st, skipping weekends and the holidays given', () => {
    // December 2026 begins on a Tuesday.
    expect(businessDay('2026-11-30', 1, new Set())).toBe('2026-12-01');
    expect(businessDay('2026-11-30', 8, new Set())).toBe('2026-12-10');
    expect(businessDay('2026-11-30', 8, new Set(['2026-12-08']))).toBe('2026-12-11');
    // November 2026 begins on a Sunday; a period ending mid-month counts from the next month all the same.
    expect(businessDay('2026-10-31', 1, new Set())).toBe('2026-11-02');
    expect(businessDay('2026-10-15', 1, new Set())).toBe('2026-11-02');
    // December's period: into January of the next year, past New Year's Day when it is a holiday.
    expect(businessDay('2026-12-31', 1, new Set(['2027-01-01']))).toBe('2027-01-04');
  });
});

const prepared: SignOff = {
  state: 'prepared',
  reportId: 'r',
  contentHash: 'h',
  preparedBy: 'anna',
  preparedAt: '2026-12-09T10:00:00.000Z',
  approvedBy: null,
  approvedAt: null,
  thresholds: null,
};

const facts = (overrides: Partial<ChecklistFacts>): ChecklistFacts => ({
  periodEnd: '2026-11-30',
  state: 'draft',
  signOff: null,
  openCount: 3,
  log: [],
  fetchedAt: '2026-12-07T08:00:00.000Z',
  consumption: null,
  ratesEntered: false,
  calendar: DEFAULT_CALENDAR,
  today: '2026-12-14',
  ...overrides,
});

describe('the month’s checklist', () => {
  it('marks each step done where Closebook saw it happen, with who and when, and the rest overdue by calendar days', () => {
    const entry = (seq: number, action: string, actor: string, at: string) => ({
      seq,
      reportId: 'r',
      action,
      exceptionId: '',
      note: '',
      actor,
      at,
      evidence: '',
      hash: '',
    });
    const steps = checklistSteps(
      facts({
        state: 'prepared',
        signOff: prepared,
        openCount: 0,
        ratesEntered: true,
        log: [entry(1, 'fetched', 'anna (anna@ws-1)', '2026-12-07T08:00:00.000Z'), entry(2, 'accepted', 'bo', '2026-12-08T09:00:00.000Z')],
      }),
    );
    const byId = Object.fromEntries(steps.map((step) => [step.id, step]));
    expect(byId.fetched).toMatchObject({ due: '2026-12-10', done: { by: 'anna (anna@ws-1)', at: '2026-12-07T08:00:00.000Z' }, overdueDays: 0 });
    expect(byId.reviewed).toMatchObject({ done: { by: 'bo', at: '2026-12-08T09:00:00.000Z' } });
    expect(byId.rates?.done).not.toBeNull();
    expect(byId.prepared).toMatchObject({ due: '2026-12-14', done: { by: 'anna' } });
    // Not done: consumption was due on business day 3 (3 December), approval on 15 December (not yet late).
    expect(byId.consumption).toMatchObject({ due: '2026-12-03', done: null, overdueDays: 11 });
    expect(byId.approved).toMatchObject({ due: '2026-12-15', done: null, overdueDays: 0 });
    expect(byId.exported).toMatchObject({ due: '2026-12-16', done: null, overdueDays: 0 });
  });

  it('leaves a fetch without a log entry done by no one it can name, and reviews open while any exception is', () => {
    const steps = checklistSteps(facts({}));
    expect(steps.find((step) => step.id === 'fetched')?.done).toEqual({ by: null, at: '2026-12-07T08:00:00.000Z' });
    expect(steps.find((step) => step.id === 'reviewed')).toMatchObject({ done: null, overdueDays: 3 });
  });

  it('leaves the fetch not done while the only fetch was made before the period was over', () => {
    const fetched = (fetchedAt: string) => checklistSteps(facts({ fetchedAt, today: '2026-12-15' })).find((step) => step.id === 'fetched');
    expect(fetched('2026-11-30T23:59:00.000Z')).toMatchObject({ done: null, overdueDays: 5 });
    expect(fetched('2026-12-01T00:00:00.000Z')).toMatchObject({ done: { by: null, at: '2026-12-01T00:00:00.000Z' }, overdueDays: 0 });
  });
});
