import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { Money } from '@shared/money';
import type { WireBillingEntry } from '@testing/test-support';
import { inlineConnection, runCli, useSimulator, reportFetch } from '@testing/cli-test-support';

const simulator = useSimulator(['--organizations', '20', '--report-ready-seconds', '1']);
const cli = (args: string[]) => runCli(args, simulator.dataDir);

async function billingLineCostSums(path: string) {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  const sums = new Map<string, InstanceType<typeof Money>>();
  workbook.getWorksheet('Billing lines')!.eachRow((row, number) => {
    if (number === 1) return;
    const key = `${row.getCell(19).value}|${row.getCell(20).value}`;
    sums.set(key, (sums.get(key) ?? new Money(0)).plus(String(row.getCell(16).value)));
  });
  return sums;
}

describe('closebook report CLI', () => {
  it('fetches a report to a workbook whose per-currency totals equal the exact sums, then exports it again offline', async () => {
    const out = join(simulator.dataDir, 'october.xlsx');
    const fetched = await cli(reportFetch(simulator.baseUrl, '2026-10-01', '2026-10-31', '--out', out));
    expect(fetched.code).toBe(0);
    const reportId = fetched.stdout.trim();
    expect(reportId).toMatch(/^[0-9a-f-]{36}$/);
    expect(fetched.stderr).toMatch(/Generating the report — checked 1 time, next check in \d+ s/);
    expect(fetched.stderr).not.toMatch(/status \d/);
    expect(fetched.stderr).toMatch(/: Saved \(\d+ s\)/);

    // The served report, as received and kept (compressed) beside the ledger: what the workbook must add up to.
    const [received] = await readdir(join(simulator.dataDir, 'received'));
    const served = JSON.parse(gunzipSync(await readFile(join(simulator.dataDir, 'received', received!))).toString('utf8')) as { data: WireBillingEntry[] };
    const exact = new Map<string, InstanceType<typeof Money>>();
    for (const entry of served.data)
      for (const organization of entry.organizations)
        for (const service of organization.services)
          for (const item of service.items)
            for (const line of item.products) {
              const key = `${service.currencyCode}|${service.customerCurrencyCode ?? service.currencyCode}`;
              exact.set(key, (exact.get(key) ?? new Money(0)).plus(line.totalResellerPrice));
            }
    const online = await billingLineCostSums(out);
    expect([...online.keys()].sort()).toEqual([...exact.keys()].sort());
    for (const [key, sum] of exact) expect(online.get(key)?.eq(sum)).toBe(true);

    simulator.process?.kill('SIGTERM'); // offline from here on
    const list = await cli(['reports', 'list', '--json']);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ state: 'ok', meta: expect.objectContaining({ id: reportId }) })]);
    const offline = join(simulator.dataDir, 'offline.xlsx');
    expect((await cli(['reports', 'export', reportId, '--out', offline])).code).toBe(0);
    const again = await billingLineCostSums(offline);
    for (const [key, sum] of exact) expect(again.get(key)?.eq(sum)).toBe(true);

    const grouped = join(simulator.dataDir, 'group.xlsx');
    const group = served.data[0]!.organizations[0]!.organizationGroups[0]!;
    const byGroup = await cli(['reports', 'export', reportId, '--out', grouped, '--group', group]);
    expect([byGroup.code, byGroup.stderr]).toEqual([0, expect.stringMatching(/Wrote \d+ billing lines/)]);
    expect((await cli(['reports', 'export', reportId, '--out', grouped, '--group', 'No such group'])).code).toBe(1);

    // The format follows --out's extension: Parquet and CSV hold every line; any other extension is refused.
    const lines = served.data.reduce(
      (n, entry) => n + entry.organizations.reduce((m, o) => m + o.services.reduce((k, s) => k + s.items.reduce((j, i) => j + i.products.length, 0), 0), 0),
      0,
    );
    for (const name of ['october.parquet', 'october.csv']) {
      const exported = await cli(['reports', 'export', reportId, '--out', join(simulator.dataDir, name)]);
      expect([exported.code, exported.stderr]).toEqual([0, `Wrote ${lines} billing lines to ${join(simulator.dataDir, name)}.\n`]);
    }
    expect((await readFile(join(simulator.dataDir, 'october.parquet'))).subarray(0, 4).toString()).toBe('PAR1');
    expect((await readFile(join(simulator.dataDir, 'october.csv'), 'utf8')).split('\r\n')).toHaveLength(lines + 2); // BOM + header, lines, final CRLF
    expect((await cli(['reports', 'export', reportId, '--out', join(simulator.dataDir, 'october.txt')])).code).toBe(1);
    // One workbook per organization group into a folder made for them; every twin organization is in two groups.
    const packDir = join(simulator.dataDir, 'packs', 'october');
    const packs = await cli(['reports', 'export', reportId, '--per-group', '--out-dir', packDir]);
    expect(packs.code).toBe(0);
    const organizationsByGroup = new Map<string, Set<string>>();
    for (const organization of served.data.flatMap((entry) => entry.organizations))
      for (const name of organization.organizationGroups) organizationsByGroup.set(name, (organizationsByGroup.get(name) ?? new Set()).add(organization.orgId));
    const printed = packs.stdout
      .trim()
      .split('\n')
      .map((line) => /^(.+) {2}(\d+) organizations? {2}(\d+) billing lines {2}(.+\.xlsx)$/.exec(line));
    expect(printed.map((match) => [match?.[1], Number(match?.[2])]).sort()).toEqual(
      [...organizationsByGroup].map(([name, members]) => [name, members.size]).sort(),
    );
    expect((await readdir(packDir)).sort()).toEqual(printed.map((match) => match![4]!.slice(packDir.length + 1)).sort());
    expect(packs.stderr).toMatch(/\d+ organizations are in more than one group: each is in the pack of every group it belongs to/);
    for (const refused of [
      ['reports', 'export', 'no-such-report', '--per-group', '--out-dir', packDir],
      ['reports', 'export', reportId, '--per-group'],
    ]) {
      expect((await cli(refused)).code).toBe(1);
    }
    expect((await cli(['reports', 'export', 'no-such-report', '--per-group', '--out-dir', packDir])).stderr).toMatch(/No saved report with id no-such-report/);

    expect((await cli(['reports', 'delete', reportId])).code).toBe(0);
    expect(JSON.parse((await cli(['reports', 'list', '--json'])).stdout)).toEqual([]);
  }, 120_000);

  it('moves a report saved by an earlier version into the ledger on first use, saying so, and lists it', async () => {
    const dataDir = join(simulator.dataDir, 'upgrade');
    await mkdir(join(dataDir, 'reports'), { recursive: true });
    const id = '55555555-5555-4555-8555-555555555555';
    const meta = {
      id,
      schemaVersion: 1,
      name: 'Billing 2026-09',
      profileId: 'p',
      profileName: 'Prod',
      host: 'h',
      period: { startDate: '2026-09-01', endDate: '2026-09-30' },
      fetchedAt: '2026-10-07T00:00:00.000Z',
      counts: { billingEntries: 1, organizations: 0, services: 0, subscriptions: 0, lines: 0 },
      totals: [],
    };
    await writeFile(
      join(dataDir, 'reports', `${id}.report.json`),
      JSON.stringify({ meta, entries: [{ billingDate: '2026-09-07T00:00:00', billingContentStartDate: '', billingContentEndDate: '', organizations: [] }] }),
    );
    await writeFile(join(dataDir, 'reports', `${id}.meta.json`), JSON.stringify(meta));
    const listed = await runCli(['reports', 'list', '--json'], dataDir);
    expect(listed.stderr).toContain('Moving saved reports into the ledger: 1 of 1');
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ state: 'ok', meta: expect.objectContaining({ id, name: 'Billing 2026-09' }) })]);
    const noGroups = await runCli(['reports', 'export', id, '--per-group', '--out-dir', join(dataDir, 'packs')], dataDir);
    expect([noGroups.code, noGroups.stderr]).toEqual([1, expect.stringMatching(/No organization in this report belongs to an organization group/)]);
  });

  it('imports a report file, refuses a bad one with exit 1 and one clear line, and deletes a damaged entry', async () => {
    const dataDir = join(simulator.dataDir, 'imports');
    await mkdir(dataDir, { recursive: true });
    const entry = {
      billingDate: '2026-09-07T00:00:00',
      billingContentStartDate: '2026-09-01T00:00:00',
      billingContentEndDate: '2026-09-30T00:00:00',
      organizations: [
        {
          orgId: 'o1',
          name: 'Acme',
          customerNumber: 'C-1',
          organizationGroups: [],
          services: [
            {
              serviceId: 's1',
              name: 'Azure plan',
              currencyCode: 'EUR',
              totalResellerPrice: '10',
              totalCustomerPrice: '12',
              items: [
                {
                  subscriptionId: 'u1',
                  name: 'Plan',
                  totalResellerPrice: '10',
                  totalCustomerPrice: '12',
                  products: [
                    {
                      productId: 'p1',
                      name: 'VM',
                      quantity: '1',
                      resellerPricePerUnit: '10',
                      customerPricePerUnit: '12',
                      totalResellerPrice: '10',
                      totalCustomerPrice: '12',
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const meta = {
      id: '77777777-7777-4777-8777-777777777777',
      schemaVersion: 1,
      name: 'Billing 2026-09',
      profileId: 'p',
      profileName: 'Prod',
      host: 'h',
      period: { startDate: '2026-09-01', endDate: '2026-09-30' },
      fetchedAt: '2026-10-07T00:00:00.000Z',
      counts: { billingEntries: 1, organizations: 1, services: 1, subscriptions: 1, lines: 1 },
      totals: [],
    };
    const shared = JSON.stringify({ meta, entries: [entry] });
    const good = join(dataDir, 'september.json');
    await writeFile(good, shared);
    const imported = await runCli(['reports', 'import', good], dataDir);
    expect([imported.code, imported.stderr]).toEqual([0, expect.stringContaining('Imported')]);

    const hostile = join(dataDir, 'hostile.json');
    await writeFile(hostile, shared.replace('"totalResellerPrice":"10"', `"totalResellerPrice":"0.${'1'.repeat(100_000)}"`));
    const started = performance.now();
    const refused = await runCli(['reports', 'import', hostile], dataDir);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/totalResellerPrice/);
    expect(refused.stderr.length).toBeLessThan(400);

    const truncated = join(dataDir, 'truncated.json');
    await writeFile(truncated, shared.slice(0, 600));
    const cut = await runCli(['reports', 'import', truncated], dataDir);
    expect([cut.code, cut.stderr]).toEqual([1, expect.stringMatching(/cut short|ends too early/)]);

    // A pair of files left by an earlier version that cannot be read is listed as damaged — and the CLI can delete it.
    const damagedId = '66666666-6666-4666-8666-666666666666';
    await mkdir(join(dataDir, 'reports'), { recursive: true });
    await writeFile(join(dataDir, 'reports', `${damagedId}.report.json`), '{"meta": ');
    await writeFile(join(dataDir, 'reports', `${damagedId}.meta.json`), '{"id": ');
    expect((await runCli(['reports', 'list'], dataDir)).stdout).toMatch(new RegExp(`${damagedId} {2}DAMAGED`));
    expect((await runCli(['reports', 'delete', damagedId], dataDir)).code).toBe(0);
    const after = JSON.parse((await runCli(['reports', 'list', '--json'], dataDir)).stdout) as { state: string }[];
    expect(after.map((listing) => listing.state)).toEqual(['ok']);
  }, 60_000);

  it('refuses a bad period with exit 1 and names the flag', async () => {
    const result = await cli(['report', 'fetch', '--from', '2026-10-31', '--to', '2026-10-01', ...inlineConnection('http://127.0.0.1:9')]);
    expect([result.code, result.stderr]).toEqual([1, expect.stringContaining('--to must not be before the start date')]);
    expect((await cli(['report', 'fetch', '--from', '2026-13-01', '--to', '2026-10-01'])).code).toBe(1);
  });
});
