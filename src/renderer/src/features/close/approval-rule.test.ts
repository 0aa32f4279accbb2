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
    const view = { signOff: prepared, teamLedger: true, exceptions: [accepted('high', 'jberg'), accepted('high', 'jberg'), accepted('medium', 'akarl')] };
    expect(approvalRefusal({ ...view, you: 'mlind' })).toBe('You (mlind) prepared this month, so you cannot approve it: a second person must.');
    expect(approvalRefusal({ ...view, you: 'jberg' })).toBe(
      'You (jberg) accepted 2 high exceptions of this month, so you cannot also approve it: a second person must.',
    );
    expect(approvalRefusal({ ...view, you: 'akarl' })).toBeNull();
    expect(approvalRefusal({ ...view, exceptions: [{ severity: 'high', review: { state: 'resolved', reviewedBy: 'akarl' } }], you: 'akarl' })).toBeNull();
    expect(approvalRefusal({ ...view, teamLedger: false, you: 'mlind' })).toMatch(/signs in through the team ledger/);
  });
});
