import { createHash } from 'node:crypto';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '@testing/cli-test-support';
import { startTeamLedgerCluster, startTestCluster, TEAM_LEDGER_SCHEMA, type TestCluster } from '@testing/postgres';
import { temporaryDir } from '@testing/test-support';

/*
 * The team ledger's schema (resources/team-ledger/closebook-team-ledger.sql) on a real PostgreSQL: the rules hold in
 * the database itself — whatever a client sends, through psql as much as through Closebook.
 */

const PASSWORD = 'a long test password';
const OCTOBER = `'billing.example.com', 'r-1', '2026-10-01', '2026-10-31'`;
const HASH = 'c'.repeat(64);

let cluster: TestCluster;
let dataDir: string;
let removeDataDir: () => Promise<void>;

beforeAll(async () => {
  ({ path: dataDir, remove: removeDataDir } = await temporaryDir());
  cluster = await startTeamLedgerCluster(
    { preparer_a: ['preparer'], approver_b: ['approver'], auditor_c: ['auditor'], both_d: ['preparer', 'approver'] },
    PASSWORD,
  );
}, 120_000);

afterAll(async () => {
  cluster?.stop();
  await removeDataDir?.();
});

/** SQL as one person, through psql (the way someone bypassing Closebook would). */
const as = (user: string, sql: string) => cluster.psql(user, PASSWORD, ['-At', '-c', sql]);

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** An exception's figures (their text) and the set the checks found: ids, severity and the hash of the figures. */
const evidence = (id: string) => `{"amount":"${id}"}`;
const exceptionSet = (ids: string[], severity = 'high') => JSON.stringify(ids.map((id) => ({ id, severity, evidence_hash: sha256(evidence(id)) })));
/** Shares a month's lines (three bytes standing for them) in one transaction, as Closebook does. */
const share = (user: string, month: string, hash = HASH, chunks = 1) =>
  as(
    user,
    `BEGIN; SELECT closebook.begin_fetch(${month}, '${hash}', 10, ${chunks}, 3, now(), 'ws-1'); SELECT closebook.put_chunk(${month}, '${hash}', 0, '\\x010203'::bytea); SELECT closebook.end_fetch(${month}, '${hash}', 'ws-1'); COMMIT;`,
  );
const review = (user: string, month: string, ids: string[], state = 'accepted', note = 'Checked.') =>
  as(
    user,
    `SELECT closebook.review(${month}, ARRAY[${ids.map((id) => `'${id}'`).join(',')}]::text[], ARRAY[${ids.map((id) => `'${evidence(id)}'`).join(',')}]::text[], '${state}', '${note}', 'ws-1')`,
  );
const prepare = (user: string, month: string, ids: string[]) =>
  as(user, `SELECT closebook.prepare(${month}, '${HASH}', NULL, 2, '${exceptionSet(ids)}'::jsonb, '{}'::jsonb, 'ws-1')`);
const approve = (user: string, month: string, ids: string[], hash = HASH) =>
  as(user, `SELECT closebook.approve(${month}, '${hash}', '${exceptionSet(ids)}'::jsonb, 'ws-2')`);

describe('the team ledger schema', () => {
  it('lets a preparer review and prepare and a second person approve, each step logged with the role that took it and the server time', () => {
    // Prepared lines must be on the team ledger, for the approver to open.
    expect(review('preparer_a', OCTOBER, ['e1'], 'accepted', 'Agreed Q4 discount.').code).toBe(0);
    expect(review('preparer_a', OCTOBER, ['e2'], 'resolved', 'Put right.').code).toBe(0);
    expect(prepare('preparer_a', OCTOBER, ['e1', 'e2'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/These lines are not on the team ledger/) });
    expect(review('preparer_a', OCTOBER, ['e2'], 'open').code).toBe(0);
    expect(share('preparer_a', OCTOBER).code).toBe(0);
    // An approver who did not review may approve; the preparer may not (the database compares the session's role).
    expect(prepare('preparer_a', OCTOBER, ['e1', 'e2'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/1 exception is still open/) });
    expect(review('preparer_a', OCTOBER, ['e2'], 'resolved', 'Put right.').code).toBe(0);
    expect(prepare('preparer_a', OCTOBER, ['e1', 'e2']).code).toBe(0);
    expect(review('preparer_a', OCTOBER, ['e1'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/Prepared, so its reviews are locked/) });
    // A preparer may not even call approve (no grant); inside, the function checks the role again.
    expect(approve('preparer_a', OCTOBER, ['e1', 'e2'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/permission denied for function approve/) });
    // The approver's workstation recomputes the lines and the exceptions: a mismatch is refused.
    expect(approve('approver_b', OCTOBER, ['e1', 'e2'], 'd'.repeat(64))).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/not the lines that were prepared/),
    });
    expect(approve('approver_b', OCTOBER, ['e1'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/found other exceptions/) });
    expect(approve('approver_b', OCTOBER, ['e1', 'e2']).code).toBe(0);

    const log = as(
      'auditor_c',
      "SELECT seq, action, actor, workstation, logged_at <= now() + interval '1 second', previous_hash, hash FROM closebook.close_log ORDER BY seq",
    );
    const rows = log.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('|'));
    expect(rows.map((row) => [row[1], row[2], row[3], row[4]])).toEqual([
      ['accepted', 'preparer_a', 'ws-1', 't'],
      ['resolved', 'preparer_a', 'ws-1', 't'],
      ['open', 'preparer_a', 'ws-1', 't'],
      ['fetched', 'preparer_a', 'ws-1', 't'],
      ['resolved', 'preparer_a', 'ws-1', 't'],
      ['prepared', 'preparer_a', 'ws-1', 't'],
      ['approved', 'approver_b', 'ws-2', 't'],
    ]);
    rows.forEach((row, index) => expect(row[5]).toBe(index ? rows[index - 1]![6] : ''));
  });

  it('refuses a self-approval in the database, called directly with psql', () => {
    const month = `'billing.example.com', 'r-1', '2026-09-01', '2026-09-30'`;
    expect(share('both_d', month).code).toBe(0);
    expect(review('both_d', month, ['x1'], 'resolved', 'Fixed.').code).toBe(0);
    expect(prepare('both_d', month, ['x1']).code).toBe(0);
    const refused = approve('both_d', month, ['x1']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('both_d prepared this month, so both_d cannot approve it: approval needs a second person.');
    // The refusal has its own SQLSTATE (class CB), so a client tells a control from a fault.
    expect(
      as(
        'both_d',
        `DO $$ BEGIN PERFORM closebook.approve(${month}, '${HASH}', '${exceptionSet(['x1'])}'::jsonb, 'ws'); EXCEPTION WHEN SQLSTATE 'CB001' THEN RAISE NOTICE 'control'; END $$`,
      ).stderr,
    ).toContain('NOTICE:  control');
  });

  it('refuses an approver who accepted a high exception of the month', () => {
    const month = `'billing.example.com', 'r-1', '2026-08-01', '2026-08-31'`;
    expect(share('approver_b', month).code).toBe(0);
    expect(review('both_d', month, ['y1']).code).toBe(0);
    expect(prepare('preparer_a', month, ['y1']).code).toBe(0);
    expect(approve('both_d', month, ['y1'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/both_d accepted 1 high exception of this month/) });
  });

  it("refuses an approver who adjusted the month's invoices since its last approval, and a run made from other lines than the approved", () => {
    const month = `'billing.example.com', 'r-4', '2026-04-01', '2026-04-30'`;
    expect(share('preparer_a', month).code).toBe(0);
    expect(review('preparer_a', month, ['w1'], 'resolved', 'Fixed.').code).toBe(0);
    const adjust = as('approver_b', `SELECT closebook.log_invoice_adjustment(${month}, 'Agreed in the order form', '{"kind":"add"}'::jsonb, 'ws-2')`);
    expect(adjust.code).toBe(0);
    expect(prepare('preparer_a', month, ['w1']).code).toBe(0);
    expect(approve('approver_b', month, ['w1'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /approver_b adjusted this month's invoices \("Agreed in the order form"\) since its last approval, so approver_b cannot also approve/,
      ),
    });
    expect(approve('both_d', month, ['w1']).code).toBe(0);

    const run = (hash: string, runId: string) =>
      as('preparer_a', `SELECT closebook.record_invoice_run(${month}, '${runId}', NULL, '${hash}', 'W-', 1, ARRAY['W-1'], '{}'::jsonb, 'ws-1')`);
    expect(run('d'.repeat(64), '00000000-0000-4000-8000-000000000041')).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/made from other lines than the month's approved ones/),
    });
    expect(run(HASH, '00000000-0000-4000-8000-000000000042').code).toBe(0);
    expect(
      as(
        'auditor_c',
        `SELECT string_agg(action || ':' || actor, ',' ORDER BY seq) FROM closebook.close_log l JOIN closebook.months m USING (month_id) WHERE m.reseller_id = 'r-4'`,
      ).stdout.trim(),
    ).toBe('fetched:preparer_a,resolved:preparer_a,adjusted:approver_b,prepared:preparer_a,approved:both_d,invoiced:preparer_a');
  });

  it('signs off only lines fetched after their period was over; the same lines fetched again later may be', () => {
    // A period far ahead: shared now, its lines are what was billed so far.
    const month = `'billing.example.com', 'r-6', '2099-12-01', '2099-12-31'`;
    expect(share('preparer_a', month).code).toBe(0);
    expect(prepare('preparer_a', month, [])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/This fetch was made on \d{4}-\d\d-\d\d, before its period ended on 2099-12-31: it holds what was billed so far/),
    });
    // Fetched again on its last day (UTC) the same lines are still early; fetched the day after, they are whole.
    const again = (user: string, at: string) => as(user, `SELECT closebook.fetched_again(${month}, '${HASH}', '${at}')`);
    expect(again('auditor_c', '2100-01-07T08:00:00Z')).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/permission denied for function fetched_again/),
    });
    expect(again('preparer_a', '2099-12-31T23:59:00Z').stdout.trim()).toBe('t');
    expect(prepare('preparer_a', month, [])).toMatchObject({ code: 1, stderr: expect.stringMatching(/before its period ended on 2099-12-31/) });
    expect(again('preparer_a', '2100-01-01T00:00:00Z').stdout.trim()).toBe('t');
    expect(again('preparer_a', '2099-12-02T00:00:00Z').stdout.trim()).toBe('t'); // an older time never replaces a later one
    expect(as('preparer_a', `SELECT closebook.fetched_again(${month}, '${'e'.repeat(64)}', '2100-01-01T00:00:00Z')`).stdout.trim()).toBe('f');
    expect(prepare('preparer_a', month, []).code).toBe(0);
  });

  it('brings a version 2 team ledger to version 3, then 4, by running each file alone, and refuses to run one twice', async () => {
    const older = await startTestCluster();
    const scripts = await temporaryDir();
    try {
      // The schema as version 2 installed it: the main script without its last two includes.
      const folder = dirname(TEAM_LEDGER_SCHEMA);
      const main = (await readFile(TEAM_LEDGER_SCHEMA, 'utf8')).replace(/^\\ir closebook-team-ledger-(audit|period-end)\.sql$/gm, '');
      await writeFile(join(scripts.path, 'version-2.sql'), main);
      await copyFile(join(folder, 'closebook-team-ledger-invoices.sql'), join(scripts.path, 'closebook-team-ledger-invoices.sql'));
      const owner = (args: string[]) => older.psql(older.owner.user, older.owner.password, args);
      expect(owner(['-f', join(scripts.path, 'version-2.sql')]).code).toBe(0);
      const state = () =>
        owner([
          '-At',
          '-c',
          "SELECT (SELECT max(version) FROM closebook.schema_version) || ':' || (SELECT count(*) FROM pg_trigger WHERE tgname IN ('approver_made_no_adjustment', 'run_of_approved_lines', 'sign_off_after_period_end'))",
        ]).stdout.trim();
      expect(state()).toBe('2:0');
      // A mapping entry set at version 2 is the first entry of the mapping's history.
      const entry = `INSERT INTO closebook.invoice_mapping VALUES ('h', 'r', 'customer', 'o-1', '{"orgId":"o-1"}', 'anna', 'ws', now())`;
      expect(owner(['-c', entry]).code).toBe(0);
      const upgrade = join(folder, 'closebook-team-ledger-audit.sql');
      expect(owner(['-f', upgrade]).code).toBe(0);
      expect(state()).toBe('3:2');
      expect(owner(['-At', '-c', "SELECT key || ':' || changed_by FROM closebook.invoice_mapping_log"]).stdout.trim()).toBe('o-1:anna');
      expect(owner(['-f', upgrade])).toMatchObject({
        code: 3,
        stderr: expect.stringMatching(/brings a version 2 team ledger to version 3; this one is version 3/),
      });
      expect(state()).toBe('3:2');
      const periodEnd = join(folder, 'closebook-team-ledger-period-end.sql');
      expect(owner(['-f', periodEnd]).code).toBe(0);
      expect(state()).toBe('4:3');
      expect(owner(['-f', periodEnd])).toMatchObject({
        code: 3,
        stderr: expect.stringMatching(/brings a version 3 team ledger to version 4; this one is version 4/),
      });
      expect(state()).toBe('4:3');
    } finally {
      older.stop();
      await scripts.remove();
    }
  }, 120_000);

  it("keeps the invoice mapping's history: each entry as it was set, by whom, and those a replaced mapping left out", () => {
    const host = `'billing.example.com', 'r-5'`;
    const customer = (orgId: string, vatTreatment: string) => `{"orgId": "${orgId}", "vatTreatment": "${vatTreatment}"}`;
    const set = (user: string, replace: boolean, customers: string[]) =>
      as(user, `SELECT closebook.set_invoice_mapping(${host}, ${replace}, '[${customers.join(',')}]'::jsonb, '[]'::jsonb, 'ws-${user}')`);
    expect(set('preparer_a', false, [customer('o-1', 'domestic')]).code).toBe(0);
    expect(set('preparer_a', true, [customer('o-1', 'domestic')]).code).toBe(0); // the same file again: nothing changed
    expect(set('approver_b', false, [customer('o-1', 'outside-scope')]).code).toBe(0);
    expect(set('preparer_a', true, [customer('o-2', 'domestic')]).code).toBe(0); // o-1 left out of a whole mapping
    expect(set('preparer_a', true, [customer('o-2', 'domestic')]).code).toBe(0);
    const history = as(
      'auditor_c',
      `SELECT string_agg(key || ':' || coalesce(mapping ->> 'vatTreatment', 'removed') || ':' || changed_by || ':' || workstation, ',' ORDER BY seq)
       FROM closebook.invoice_mapping_log WHERE reseller_id = 'r-5'`,
    );
    expect(history.stdout.trim()).toBe(
      'o-1:domestic:preparer_a:ws-preparer_a,o-1:outside-scope:approver_b:ws-approver_b,o-2:domestic:preparer_a:ws-preparer_a,o-1:removed:preparer_a:',
    );
    // Append-only, for the owner too; no role writes it but through the mapping.
    expect(as('preparer_a', 'DELETE FROM closebook.invoice_mapping_log')).toMatchObject({ code: 1, stderr: expect.stringMatching(/permission denied/) });
    const { owner } = cluster;
    expect(cluster.psql(owner.user, owner.password, ['-c', "UPDATE closebook.invoice_mapping_log SET changed_by = 'x'"])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/invoice_mapping_log is append-only: UPDATE is refused/),
    });
  });

  it('lets no role write a table directly, and keeps the log append-only for the owner too', () => {
    for (const sql of [
      `INSERT INTO closebook.sign_offs SELECT month_id, 'approved', 'x', NULL, 1, '[]', 'x', '{}', '[]', 'me', now(), 'me', now(), NULL, NULL FROM closebook.months LIMIT 1`,
      `INSERT INTO closebook.fetch_chunks SELECT month_id, content_hash, 9, '\\x00'::bytea FROM closebook.fetches LIMIT 1`,
      `UPDATE closebook.reviews SET note = 'changed'`,
      `DELETE FROM closebook.close_log`,
    ])
      for (const user of ['preparer_a', 'approver_b', 'auditor_c'])
        expect(as(user, sql), `${user}: ${sql}`).toMatchObject({ code: 1, stderr: expect.stringMatching(/permission denied/) });
    expect(as('auditor_c', `SELECT closebook.reopen(${OCTOBER}, 'no', 'ws')`)).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/permission denied for function reopen/),
    });
    const { owner } = cluster;
    for (const sql of ['DELETE FROM closebook.close_log', "UPDATE closebook.close_log SET note = 'x'", 'TRUNCATE closebook.close_log'])
      expect(cluster.psql(owner.user, owner.password, ['-c', sql]), sql).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/the close log is append-only/),
      });
    expect(Number(as('auditor_c', 'SELECT count(*) FROM closebook.close_log').stdout)).toBeGreaterThan(0);
  });

  it('ends consistent after 60 rounds of a review racing a prepare from two sessions', async () => {
    const month = ['billing.example.com', 'r-2', '2026-07-01', '2026-07-31'] as const;
    const ids = ['z1', 'z2', 'z3'];
    const connect = async (user: string) => {
      const client = new pg.Client({ connectionString: cluster.url(user, PASSWORD) });
      await client.connect();
      return client;
    };
    const [a, d] = [await connect('preparer_a'), await connect('both_d')];
    const reviewCall = (client: pg.Client, exceptionIds: string[], state: string) =>
      client.query('SELECT closebook.review($1, $2, $3, $4, $5, $6, $7, $8, $9)', [...month, exceptionIds, exceptionIds.map(evidence), state, 'Race.', 'ws']);
    const prepareCall = (client: pg.Client) =>
      client.query('SELECT closebook.prepare($1, $2, $3, $4, $5, NULL, 2, $6, $7, $8)', [...month, HASH, exceptionSet(ids), '{}', 'ws']);
    const reopenCall = (client: pg.Client) => client.query('SELECT closebook.reopen($1, $2, $3, $4, $5, $6)', [...month, 'Next round.', 'ws']);
    try {
      expect(share('preparer_a', month.map((value) => `'${value}'`).join(', ')).code).toBe(0);
      await reviewCall(a, ids, 'accepted');
      let prepared = 0;
      for (let round = 0; round < 60; round++) {
        const results = await Promise.allSettled([prepareCall(a), reviewCall(d, [ids[round % 3]!], 'open'), prepareCall(d)]);
        for (const result of results) if (result.status === 'rejected') expect((result.reason as { code?: string }).code, String(result.reason)).toBe('CB001');
        const state = await a.query(
          `SELECT s.state, (SELECT count(*) FROM closebook.reviews r WHERE r.month_id = m.month_id)::int AS reviewed
           FROM closebook.months m LEFT JOIN closebook.sign_offs s ON s.month_id = m.month_id WHERE m.reseller_id = 'r-2'`,
        );
        const { state: signed, reviewed } = state.rows[0] as { state: string | null; reviewed: number };
        if (signed) {
          prepared++;
          expect(reviewed, `round ${round}: prepared with an exception open`).toBe(3);
          await reopenCall(a);
        }
        await reviewCall(a, ids, 'accepted');
      }
      const steps = await a.query(
        `SELECT string_agg(action, ',' ORDER BY seq) AS steps FROM closebook.close_log l JOIN closebook.months m USING (month_id)
         WHERE m.reseller_id = 'r-2' AND action IN ('prepared', 'reopened')`,
      );
      const sequence = String((steps.rows[0] as { steps: string }).steps);
      expect(sequence).not.toMatch(/prepared,prepared/);
      expect(sequence.split(',').filter((action) => action === 'prepared')).toHaveLength(prepared);
      expect(prepared).toBeGreaterThan(0);
    } finally {
      await a.end();
      await d.end();
    }
  }, 120_000);

  it('stores a shared fetch whole or not at all, and only for the working roles', () => {
    const month = `'billing.example.com', 'r-1', '2026-06-01', '2026-06-30'`;
    // Two chunks announced, one sent: end_fetch refuses, and the transaction leaves nothing behind.
    expect(share('preparer_a', month, 'e'.repeat(64), 2)).toMatchObject({ code: 1, stderr: expect.stringMatching(/arrived incomplete \(1 of 2 chunks/) });
    expect(as('auditor_c', `SELECT count(*) FROM closebook.fetches WHERE content_hash = '${'e'.repeat(64)}'`).stdout.trim()).toBe('0');
    expect(share('auditor_c', month)).toMatchObject({ code: 1, stderr: expect.stringMatching(/permission denied for function begin_fetch/) });
    expect(share('approver_b', month).code).toBe(0);
    // Shared once: the same lines again are not sent twice.
    expect(as('preparer_a', `SELECT closebook.begin_fetch(${month}, '${HASH}', 10, 1, 3, now(), 'ws-1')`).stdout.trim()).toBe('f');
  });

  it('signs in through the CLI with the certificate checked, says who you are and what you may do, and refuses an unproven server', async () => {
    const address = (query: string) => `postgresql://preparer_a@127.0.0.1:${cluster.port}/postgres${query}`;
    const checked = `?sslmode=verify-full&sslrootcert=${encodeURIComponent(cluster.caFile)}`;
    const status = await runCli(['team', 'status', '--url', address(checked)], dataDir, { CLOSEBOOK_TEAM_PASSWORD: PASSWORD });
    expect([status.code, status.stderr]).toEqual([0, '']);
    expect(status.stdout).toMatch(
      /^You are preparer_a on 127\.0\.0\.1:\d+\/postgres \(PostgreSQL 1\d[.\d]*.*, TLS, certificate checked\)\.\nYour roles: preparer\.\nClosebook's schema: version 4\.\n$/,
    );
    // The server's certificate is signed by a CA this machine does not trust: refused, with what to do.
    const unproven = await runCli(['team', 'status', '--url', address('?sslmode=verify-full')], dataDir, { CLOSEBOOK_TEAM_PASSWORD: PASSWORD });
    expect(unproven).toMatchObject({ code: 2, stderr: expect.stringMatching(/did not prove who it is .* add sslrootcert=FILE/) });
    const wrong = await runCli(['team', 'status', '--url', address(checked)], dataDir, { CLOSEBOOK_TEAM_PASSWORD: 'not it' });
    expect(wrong).toMatchObject({ code: 2, stderr: expect.stringMatching(/refused the sign-in of preparer_a/) });
    expect(await runCli(['team', 'status', '--url', address(checked)], dataDir)).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/Set CLOSEBOOK_TEAM_PASSWORD/),
    });
    expect(
      await runCli(['team', 'status', '--url', `postgresql://preparer_a:pw@127.0.0.1:${cluster.port}/postgres`], dataDir, {
        CLOSEBOOK_TEAM_PASSWORD: PASSWORD,
      }),
    ).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/Leave the password out of the address/),
    });
  });

  it("refuses to prepare on other thresholds than the team's, and keeps the log's last entry with the sign-off", () => {
    const month = `'billing.example.com', 'r-3', '2026-05-01', '2026-05-31'`;
    expect(
      as('preparer_a', `SELECT closebook.set_team_setting('thresholds', '{"marginDeviationPoints": 12, "quantityJumpPercent": 80}'::jsonb, 'ws-1')`).code,
    ).toBe(0);
    // Each setting of the team's is kept as it was set, by whom (the table holds only the last).
    expect(
      as(
        'auditor_c',
        "SELECT string_agg(name || ':' || (value ->> 'marginDeviationPoints') || ':' || set_by || ':' || workstation, ',' ORDER BY seq) FROM closebook.team_settings_log",
      ).stdout.trim(),
    ).toBe('thresholds:12:preparer_a:ws-1');
    expect(share('preparer_a', month).code).toBe(0);
    expect(review('preparer_a', month, ['t1'], 'resolved', 'Fixed.').code).toBe(0);
    expect(prepare('preparer_a', month, ['t1'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/other thresholds than the team's/) });
    const prepared = as(
      'preparer_a',
      `SELECT closebook.prepare(${month}, '${HASH}', NULL, 2, '${exceptionSet(['t1'])}'::jsonb, '{"quantityJumpPercent": 80, "marginDeviationPoints": 12}'::jsonb, 'ws-1')`,
    );
    expect(prepared.code).toBe(0);
    expect(
      as(
        'auditor_c',
        `SELECT s.log_seq = (SELECT max(seq) FROM closebook.close_log l WHERE l.month_id = s.month_id) AND s.log_hash = (SELECT hash FROM closebook.close_log l WHERE l.month_id = s.month_id ORDER BY seq DESC LIMIT 1)
         FROM closebook.sign_offs s JOIN closebook.months m USING (month_id) WHERE m.reseller_id = 'r-3'`,
      ).stdout.trim(),
    ).toBe('t');
    const { owner } = cluster;
    cluster.psql(owner.user, owner.password, ['-c', "DELETE FROM closebook.team_settings WHERE name = 'thresholds'"]);
  });

  it('names the hash of a log entry the way the workstation does: each field as its byte length, a colon and its text', () => {
    const row = as(
      'auditor_c',
      `SELECT month_id, seq, action, exception_id, note, actor, workstation, to_char(logged_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), evidence, previous_hash, hash FROM closebook.close_log ORDER BY month_id, seq LIMIT 1`,
    )
      .stdout.trim()
      .split('|');
    const field = (value: string) => `${Buffer.byteLength(value, 'utf8')}:${value}`;
    const [monthId, seq, action, exceptionId, note, actor, workstation, at, evidence, previous, hash] = row as string[];
    const payload = [monthId, seq, action, exceptionId, note, actor, workstation, at, evidence].map((value) => field(value!)).join('');
    expect(
      createHash('sha256')
        .update(previous + payload)
        .digest('hex'),
    ).toBe(hash);
  });
});
