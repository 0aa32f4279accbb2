import { describe, expect, it } from 'vitest';
import { storedInvoice, storedRun } from '@testing/stored-invoices';
import { runBody } from '../invoices';
import { teamRunBody } from './team-invoices';

describe("a run's body for the team ledger", () => {
  const invoices = Array.from({ length: 40 }, (_, index) => storedInvoice(index + 1, index, 50));
  const run = storedRun('00000000-0000-4000-8000-000000000001', invoices, invoices, '2026-11-09T10:00:00.000Z');

  it('is the whole run as one jsonb value when it fits', () => {
    expect(teamRunBody(run)).toBe(runBody(run));
  });

  it('is refused in words, before anything is numbered, when it is larger than one value can be', () => {
    const size = Buffer.byteLength(runBody(run));
    expect(() => teamRunBody(run, size - 1)).toThrow(
      expect.objectContaining({
        code: 'storage',
        message: expect.stringMatching(
          /^The team ledger cannot keep this run of 40 invoices \(2,000 lines\) as one record: it would be \d+ MB.*Nothing was numbered or exported\./,
        ),
      }),
    );
    expect(teamRunBody(run, size)).toBe(runBody(run));
  });
});
