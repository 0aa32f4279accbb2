import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { inlineConnection, runCli, useSimulator } from '@testing/cli-test-support';

const simulator = useSimulator(['--organizations', '10']);
const cli = (args: string[]) => runCli(args, simulator.dataDir);
const UNKNOWN = '11111111-2222-4333-8444-555555555555';

async function meteredSubscriptions(): Promise<{ subscriptionId: string; addonIds: string[] }[]> {
  return (await (await fetch(`${simulator.baseUrl}/__twin/subscriptions`)).json()) as { subscriptionId: string; addonIds: string[] }[];
}

async function csvFile(name: string, lines: string[]): Promise<string> {
  const path = join(simulator.dataDir, name);
  await writeFile(path, `Subscription ID;Is add-on;Add-on ID;Quantity\r\n${lines.join('\r\n')}\r\n`);
  return path;
}

describe('closebook consumption CLI', () => {
  it('validate names each bad row on stderr and exits 1; a good file exits 0', async () => {
    const [first] = await meteredSubscriptions();
    const bad = await csvFile('bad.csv', [`${first!.subscriptionId};no;;12,5`, `${first!.subscriptionId};yes;;3`, 'not-a-guid;no;;1']);
    const result = await cli(['consumption', 'validate', '--file', bad]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('row 3, Add-on ID: Add-on ID is required when Is add-on is yes.');
    expect(result.stderr).toContain('row 4, Subscription ID:');
    const good = await csvFile('good.csv', [`${first!.subscriptionId};no;;12,5`]);
    expect((await cli(['consumption', 'validate', '--file', good])).code).toBe(0);
  });

  it('submit exits 3 with a --failed-out file for a rejected batch, then 0 once fixed; history lists both', async () => {
    const subscriptions = await meteredSubscriptions();
    const withAddon = subscriptions.find((s) => s.addonIds.length)!;
    const plain = subscriptions.find((s) => s !== withAddon)!;
    const valid = [`${plain.subscriptionId};no;;12,5`, `${withAddon.subscriptionId};yes;${withAddon.addonIds[0]};3`];
    const rejected = await csvFile('march.csv', [...valid, `${UNKNOWN};no;;7`]);
    const failedOut = join(simulator.dataDir, 'failed.xlsx');
    const failed = await cli([
      'consumption',
      'submit',
      '--file',
      rejected,
      '--failed-out',
      failedOut,
      '--poll-interval',
      '0.2',
      ...inlineConnection(simulator.baseUrl),
    ]);
    expect(failed.code).toBe(3);
    expect(failed.stderr).toMatch(/row 4: Subscription 11111111-2222-4333-8444-555555555555 does not exist/);
    expect(failed.stderr).toMatch(/Nothing of this batch was saved/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(failedOut);
    const sheet = workbook.getWorksheet('Failed records')!;
    expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(['Row', 'Subscription ID', 'Is add-on', 'Add-on ID', 'Quantity', 'Consumption ID', 'Error']);
    expect(sheet.getRow(2).getCell(1).value).toBe(4);
    expect(String(sheet.getRow(2).getCell(7).value)).toMatch(/does not exist/);

    const failedCsv = join(simulator.dataDir, 'failed.csv');
    expect(
      (await cli(['consumption', 'submit', '--file', rejected, '--failed-out', failedCsv, '--poll-interval', '0.2', ...inlineConnection(simulator.baseUrl)]))
        .code,
    ).toBe(3);
    expect(await readFile(failedCsv, 'utf8')).toContain('Row,Subscription ID,Is add-on,Add-on ID,Quantity,Consumption ID,Error');

    const fixed = await csvFile('march.csv', valid);
    const ok = await cli(['consumption', 'submit', '--file', fixed, '--poll-interval', '0.2', ...inlineConnection(simulator.baseUrl)]);
    expect(ok.code).toBe(0);
    const taskId = ok.stdout.trim();
    expect(taskId).toMatch(/^[0-9a-f-]{36}$/);

    const repeat = await cli(['consumption', 'submit', '--file', fixed, ...inlineConnection(simulator.baseUrl)]);
    expect([repeat.code, repeat.stderr]).toEqual([1, expect.stringContaining('--yes')]);

    const status = await cli(['consumption', 'status', taskId, ...inlineConnection(simulator.baseUrl)]);
    expect([status.code, status.stdout.trim()]).toEqual([0, 'Successful']);
    const history = JSON.parse((await cli(['consumption', 'history', '--json'])).stdout) as { state: string }[];
    expect(history.map((entry) => entry.state)).toEqual(['Successful', 'Failed', 'Failed']);

    // The same records for another month are that month's usage: sent without --yes, and the history says which month.
    expect(await cli(['consumption', 'submit', '--file', fixed, '--period', '2026-13', ...inlineConnection(simulator.baseUrl)])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--period must be a month as YYYY-MM'),
    });
    // Usage for a month that has not begun cannot have been measured: refused, nothing sent (the history below is unchanged).
    expect(await cli(['consumption', 'submit', '--file', fixed, '--period', '2099-01', '--yes', ...inlineConnection(simulator.baseUrl)])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /\nclosebook: Nothing was sent\. Usage for January 2099 cannot be submitted yet: the month has not begun\. Choose the month the usage was measured in\.\n$/,
      ),
    });
    expect(
      (await cli(['consumption', 'submit', '--file', fixed, '--period', '2026-02', '--poll-interval', '0.2', ...inlineConnection(simulator.baseUrl)])).code,
    ).toBe(0);
    const lines = (await cli(['consumption', 'history'])).stdout.trim().split('\n');
    expect(lines[0]).toMatch(/Successful\s+February 2026\s+2 records\s+march\.csv/);
    expect(lines.slice(1).map((line) => line.match(/Successful|Failed — nothing was saved/)?.[0])).toEqual([
      'Successful',
      'Failed — nothing was saved',
      'Failed — nothing was saved',
    ]);
  }, 120_000);

  it('submit exits 1 naming the bad row and sends nothing', async () => {
    const bad = await csvFile('bad2.csv', [`${UNKNOWN};maybe;;1`]);
    const result = await cli(['consumption', 'submit', '--file', bad, ...inlineConnection(simulator.baseUrl)]);
    expect([result.code, result.stderr]).toEqual([1, expect.stringContaining('row 2, Is add-on')]);
  });
});
