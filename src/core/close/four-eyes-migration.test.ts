import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { ledgerAtSchema, ledgerWithMonth } from '@testing/ledger-month';
import { temporaryDir } from '@testing/test-support';
import { Ledger } from '../ledger/ledger';
import { silentLogger } from '../ports/ports';
import { MonthClose } from './month-close';
import { rm } from 'node:fs/promises';

const OCTOBER = '11111111-1111-4111-8111-000000000020';
const cleanups = cleanupsAfterEach();

/** A ledger as Closebook left it before four eyes (schema 4): a month reviewed, signed off, reopened and signed again. */
async function signedBeforeFourEyes(): Promise<string> {
  const dir = await temporaryDir();
  cleanups.push(() => dir.remove());
  // The month's lines, saved by today's Closebook into a folder of their own, then copied into the old ledger.
  const donor = await ledgerWithMonth({
    reportId: OCTOBER,
    seed: 7,
    organizations: 6,
    linesPerOrganization: 5,
    change: (entries) => {
      entries[0]!.organizations[0]!.customerNumber = '';
    },
  });
  await donor.ledger.close();
  cleanups.push(() => rm(donor.dir, { recursive: true, force: true }));
  const donorFile = join(donor.dir, 'ledger', 'closebook.duckdb');

  const { connection: old, close } = await ledgerAtSchema(dir.path, 4, donorFile);
  const month = `'billing.example.com', 'r', '2026-10-01', '2026-10-31'`;
  const noNumber = `'missing-customer-number|' || (SELECT org_id FROM organizations WHERE customer_number = '' LIMIT 1)`;
  await old.run(`INSERT INTO exception_reviews VALUES (${month}, ${noNumber}, 'accepted', 'Number added in the ERP.', 'mlind', '2026-11-08T09:00:00.000Z')`);
  await old.run(`INSERT INTO review_log VALUES
    (${month}, ${noNumber}, 'accepted', 'Number added in the ERP.', 'mlind', 'mlind', '2026-11-08T09:00:00.000Z'),
    (${month}, '', 'reopened', 'A late credit note.', 'Maria Lind', 'mlind', '2026-11-08T11:00:00.000Z')`);
  await old.run(`INSERT INTO sign_offs VALUES
    (${month}, '${OCTOBER}', 'abc', 'Maria Lind', 'mlind', '2026-11-08T10:00:00.000Z', '2026-11-08T11:00:00.000Z', 'mlind', 'A late credit note.'),
    (${month}, '${OCTOBER}', 'abc', 'Maria Lind', 'mlind', '2026-11-08T12:00:00.000Z', NULL, NULL, NULL)`);
  close();
  return dir.path;
}

describe('the four-eyes close, migrated', () => {
  it('makes the old sign-off Prepared by its OS user, keeps the typed name and every old entry in a chained log, and approves nothing', async () => {
    const dir = await signedBeforeFourEyes();
    const ledger = await Ledger.open(dir, silentLogger);
    cleanups.push(() => ledger.close());
    const close = new MonthClose(
      async () => ledger,
      null,
      async () => ({ user: 'jberg', roles: ['preparer', 'approver'], teamLedger: true }),
    );
    const log = await close.log(OCTOBER);
    expect(log).toMatchObject({ intact: true, brokenAt: null });
    expect(log.entries.map((entry) => [entry.action, entry.actor, entry.at])).toEqual([
      ['accepted', 'mlind', '2026-11-08T09:00:00.000Z'],
      ['prepared', 'mlind', '2026-11-08T10:00:00.000Z'],
      ['reopened', 'mlind', '2026-11-08T11:00:00.000Z'],
      ['prepared', 'mlind', '2026-11-08T12:00:00.000Z'],
    ]);
    expect(log.entries[3]?.note).toBe('Signed off as "Maria Lind" before the four-eyes close; migrated to Prepared.');

    const state = await close.state(OCTOBER);
    expect(state).toMatchObject({ state: 'prepared', signOff: { preparedBy: 'mlind', approvedBy: null, thresholds: null } });
    // Reviews carried over take their figures from the month on first check, and say so.
    const accepted = state.exceptions.find((exception) => exception.rule === 'missing-customer-number');
    expect(accepted?.review).toMatchObject({ state: 'accepted', capturedAtMigration: true, suspended: null });
    // The old sign-off's hash ('abc') was not the lines': the migrated month reads as changed, never as signed.
    expect(state.integrity.contentChanged).toBe(true);
    expect(state.readyToInvoice).toBe(false);
    // A new entry chains on to the migrated ones.
    await close.reopen(OCTOBER, 'Checked after the upgrade.');
    expect(await close.log(OCTOBER)).toMatchObject({
      intact: true,
      entries: expect.arrayContaining([expect.objectContaining({ seq: 5, action: 'reopened' })]),
    });
  });
});
