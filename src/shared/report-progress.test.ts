import { describe, expect, it } from 'vitest';
import type { ReportJob } from './schemas/saved-report';
import { describeReportJob, formatBytes } from './report-progress';

const NOW = Date.parse('2026-11-07T09:00:00Z');
const job = (change: Partial<ReportJob>): ReportJob => ({
  id: '00000000-0000-4000-8000-000000000001',
  profileId: 'p',
  profileName: 'Acme',
  period: { startDate: '2026-10-01', endDate: '2026-10-31' },
  location: 'https://billing.example.com/reports/1',
  startedAt: '2026-11-07T08:58:00Z',
  updatedAt: '2026-11-07T08:59:00Z',
  state: 'waiting',
  polls: 0,
  lastStatus: null,
  nextPollAt: null,
  message: null,
  reportId: null,
  ...change,
});

describe('a report request in words', () => {
  it('says what it is doing with figures, never a raw status code', () => {
    expect(describeReportJob(job({ nextPollAt: '2026-11-07T09:00:30Z' }), NOW)).toBe('Requested — first check in 30 s');
    expect(describeReportJob(job({ polls: 3, lastStatus: 0, nextPollAt: '2026-11-07T09:00:25Z' }), NOW)).toBe(
      'Generating the report — checked 3 times, next check in 25 s',
    );
    expect(describeReportJob(job({ state: 'polling', polls: 1, lastStatus: 0 }), NOW)).toBe('Checking with the service (check 2)');
    expect(describeReportJob(job({ state: 'polling', polls: 4, lastStatus: 0, transfer: { bytes: 38 * 1024 * 1024 } }), NOW)).toBe('Downloading 38 MB');
    expect(
      describeReportJob(job({ state: 'polling', polls: 4, lastStatus: 0, transfer: { bytes: 38 * 1024 * 1024, totalBytes: 120 * 1024 * 1024 } }), NOW),
    ).toBe('Downloading 38 MB of 120 MB');
    expect(describeReportJob(job({ state: 'saving', polls: 5, transfer: { lines: 412_000 } }), NOW)).toBe('Saving 412,000 billing lines');
    expect(describeReportJob(job({ state: 'saving', polls: 5, transfer: { lines: 412_000, percent: 41 } }), NOW)).toBe('Saving 412,000 billing lines — 41 %');
    expect(describeReportJob(job({ state: 'failed', polls: 2, lastStatus: 7, message: 'The service answered report status 7…' }), NOW)).toBe(
      'Stopped after 2 checks',
    );
    // A service that asked to slow down (HTTP 429) is busy; one that could not be reached did not answer.
    expect(describeReportJob(job({ state: 'retrying', polls: 2, busy: true }), NOW)).toBe('The service is busy — retrying (checked 2 times)');
    expect(describeReportJob(job({ state: 'retrying', polls: 2 }), NOW)).toBe('The service did not answer — retrying (checked 2 times)');
    for (const state of ['waiting', 'polling', 'retrying', 'saving', 'done', 'cancelled', 'failed'] as const) {
      expect(describeReportJob(job({ state, polls: 2, lastStatus: 7 }), NOW)).not.toMatch(/status/);
    }
  });

  it('gives sizes as a person reads them', () => {
    expect([formatBytes(200), formatBytes(512 * 1024), formatBytes(38 * 1024 * 1024 + 1), formatBytes(1.25 * 1024 ** 3)]).toEqual([
      '1 KB',
      '512 KB',
      '38 MB',
      '1.3 GB',
    ]);
  });
});
