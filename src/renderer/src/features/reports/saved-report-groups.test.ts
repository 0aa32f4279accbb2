import { describe, expect, it } from 'vitest';
import type { ReportListing } from '@shared/schemas/saved-report';
import { fetchesByMonth, groupByProfile } from './saved-report-groups';

const listing = (id: string, profileName: string, host: string, startDate: string, fetchedAt = '2026-11-07T00:00:00Z'): ReportListing => ({
  state: 'ok',
  meta: {
    id,
    schemaVersion: 1,
    name: id,
    profileId: profileName,
    profileName,
    host,
    period: { startDate, endDate: startDate },
    fetchedAt,
    counts: { billingEntries: 0, organizations: 0, services: 0, subscriptions: 0, lines: 0 },
    totals: [],
  },
});

describe('saved reports by profile', () => {
  it('groups by profile and host, newest month first, damaged entries last', () => {
    const groups = groupByProfile([
      listing('a-sep', 'Acme', 'billing.acme.example', '2026-09-01'),
      { state: 'damaged', id: 'x', file: 'x.json', reason: 'cut short' },
      listing('demo-oct', 'Demo', '127.0.0.1:4000', '2026-10-01'),
      listing('a-oct', 'Acme', 'billing.acme.example', '2026-10-01'),
      listing('a-oct-again', 'Acme', 'billing.acme.example', '2026-10-01', '2026-11-08T00:00:00Z'),
      listing('acme-test', 'Acme', 'test.acme.example', '2026-10-01'),
    ]);
    expect(groups.map((group) => [group.title, group.listings.map((item) => (item.state === 'ok' ? item.meta.id : item.id))])).toEqual([
      ['Acme · billing.acme.example', ['a-oct-again', 'a-oct', 'a-sep']],
      ['Acme · test.acme.example', ['acme-test']],
      ['Demo · 127.0.0.1:4000', ['demo-oct']],
      ['Could not be read', ['x']],
    ]);
  });
});

describe("a group's fetches by month", () => {
  it('puts the fetches of one period together, the newest first, months newest first; damaged entries are not months', () => {
    const [acme] = groupByProfile([
      listing('sep', 'Acme', 'billing.acme.example', '2026-09-01'),
      listing('oct', 'Acme', 'billing.acme.example', '2026-10-01', '2026-11-07T08:00:00Z'),
      listing('oct-third', 'Acme', 'billing.acme.example', '2026-10-01', '2026-11-09T08:00:00Z'),
      listing('oct-again', 'Acme', 'billing.acme.example', '2026-10-01', '2026-11-08T08:00:00Z'),
    ]);
    expect(fetchesByMonth(acme!.listings).map((month) => month.map((meta) => meta.id))).toEqual([['oct-third', 'oct-again', 'oct'], ['sep']]);
    expect(fetchesByMonth([{ state: 'damaged', id: 'x', file: 'x.json', reason: 'cut short' }])).toEqual([]);
  });
});
