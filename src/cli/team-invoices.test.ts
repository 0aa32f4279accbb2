import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliProcess, useSimulator, reportFetch } from '@testing/cli-test-support';
import { fillMapping } from '@testing/invoice-mapping';
import { startTeamLedgerCluster, type TestCluster } from '@testing/postgres';
import { temporaryDir } from '@testing/test-support';

/*
 * Invoicing as a team on a real PostgreSQL: one mapping and one number sequence, kept by the team ledger's functions.
 * Two workstations export October's invoices at the same moment: the numbers are given once, none skipped, and both
 * end with the same files.
 */

const PASSWORD = 'a long test password';
const simulator = useSimulator(['--organizations', '6', '--report-ready-seconds', '1']);

let cluster: TestCluster;
let workstationB: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  workstationB = await temporaryDir();
  cluster = await startTeamLedgerCluster({ preparer_a: ['preparer'], approver_b: ['approver'], auditor_c: ['auditor'] }, PASSWORD);
}, 120_000);

afterAll(async () => {
  cluster?.stop();
  await workstationB?.remove();
});

const address = (role: string) =>
  `postgresql://${role}@127.0.0.1:${cluster.port}/postgres?sslmode=verify-full&sslrootcert=${encodeURIComponent(cluster.caFile)}`;
const env = { CLOSEBOOK_TEAM_PASSWORD: PASSWORD };
const A = (args: string[]) => runCli(args, simulator.dataDir, env);
const B = (args: string[]) => runCli(args, workstationB.path, env);
const asRole = (role: string, sql: string) => cluster.psql(role, PASSWORD, ['-At', '-c', sql]);

describe('invoicing on the team ledger', () => {
  it('keeps one mapping and one sequence for the team, gives each number once to two workstations exporting at once, and keeps an invoiced month from reopening', async () => {
    expect((await A(['team', 'connect', address('preparer_a')])).code).toBe(0);
    expect((await B(['team', 'connect', address('approver_b')])).code).toBe(0);
    const fetched = await A(reportFetch(simulator.baseUrl, '2026-10-01', '2026-10-31'));
    expect(fetched.code).toBe(0);
    const october = fetched.stdout.trim();

    // A maps the month: the mapping goes to the team ledger, and B (no mapping of its own) invoices with it.
    expect((await A(['invoices', 'map', '--export', join(simulator.dataDir, 'blank.csv')])).code).toBe(0);
    await writeFile(join(simulator.dataDir, 'mapping.csv'), fillMapping(await readFile(join(simulator.dataDir, 'blank.csv'), 'utf8')));
    expect(await A(['invoices', 'map', '--import', join(simulator.dataDir, 'mapping.csv')])).toMatchObject({
      code: 0,
      stderr: expect.stringMatching(/6 customers/),
    });
    expect(asRole('auditor_c', "SELECT count(*) FILTER (WHERE kind = 'customer') || ',' || min(set_by) FROM closebook.invoice_mapping").stdout.trim()).toBe(
      '6,preparer_a',
    );
    // Its history: every entry as set, by whom; one entry's alone.
    const history = JSON.parse((await A(['invoices', 'map', '--history', '--json'])).stdout) as {
      kind: string;
      key: string;
      changedBy: string;
      entry: string;
    }[];
    expect(history.filter((change) => change.kind === 'customer')).toHaveLength(6);
    expect(new Set(history.map((change) => change.changedBy))).toEqual(new Set(['preparer_a']));
    const customerKey = history.find((change) => change.kind === 'customer')!.key;
    const one = await A(['invoices', 'map', '--history', customerKey]);
    expect(one).toMatchObject({ code: 0, stderr: expect.stringMatching(new RegExp(`^1 change of the mapping of .*, ${customerKey}\\.\\n$`)) });
    expect(one.stdout).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z  customer ${customerKey}  set by preparer_a \\(.+\\): \\{`));
    // The team's sequence, set on A.
    expect(await A(['invoices', 'settings', '--prefix', 'T-', '--next', '500'])).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^Next invoice: T-500;/),
    });

    // Prepared by A: with a team ledger, that is not ready to invoice — a second person approves first.
    const exceptions = (JSON.parse((await A(['reports', 'check', october, '--json'])).stdout) as { id: string }[]).map((entry) => entry.id);
    expect((await A(['reports', 'accept', october, ...exceptions, '--note', 'Checked'])).code).toBe(0);
    expect((await A(['reports', 'prepare', october])).code).toBe(0);
    expect(await A(['invoices', 'export', october, '--format', 'xero', '--out', join(simulator.dataDir, 'early')])).toMatchObject({
      code: 5,
      stderr: expect.stringMatching(/not ready to invoice: PREPARED — .*awaiting approval by a second person/),
    });
    expect((await B(['team', 'pull'])).code).toBe(0);
    const octoberB = (JSON.parse((await B(['reports', 'list', '--json'])).stdout) as { meta: { id: string } }[])[0]!.meta.id;
    expect((await B(['reports', 'approve', octoberB])).code).toBe(0);
    const runB = await B(['invoices', 'run', octoberB]);
    expect(runB).toMatchObject({ code: 0 });
    expect(runB.stdout).not.toMatch(/UNMAPPED/);

    // Both export at the same moment: the team ledger records one run; the other is told, and its next try writes the same run.
    const date = ['--invoice-date', '2026-11-09'];
    const [onA, onB] = await Promise.all([
      runCliProcess(['invoices', 'export', october, '--format', 'xero', '--out', join(simulator.dataDir, 'xero'), ...date], simulator.dataDir, env),
      runCliProcess(['invoices', 'export', octoberB, '--format', 'xero', '--out', join(workstationB.path, 'xero'), ...date], workstationB.path, env),
    ]);
    const outcomes = [onA, onB].map((outcome) => (outcome.code === 0 ? outcome.stderr.split(' ')[0] : `${outcome.code}: ${outcome.stderr.trim()}`));
    expect(outcomes.filter((outcome) => outcome === 'Exported')).toHaveLength(1);
    for (const [outcome, run, folder] of [
      [onA, A, simulator.dataDir],
      [onB, B, workstationB.path],
    ] as const) {
      if (outcome.code !== 0) {
        expect(outcome).toMatchObject({ code: 5, stderr: expect.stringMatching(/exported .*meanwhile: export again/) });
        expect((await run(['invoices', 'export', run === A ? october : octoberB, '--format', 'xero', '--out', join(folder, 'xero'), ...date])).code).toBe(0);
      }
    }
    const file = 'xero-invoices-2026-10.csv';
    const [fileA, fileB] = [await readFile(join(simulator.dataDir, 'xero', file)), await readFile(join(workstationB.path, 'xero', file))];
    expect(fileA.equals(fileB)).toBe(true);
    const numbers = [
      ...new Set(
        fileA
          .toString('utf8')
          .split('\r\n')
          .slice(1)
          .filter(Boolean)
          .map((row) => row.split(',')[10]),
      ),
    ];
    expect(numbers).toEqual(['T-500', 'T-501', 'T-502', 'T-503', 'T-504', 'T-505']);
    expect(
      asRole('auditor_c', "SELECT next_number || ':' || (SELECT count(*) FROM closebook.invoice_runs) FROM closebook.invoice_counters").stdout.trim(),
    ).toBe('506:1');

    // The database's own rules: no direct write, numbers only in order, and an invoiced month keeps its sign-off.
    expect(asRole('preparer_a', 'UPDATE closebook.invoice_counters SET next_number = 1')).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/permission denied/),
    });
    expect(
      asRole(
        'preparer_a',
        `SELECT closebook.set_invoice_counter('${new URL(simulator.baseUrl).host}', (SELECT reseller_id FROM closebook.months LIMIT 1), 'T-', 400)`,
      ),
    ).toMatchObject({ code: 1, stderr: expect.stringMatching(/can only move forward \(from 506\)/) });
    expect(await B(['reports', 'reopen', octoberB, '--reason', 'A late credit'])).toMatchObject({
      code: 5,
      stderr: expect.stringMatching(/invoices T-500–T-505 were exported .*not reopened/), // the workstation's copy says so first
    });
    const { owner } = cluster;
    expect(cluster.psql(owner.user, owner.password, ['-c', 'DELETE FROM closebook.sign_offs'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/invoices from T-500 were exported .*not reopened/),
    });
    expect(
      asRole('auditor_c', "SELECT string_agg(action, ',' ORDER BY seq) FROM closebook.close_log WHERE action IN ('invoiced', 'exported')").stdout.trim(),
    ).toMatch(/^invoiced,exported/);

    // An adjustment after the approval sends the run back for approval: not by whoever made it, and not invoiced before.
    const runA = JSON.parse((await A(['invoices', 'run', october, '--json'])).stdout) as {
      invoices: { orgId: string; currency: string; lines: { item: string }[] }[];
    };
    const target = runA.invoices[0]!;
    const adjusted = await A([
      'invoices',
      'adjust',
      october,
      '--customer',
      target.orgId,
      '--currency',
      target.currency,
      '--description',
      'Onboarding workshop',
      '--amount',
      '1500.00',
      '--item',
      target.lines[0]!.item,
      '--reason',
      'Agreed in the order form',
    ]);
    expect(adjusted).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^[0-9a-f-]{36}\n$/),
      stderr: expect.stringMatching(/awaits a second person's approval/),
    });
    expect(await A(['invoices', 'export', october, '--format', 'xero', '--out', join(simulator.dataDir, 'adjusted'), ...date])).toMatchObject({
      code: 5,
      stderr: expect.stringMatching(/1 adjustment made after the month was approved \(by preparer_a \(.*\)\) awaits a second person's approval/),
    });
    expect(await A(['invoices', 'approve-adjustments', october])).toMatchObject({
      code: 5,
      stderr: expect.stringMatching(/refused this step for preparer_a \(permission denied for function approve_invoice_adjustments\)/),
    });
    expect(await B(['invoices', 'approve-adjustments', octoberB])).toMatchObject({ code: 0 });
    const afterApproval = await A(['invoices', 'export', october, '--format', 'xero', '--out', join(simulator.dataDir, 'adjusted'), ...date]);
    expect(afterApproval).toMatchObject({ code: 0, stderr: expect.stringMatching(/^Exported 2 invoices \(T-506–T-507\)/) });
    const adjustedFile = (await readFile(join(simulator.dataDir, 'adjusted', file), 'utf8')).split('\r\n');
    expect(adjustedFile.filter((row) => row.includes('Onboarding workshop'))).toEqual([expect.stringMatching(/,T-507,.*,Onboarding workshop,1,1500\.00,/)]);
    expect(
      asRole('auditor_c', "SELECT string_agg(action || ':' || actor, ',' ORDER BY seq) FROM closebook.close_log WHERE action LIKE 'adjust%'").stdout.trim(),
    ).toBe('adjusted:preparer_a,adjustments-approved:approver_b');
  }, 300_000);
});
