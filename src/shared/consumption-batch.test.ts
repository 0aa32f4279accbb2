import { describe, expect, it } from 'vitest';
import { lastUsageMonth, periodInWords, stateInWords, taskRunning, usageNotBegun, usagePeriod } from './consumption-batch';
import { SubmissionState } from './schemas/consumption';

describe('a batch period', () => {
  it('is a calendar month, first to last day, leap years included', () => {
    expect(usagePeriod('2026-03')).toEqual({ startDate: '2026-03-01', endDate: '2026-03-31' });
    expect(usagePeriod('2028-02')).toEqual({ startDate: '2028-02-01', endDate: '2028-02-29' });
    expect(usagePeriod('2026-02')).toEqual({ startDate: '2026-02-01', endDate: '2026-02-28' });
    for (const wrong of ['2026-13', '2026-3', '26-03', '2026-03-01', '']) expect(usagePeriod(wrong)).toBeUndefined();
  });

  it('defaults to the month before today, across a new year', () => {
    expect(lastUsageMonth(new Date(2026, 3, 15))).toBe('2026-03');
    expect(lastUsageMonth(new Date(2026, 0, 1))).toBe('2025-12');
  });

  it('may be this month or one before it, never one that has not begun', () => {
    const today = new Date(2026, 11, 31, 23, 59);
    expect(usageNotBegun(usagePeriod('2026-12')!, today)).toBeNull();
    expect(usageNotBegun(usagePeriod('2019-01')!, today)).toBeNull();
    expect(usageNotBegun(usagePeriod('2027-01')!, today)).toBe(
      'Usage for January 2027 cannot be submitted yet: the month has not begun. Choose the month the usage was measured in.',
    );
  });

  it('reads as a month name, or as its dates when it is not one whole month', () => {
    expect(periodInWords({ startDate: '2026-03-01', endDate: '2026-03-31' })).toBe('March 2026');
    expect(periodInWords({ startDate: '2026-03-01', endDate: '2026-03-15' })).toBe('2026-03-01 – 2026-03-15');
  });
});

describe('a submission state in words', () => {
  it('never shows a raw state code', () => {
    const words = SubmissionState.options.map((state) => stateInWords({ state, taskId: null }));
    expect(words).toEqual([
      'Sending…',
      'Outcome unknown — may have arrived',
      'Queued at the service',
      'Processing',
      'Successful',
      'Failed — nothing was saved',
      'Error — not sent',
    ]);
    // Once the service gave a task id the batch was sent: only the checking stopped.
    expect(stateInWords({ state: 'error', taskId: 't-1' })).toBe('Sent — checking stopped on an error');
  });

  it('locks a batch only while its task is being sent, queued or processed', () => {
    expect(SubmissionState.options.filter(taskRunning)).toEqual(['sending', 'Queued', 'Processing']);
  });
});
