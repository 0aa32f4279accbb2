import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCliProcess } from '@testing/cli-test-support';
import { saveFigures, fuzzCount } from '@testing/fuzz';
import { type ServiceFixture, serviceFixture } from '@testing/service-fixture';

/**
 * The audit's race, between processes: on one data folder, `reports prepare` twice and `reports accept` at once, 30
 * rounds, each round after a `reports reopen`. DuckDB lets one process hold the ledger at a time, so each either
 * takes its step whole or is refused in words (the ledger in use, exit 2; a control, exit 5): the month is never
 * prepared twice in a row and the log's chain stays whole. (A review that opens an exception racing a prepare is the
 * core's test, month-close.test.ts; two workstations racing in the database itself is the team ledger's.)
 */

/**
 * Each round is four CLI processes (about 3 s on a 2-core machine): 30 keep the fault suite within CI's time, and
 * still reach both refusals (the ledger in use, a control). CLOSEBOOK_RACE_ROUNDS=300 races longer; `npm run test:soak` races 120.
 */
const ROUNDS = fuzzCount('CLOSEBOOK_RACE_ROUNDS', 30);
let fixture: ServiceFixture;
let exceptionIds: string[];

beforeAll(async () => {
  fixture = await serviceFixture();
  const view = await fixture.service.close.check(fixture.report.id);
  exceptionIds = view.exceptions.map((exception) => exception.id);
  if (exceptionIds.length) await fixture.service.close.review(fixture.report.id, exceptionIds, 'accepted', 'Checked before the race.');
  await fixture.service.dispose(); // the ledger is one process's at a time: the CLI processes take turns at it
}, 60_000);

afterAll(async () => {
  await fixture?.close();
});

describe('the sign-off raced by two processes', () => {
  it('takes each step whole or refuses it in words, prepares at most once a round, and keeps the log whole, round after round', async () => {
    const dir = fixture.ports.dataDir;
    const id = fixture.report.id;
    const outcomes = new Map<string, number>();
    const unclear: string[] = [];
    let prepared = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const reviewed = exceptionIds[round % Math.max(1, exceptionIds.length)];
      const results = await Promise.all([
        runCliProcess(['reports', 'prepare', id], dir),
        reviewed ? runCliProcess(['reports', 'accept', id, reviewed, '--note', `Round ${round}.`], dir) : runCliProcess(['reports', 'check', id], dir),
        runCliProcess(['reports', 'prepare', id], dir),
      ]);
      for (const [index, result] of results.entries()) {
        const step = index === 1 ? 'review' : 'prepare';
        const outcome =
          result.code === 0
            ? 'done'
            : /in use by another Closebook process/.test(result.stderr)
              ? 'ledger in use'
              : /Prepared already|reviews are locked/.test(result.stderr)
                ? 'refused by a control'
                : 'unclear';
        outcomes.set(`${step}: ${outcome}`, (outcomes.get(`${step}: ${outcome}`) ?? 0) + 1);
        if (outcome === 'unclear') unclear.push(`round ${round} ${step} (exit ${result.code}): ${result.stderr.trim()}`);
        if (step === 'prepare' && result.code === 0) prepared++;
      }
      // Back to Draft for the next round, when a prepare got through (a reopen needs the ledger too: it waits its turn).
      let reopened = await runCliProcess(['reports', 'reopen', id, '--reason', `Round ${round} done.`], dir);
      while (reopened.code !== 0 && /in use by another Closebook process/.test(reopened.stderr))
        reopened = await runCliProcess(['reports', 'reopen', id, '--reason', `Round ${round} done.`], dir);
      if (reopened.code !== 0 && !/nothing to reopen/.test(reopened.stderr)) unclear.push(`round ${round} reopen: ${reopened.stderr.trim()}`);
    }
    const log = await runCliProcess(['reports', 'log', id, '--json'], dir);
    const entries = (JSON.parse(log.stdout) as { entries: { action: string }[]; intact: boolean }).entries;
    const steps = entries.filter((entry) => entry.action === 'prepared' || entry.action === 'reopened').map((entry) => entry.action);
    const twice = steps.join(',').split('prepared,prepared').length - 1;
    saveFigures(inject('faultFiguresDir'), {
      boundary: '14 The sign-off raced by processes',
      inputs: ROUNDS * 3,
      crashes: 0,
      unclear: unclear.length,
      damaged: twice + (log.code === 0 ? 0 : 1),
      notes: [
        `${ROUNDS} rounds of prepare × 2 and a review at once, as CLI processes on one data folder: ${[...outcomes].map(([outcome, count]) => `${count} × ${outcome}`).join(', ')}; prepared ${prepared} times, each followed by its reopening (damaged = prepared twice in a row, or a broken log)`,
      ],
      examples: unclear.slice(0, 5),
    });
    expect(unclear).toEqual([]);
    expect(log.code).toBe(0); // exit 5 when the chain is broken
    expect(twice).toBe(0);
    expect(steps.filter((action) => action === 'prepared')).toHaveLength(prepared);
    expect(prepared).toBeGreaterThan(0);
  }, 600_000);
});
