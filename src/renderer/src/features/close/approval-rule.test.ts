import { describe, expect, it } from 'vitest';
import type { SignOff } from '@shared/schemas/month-close';
import { approvalRefusal } from './approval-rule';

const prepared: SignOff = {
  state: 'prepared',
  reportId: 'r',
  contentHash: 'c'.repeat(64),
  preparedBy: 'mlind',
  preparedAt: '2026-12-08T09:00:00.000Z',
  approvedBy: null,
  approvedAt: null,
  thresholds: null,
};
const accepted = (severity: 'high' | 'medium', reviewedBy: string) => ({ severity, review: { state: 'accepted' as const, reviewedBy } });

describe('why you may not approve, said before the click', () => {
  it('names the preparer, then high exceptions you accepted; medium ones and others’ are no bar', () => {
    const view = {
      signOff: prepared,
      teamLedger: true,
      open: { high: 0, medium: 0, low: 0 },
      exceptions: [accepted('high', 'jberg'), accepted('high', 'jberg'), accepted('medium', 'akarl')],
    };
    expect(approvalRefusal({ ...view, you: 'mlind' })).toBe('You (mlind) prepared this month, so you cannot approve it: a second person must.');
    expect(approvalRefusal({ ...view, you: 'jberg' })).toBe(
      'You (jberg) accepted 2 high exceptions of this month, so you cannot also approve it: a second person must.',
    );
    expect(approvalRefusal({ ...view, you: 'akarl' })).toBeNull();
    expect(approvalRefusal({ ...view, exceptions: [{ severity: 'high', review: { state: 'resolved', reviewedBy: 'akarl' } }], you: 'akarl' })).toBeNull();
    expect(approvalRefusal({ ...view, teamLedger: false, you: 'mlind' })).toMatch(/signs in through the team ledger/);
  });
  it('names exceptions open since the month was prepared before anything else, the preparer alone included: the month is reopened to review them', () => {
    const view = { signOff: prepared, teamLedger: false, exceptions: [], you: 'mlind' };
    expect(approvalRefusal({ ...view, open: { high: 0, medium: 2, low: 7 } })).toBe(
      '9 exceptions are open since the month was prepared (a review suspended, or found by checks against a month before fetched since). Reopen the month (with a reason) to review them; until then it is not ready to invoice.',
    );
    expect(approvalRefusal({ ...view, open: { high: 1, medium: 0, low: 0 } })).toMatch(/^1 exception is open since/);
  });
});
