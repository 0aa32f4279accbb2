import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService } from '@core';
import { testPorts } from '@testing/test-support';
import { inlineConnection, runCli, useSimulator, reportFetch } from '@testing/cli-test-support';
import { startTeamLedgerCluster, type TestCluster } from '@testing/postgres';
import { temporaryDir } from '@testing/test-support';
import type { ExceptionJson } from './close-commands';

/*
 * Two workstations close one month together on a real PostgreSQL: A (preparer_a, two data folders, two roles)
 * fetches, reviews and prepares; B (approver_b, no fetch of its own) opens the lines from the team ledger and
 * approves. The database, not the app, refuses A's approval of the month A prepared.
 */

const PASSWORD = 'a long test password';
const simulator = useSimulator(['--organizations', '12', '--report-ready-seconds', '1']);

let cluster: TestCluster;
let workstationB: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  workstationB = await temporaryDir();
  // preparer_a may also approve (a small team's usual grant): only the database's rule keeps A from approving A's month.
  cluster = await startTeamLedgerCluster({ preparer_a: ['preparer', 'approver'], approver_b: ['approver'], auditor_c: ['auditor'] }, PASSWORD);
}, 120_000);

afterAll(async () => {
  cluster?.stop();
  await workstationB?.remove();
});

const address = (role: string) =>
  `postgresql://${role}@127.0.0.1:${cluster.port}/postgres?sslmode=verify-full&sslrootcert=${encodeURIComponent(cluster.caFile)}`;
const A = (args: string[]) => runCli(args, simulator.dataDir, { CLOSEBOOK_TEAM_PASSWORD: PASSWORD });
const B = (args: string[]) => runCli(args, workstationB.path, { CLOSEBOOK_TEAM_PASSWORD: PASSWORD });
const asRole = (role: string, sql: string) => cluster.psql(role, PASSWORD, ['-At', '-c', sql]);

async function fetchMonth(from: string, to: string): Promise<string> {
  const fetched = await A(reportFetch(simulator.baseUrl, from, to));
  expect([fetched.code, fetched.stderr]).toEqual([0, expect.any(String)]);
  return fetched.stdout.trim();
}

describe('two workstations closing one month on the team ledger', () => {
  it('A prepares October, B opens it from the team ledger and approves it, and the database refuses A approving its own month', async () => {
    // Nothing to configure until a team ledger is connected: the workstation keeps the close.
    expect(await A(['team', 'status'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/No team ledger is connected/) });
    const connectedA = await A(['team', 'connect', address('preparer_a')]);
    expect(connectedA).toMatchObject({ code: 0, stdout: expect.stringMatching(/You are preparer_a .*\nYour roles: approver, preparer\./) });
    // This unit run has no keychain: the password is not written anywhere, and comes from the environment.
    expect(connectedA.stderr).toMatch(/No OS keychain answered, so the password was not kept/);
    expect(await B(['team', 'connect', address('approver_b')])).toMatchObject({ code: 0, stdout: expect.stringMatching(/You are approver_b/) });

    await fetchMonth('2026-09-01', '2026-09-30');
    const october = await fetchMonth('2026-10-01', '2026-10-31');
    const checked = await A(['reports', 'check', october, '--json']);
    expect([checked.code, checked.stderr]).toEqual([4, expect.stringMatching(/13 exceptions open/)]);
    const exceptions = JSON.parse(checked.stdout) as ExceptionJson[];
    expect(exceptions.length).toBeGreaterThan(1);
    const ids = exceptions.map((exception) => exception.id);
    expect(await A(['reports', 'accept', october, ...ids, '--note', 'Checked against the contracts.'])).toMatchObject({ code: 0 });

    // Prepare shares October and the September its checks compared with, then the database records the sign-off.
    expect(await A(['reports', 'prepare', october])).toMatchObject({ code: 0 });
    expect(
      asRole(
        'auditor_c',
        "SELECT string_agg(to_char(period_start, 'YYYY-MM'), ',' ORDER BY period_start) FROM closebook.fetches JOIN closebook.months USING (month_id)",
      ).stdout.trim(),
    ).toBe('2026-09,2026-10');

    // A's approval of its own month: refused by the database (the session's role compared there), exit 5.
    const selfApproval = await A(['reports', 'approve', october]);
    expect(selfApproval).toMatchObject({
      code: 5,
      stderr: expect.stringContaining('preparer_a prepared this month, so preparer_a cannot approve it: approval needs a second person.'),
    });
    // …and with the app bypassed altogether, calling the function as preparer_a with psql.
    const set = asRole('auditor_c', 'SELECT exception_set::text FROM closebook.sign_offs').stdout.trim();
    const hash = asRole('auditor_c', 'SELECT content_hash FROM closebook.sign_offs').stdout.trim();
    expect(
      asRole(
        'preparer_a',
        `SELECT closebook.approve('${new URL(simulator.baseUrl).host}', (SELECT reseller_id FROM closebook.months LIMIT 1), '2026-10-01', '2026-10-31', '${hash}', '${set}'::jsonb, 'psql')`,
      ),
    ).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/preparer_a prepared this month, so preparer_a cannot approve it/),
    });

    // B: no fetch of its own. The team ledger lists October as Prepared; B pulls it (and September) and approves.
    const listed = await B(['team', 'months']);
    expect(listed.stdout).toMatch(/2026-10-01…2026-10-31 {2}Prepared .*shared by preparer_a .*not on this workstation/);
    const pulled = await B(['team', 'pull']);
    expect(pulled).toMatchObject({ code: 0, stderr: expect.stringMatching(/2 pulled, 0 already here/) });
    const list = JSON.parse((await B(['reports', 'list', '--json'])).stdout) as {
      meta: { id: string; period: { startDate: string }; importedFrom?: string };
    }[];
    const octoberB = list.find((listing) => listing.meta.period.startDate === '2026-10-01')!.meta;
    expect(octoberB.importedFrom).toMatch(/^the team ledger \(shared by preparer_a/);
    const seenByB = await B(['reports', 'check', octoberB.id, '--json']);
    expect(seenByB.code).toBe(0);
    const reviewedByA = JSON.parse(seenByB.stdout) as ExceptionJson[];
    expect(reviewedByA.map((exception) => [exception.id, exception.state, exception.reviewedBy])).toEqual(ids.map((id) => [id, 'accepted', 'preparer_a']));
    expect(seenByB.stderr).toMatch(/PREPARED: prepared by preparer_a at .*; awaiting approval by a second person\./);
    expect(await B(['reports', 'approve', octoberB.id])).toMatchObject({ code: 0 });
    expect((await A(['reports', 'check', october])).stderr).toMatch(/APPROVED by approver_b/);
    expect(await B(['team', 'pull'])).toMatchObject({ code: 0, stderr: expect.stringMatching(/0 pulled, 2 already here/) });

    // The month's checklist, from the team ledger's log: who did each step, on either workstation.
    const checklist = async (run: typeof A, reportId: string) =>
      Object.fromEntries(
        (
          JSON.parse((await run(['reports', 'checklist', reportId, '--json'])).stdout) as { steps: { id: string; done: { by: string | null } | null }[] }
        ).steps.map((step) => [step.id, step.done?.by ?? (step.done ? 'done' : null)]),
      );
    expect(await checklist(B, octoberB.id)).toMatchObject({
      fetched: expect.stringMatching(/^preparer_a \(/),
      reviewed: expect.stringMatching(/^preparer_a \(/),
      prepared: 'preparer_a',
      approved: 'approver_b',
      exported: null,
    });
    // The invoices exported (the whole workbook) on A: done, on B too.
    expect(await A(['reports', 'export', october, '--out', join(simulator.dataDir, 'october.xlsx')])).toMatchObject({ code: 0 });
    expect((await checklist(B, octoberB.id)).exported).toMatch(/^preparer_a \(/);
    // The calendar is the team's: set on A, read on B.
    expect(await A(['reports', 'calendar', '--holidays', '2026-11-02', '--due', 'prepared=7'])).toMatchObject({ code: 0 });
    expect(JSON.parse((await B(['reports', 'calendar', '--json'])).stdout)).toMatchObject({ holidays: ['2026-11-02'], dueBusinessDay: { prepared: 7 } });

    // The log, read through psql: every step with the role that took it; the owner cannot delete it.
    const log = asRole(
      'auditor_c',
      "SELECT action || ':' || actor FROM closebook.close_log JOIN closebook.months USING (month_id) WHERE period_start = '2026-10-01' ORDER BY seq",
    );
    // (The month was shared the moment A fetched it.)
    expect(log.stdout.trim().split('\n')).toEqual([
      'fetched:preparer_a',
      ...ids.map(() => 'accepted:preparer_a'),
      'prepared:preparer_a',
      'approved:approver_b',
      'exported:preparer_a',
    ]);
    const { owner } = cluster;
    expect(cluster.psql(owner.user, owner.password, ['-c', 'DELETE FROM closebook.close_log'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/append-only/),
    });
    // Each workstation reads the same log, its chain checked.
    const logB = await B(['reports', 'log', octoberB.id]);
    expect(logB).toMatchObject({ code: 0 });
    expect(logB.stdout).toMatch(/approver_b \(.*\) approved/);
    expect(logB.stderr).toMatch(/intact/);
    october_ = { a: october, b: octoberB.id };
  }, 240_000);

  it("shows a colleague's step on another workstation within seconds (LISTEN/NOTIFY)", async () => {
    // B's app: its own data folder (where B pulled October), signed in as approver_b, listening.
    const env = await testPorts({ host: 'browser-bridge', dataDir: workstationB.path, environment: { CLOSEBOOK_TEAM_PASSWORD: PASSWORD } });
    const app = createService(env.ports);
    try {
      await app.start();
      await new Promise((resolve) => setTimeout(resolve, 500)); // the listener signs in
      let started = 0;
      const heard = new Promise<{ action: string; ms: number }>((resolve) =>
        app.events.subscribe((event, payload) => {
          if (event === 'team:changed') resolve({ action: (payload as { action: string }).action, ms: performance.now() - started });
        }),
      );
      started = performance.now();
      expect(await A(['reports', 'reopen', october_.a, '--reason', 'A credit note from the service.'])).toMatchObject({ code: 0 });
      const { action, ms } = await heard;
      expect(action).toBe('reopened');
      // Measured from the start of A's CLI process (its start-up and sign-in included) to B hearing of it.
      expect(ms).toBeLessThan(5_000);
      expect((await app.handlers['close:state']({ reportId: october_.b })).state).toBe('draft');

      // Rates and thresholds are the team's: set on B, kept on the server (and logged), read back by anyone.
      const currencies = (await app.handlers['close:rates']({ reportId: october_.b })).currencies.map((entry) => entry.currency);
      const [reference, other] = currencies as [string, string];
      const set = await app.handlers['close:set-rates']({ reportId: october_.b, referenceCurrency: reference, rates: [{ currency: other, rate: '1.25' }] });
      expect(set.rates).toEqual([{ currency: other, rate: '1.25' }]);
      expect(asRole('auditor_c', `SELECT currency || '=' || rate::text FROM closebook.rates WHERE currency = '${other}'`).stdout.trim()).toBe(`${other}=1.25`);
      expect(asRole('auditor_c', "SELECT actor FROM closebook.close_log WHERE action = 'rates'").stdout.trim()).toBe('approver_b');
      const wanted = { marginDeviationPoints: 12, quantityJumpPercent: 80 };
      expect(await app.handlers['close:thresholds']({ profileId: 'any', thresholds: wanted })).toEqual(wanted);
      expect(asRole('auditor_c', "SELECT value::text FROM closebook.team_settings WHERE name = 'thresholds'").stdout.trim()).toBe(
        '{"quantityJumpPercent": 80, "marginDeviationPoints": 12}',
      );
      expect((await app.handlers['close:state']({ reportId: october_.b })).thresholds).toEqual(wanted);
    } finally {
      await app.dispose();
    }
  });

  it("moves a workstation's months and reviews in, signs nothing, and says what moved, what was there and what was left", async () => {
    // Workstation C closed November on its own before the team ledger: fetched, reviewed, prepared (by its OS user).
    const c = await temporaryDir();
    try {
      const C = (args: string[]) => runCli(args, c.path, { CLOSEBOOK_TEAM_PASSWORD: PASSWORD });
      const fetch = async (from: string, to: string) => (await C(reportFetch(simulator.baseUrl, from, to))).stdout.trim();
      await fetch('2026-10-01', '2026-10-31');
      const november = await fetch('2026-11-01', '2026-11-30');
      const found = JSON.parse((await C(['reports', 'check', november, '--json'])).stdout) as ExceptionJson[];
      const ids = found.map((exception) => exception.id);
      const high = found.filter((exception) => exception.severity === 'high').length;
      expect(high).toBeGreaterThan(0);
      expect(await C(['reports', 'accept', november, ...ids, '--note', 'Agreed with sales.'])).toMatchObject({ code: 0 });
      expect(await C(['reports', 'prepare', november])).toMatchObject({ code: 0 });

      expect(await C(['team', 'connect', address('preparer_a')])).toMatchObject({ code: 0 });
      const moved = await C(['team', 'move-in', '--json']);
      expect(moved.code).toBe(0);
      const report = JSON.parse(moved.stdout) as { fetchesMoved: number; fetchesThere: number; reviewsMoved: number; reviewsThere: number; left: string[] };
      // October has the lines A shared already; November is new, with its reviews; its local sign-off is not moved.
      // The acceptances of high exceptions stay: whoever made them makes them again, as themselves, on the team ledger.
      expect(report).toMatchObject({ fetchesMoved: 1, fetchesThere: 1, reviewsMoved: ids.length - high, reviewsThere: 0 });
      expect(report.left).toEqual([
        expect.stringMatching(new RegExp(`^2026-11-01…2026-11-30: ${high} acceptances? of high exceptions not moved — whoever accepted`)),
        expect.stringMatching(/^2026-11-01…2026-11-30: Prepared here by .*; nothing is signed by the move — prepare it again on the team ledger\.$/),
      ]);
      const there = asRole(
        'auditor_c',
        "SELECT r.reviewed_by || ':' || r.note FROM closebook.reviews r JOIN closebook.months m USING (month_id) WHERE m.period_start = '2026-11-01' LIMIT 1",
      );
      expect(there.stdout.trim()).toMatch(/^preparer_a:Agreed with sales\. \(reviewed by .* at .* on a workstation; moved in\)$/);
      expect(
        asRole(
          'auditor_c',
          "SELECT count(*) FROM closebook.sign_offs s JOIN closebook.months m USING (month_id) WHERE m.period_start = '2026-11-01'",
        ).stdout.trim(),
      ).toBe('0');
      // Moving in again moves nothing twice.
      expect(JSON.parse((await C(['team', 'move-in', '--json'])).stdout)).toMatchObject({
        fetchesMoved: 0,
        fetchesThere: 2,
        reviewsMoved: 0,
        reviewsThere: ids.length - high,
      });
    } finally {
      await c.remove();
    }
  }, 60_000); // CLI processes on two workstations: about 12 s alone, over 20 s beside other work

  it('shares a consumption batch the service accepted, so the metered check finds the same on every workstation', async () => {
    // A metered subscription October bills on exactly one line (what the metered check compares).
    const lines = join(simulator.dataDir, 'october-lines.csv');
    expect((await A(['reports', 'export', october_.a, '--out', lines])).code).toBe(0);
    const csv = await readFile(lines, 'utf8');
    const subscriptions = (await (await fetch(`${simulator.baseUrl}/__twin/subscriptions`)).json()) as { subscriptionId: string }[];
    const metered = subscriptions.find(({ subscriptionId }) => csv.split(subscriptionId).length === 2);
    const file = join(simulator.dataDir, 'october-usage.csv');
    await writeFile(file, `Subscription ID;Is add-on;Add-on ID;Quantity\r\n${metered!.subscriptionId};no;;9999\r\n`);
    const submitted = await A([
      'consumption',
      'submit',
      '--file',
      file,
      '--period',
      '2026-10',
      '--poll-interval',
      '0.2',
      '--yes',
      ...inlineConnection(simulator.baseUrl),
    ]);
    expect([submitted.code, submitted.stderr]).toEqual([0, expect.any(String)]);
    expect(asRole('auditor_c', "SELECT shared_by || ':' || to_char(period_start, 'YYYY-MM') FROM closebook.consumption").stdout.trim()).toBe(
      'preparer_a:2026-10',
    );
    // B submitted nothing, yet finds what A's submission makes differ from the bill — as A does.
    const differs = async (run: typeof A, reportId: string) =>
      (JSON.parse((await run(['reports', 'check', reportId, '--json'])).stdout) as ExceptionJson[])
        .filter((exception) => exception.rule === 'consumption-differs')
        .map((exception) => exception.id);
    const onA = await differs(A, october_.a);
    expect(onA).toHaveLength(1);
    expect(await differs(B, october_.b)).toEqual(onA);
  }, 60_000);

  it('signs a month off on lines first shared before its period was over, once this workstation fetched the same lines after it', async () => {
    const august = await fetchMonth('2026-08-01', '2026-08-31');
    // These lines were first shared on 20 August (a colleague's early look, standing in here by the owner's hand).
    const { owner } = cluster;
    const fetchedAt = () =>
      asRole(
        'auditor_c',
        "SELECT to_char(f.fetched_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') FROM closebook.fetches f JOIN closebook.months m USING (month_id) WHERE m.period_start = '2026-08-01'",
      ).stdout.trim();
    const early = cluster.psql(owner.user, owner.password, [
      '-c',
      "UPDATE closebook.fetches f SET fetched_at = '2026-08-20T10:00:00Z' FROM closebook.months m WHERE m.month_id = f.month_id AND m.period_start = '2026-08-01'",
    ]);
    expect([early.code, fetchedAt()]).toEqual([0, '2026-08-20']);
    expect((await A(['team', 'months'])).stdout).toMatch(/^2026-08-01…2026-08-31 \(partial\) {2}Draft /m);
    // This workstation fetched them after the month was over: preparing tells the team ledger so (the lines are not
    // sent again), and the database, which refuses a sign-off on lines fetched early, records it.
    const ids = (JSON.parse((await A(['reports', 'check', august, '--json'])).stdout) as ExceptionJson[]).map((exception) => exception.id);
    expect((await A(['reports', 'accept', august, ...ids, '--note', 'Checked.'])).code).toBe(0);
    expect(await A(['reports', 'prepare', august])).toMatchObject({ code: 0 });
    expect(fetchedAt()).not.toBe('2026-08-20');
    expect((await A(['team', 'months'])).stdout).toMatch(/^2026-08-01…2026-08-31 {2}Prepared /m);
  }, 60_000);

  it('opens the last synced state read-only when the team ledger cannot be reached, and changes nothing', async () => {
    cluster.halt();
    // (Exit 4: A's consumption batch left one exception open since A reopened the month.)
    const offline = await B(['reports', 'check', october_.b]);
    expect(offline).toMatchObject({
      code: 4,
      stderr: expect.stringMatching(
        /DRAFT: not prepared\.\nThe team ledger cannot be reached: this is the state last read from it, at \d{4}-\d\d-\d\dT[\d:.]+Z; nothing can be changed until it answers\./,
      ),
    });
    expect(await B(['reports', 'approve', october_.b])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/team ledger at 127\.0\.0\.1:\d+ cannot be reached/),
    });
  });
});

let october_ = { a: '', b: '' };
