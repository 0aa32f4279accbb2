import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { Money } from '@shared/money';
import { runCli, useSimulator, reportFetch } from '@testing/cli-test-support';
import { generateOrganizations } from '@twin/dataset';
import { plantedChanges, type PlantedTarget } from '@twin/planted';
import type { ChangeJson, ExceptionJson } from './close-commands';

// The simulator's data set, rebuilt here from the same options: what it planted in November is known in advance.
const ORGANIZATIONS = 20;
const simulator = useSimulator(['--organizations', String(ORGANIZATIONS), '--report-ready-seconds', '1']);
const cli = (args: string[]) => runCli(args, simulator.dataDir);
const planted = plantedChanges(
  { seed: 42, organizations: generateOrganizations({ seed: 42, organizations: ORGANIZATIONS, linesPerOrganization: 10 }) },
  '2026-11',
);

async function fetchMonth(from: string, to: string): Promise<string> {
  const fetched = await cli(reportFetch(simulator.baseUrl, from, to));
  expect([fetched.code, fetched.stderr]).toEqual([0, expect.any(String)]);
  return fetched.stdout.trim();
}

const on = (target: PlantedTarget | null) => ({ orgId: target?.orgId, subscriptionId: target?.subscriptionId });
const onLine = (target: PlantedTarget | null) => ({ ...on(target), productId: target?.productId });

describe('closebook reports compare, check and accept', () => {
  it('reports each planted change and anomaly between two months of the twin, and exits 4 until every exception is accepted', async () => {
    const october = await fetchMonth('2026-10-01', '2026-10-31');
    const november = await fetchMonth('2026-11-01', '2026-11-30');

    // compare: each planted change, and nothing for a subscription left alone.
    const workbook = join(simulator.dataDir, 'november-vs-october.xlsx');
    const compared = await cli(['reports', 'compare', october, november, '--json', '--out', workbook]);
    expect([compared.code, compared.stderr]).toEqual([0, expect.stringMatching(/^\d+ changes: .*\nWrote \d+ changes to .*november-vs-october\.xlsx\.\n$/)]);
    const changes = JSON.parse(compared.stdout) as ChangeJson[];
    const quantity = changes.find(
      (change) =>
        change.kind === 'quantity' &&
        change.level === 'line' &&
        change.productId === planted.quantityJump?.productId &&
        change.subscriptionId === planted.quantityJump?.subscriptionId,
    );
    expect(quantity).toMatchObject({ ...onLine(planted.quantityJump), currency: expect.any(String) });
    expect(new Money(quantity!.after!.quantity!).eq(new Money(quantity!.before!.quantity!).times(2))).toBe(true);
    const price = changes.find(
      (change) =>
        change.kind === 'price' && change.subscriptionId === planted.unitPriceChange?.subscriptionId && change.productId === planted.unitPriceChange?.productId,
    );
    expect(price).toMatchObject({ ...onLine(planted.unitPriceChange), level: 'line', before: { quantity: price?.after?.quantity } });
    expect(new Money(price!.after!.unitPrice!).gt(price!.before!.unitPrice!)).toBe(true);
    expect(changes).toContainEqual(expect.objectContaining({ kind: 'new', level: 'subscription', ...on(planted.newSubscription), before: null }));
    expect(changes).toContainEqual(expect.objectContaining({ kind: 'lost', level: 'subscription', ...on(planted.lostSubscription), after: null }));
    expect(planted.unchanged).not.toBeNull();
    expect(changes.filter((change) => change.subscriptionId === planted.unchanged?.subscriptionId)).toEqual([]);
    const sheet = new ExcelJS.Workbook();
    await sheet.xlsx.readFile(workbook);
    const subscriptionIds: unknown[] = [];
    sheet.getWorksheet('Changes')!.eachRow((row) => subscriptionIds.push(row.getCell(8).value));
    expect(subscriptionIds).toEqual(expect.arrayContaining([planted.newSubscription?.subscriptionId, planted.lostSubscription?.subscriptionId]));

    // One id: that month against the month before it; each currency's bridge adds up exactly.
    const human = await cli(['reports', 'compare', november]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`Changes (${changes.length}):`);
    // Each change a line: kind, level and currency in columns, where it is, and before → after, as in the JSON.
    const side = (values: ChangeJson['before']) =>
      values
        ? [
            values.quantity !== null ? `qty ${values.quantity}` : '',
            values.unitPrice !== null ? `@ ${values.unitPrice}` : '',
            `sales ${values.sales}`,
            `cost ${values.cost}`,
          ]
            .filter(Boolean)
            .join(' ')
        : '—';
    const listed = human.stdout.split(`Changes (${changes.length}):\n`)[1]!.split('\n').filter(Boolean);
    expect(listed).toEqual(
      changes.map(
        (change) =>
          `  ${change.kind.padEnd(8)} ${change.level.padEnd(12)} ${change.currency.padEnd(7)} ${[change.organization, change.service, change.subscription, change.product].filter(Boolean).join(' / ')}: ${side(change.before)} → ${side(change.after)}`,
      ),
    );
    const bridges = human.stdout.split('\n').flatMap((line) => {
      const match = /^ {2}(\S+) {2}sales (\S+) → (\S+) \((\S+)\) = price (\S+), quantity (\S+), new\/lost (\S+), other (\S+)$/.exec(line);
      return match ? [match.slice(1)] : [];
    });
    expect(bridges.length).toBeGreaterThanOrEqual(5); // five currencies, and the two-currency pairs
    for (const [currency, before, after, change, ...effects] of bridges as string[][]) {
      expect(new Money(after!).minus(before!).eq(change!), currency).toBe(true);
      expect(effects.reduce((sum, effect) => sum.plus(effect), new Money(0)).eq(change!), currency).toBe(true);
    }
    // The cost splits the same way, in the purchase currency; the margin is sales − cost where both are in one currency.
    const costs = new Map(
      human.stdout.split('\n').flatMap((line) => {
        const match = /^ {2}(\S+) {2}cost \((\w+)\) (\S+) → (\S+) \((\S+)\) = price (\S+), quantity (\S+), new\/lost (\S+), other (\S+)$/.exec(line);
        return match ? [[match[1]!, match.slice(2)] as const] : [];
      }),
    );
    expect([...costs.keys()]).toEqual(bridges.map(([currency]) => currency));
    for (const [currency, sales] of bridges.map((bridge) => [bridge[0]!, bridge] as const)) {
      const [purchase, before, after, change, ...effects] = costs.get(currency)!;
      expect(purchase, currency).toBe(currency.split('→')[0]);
      expect(new Money(after!).minus(before!).eq(change!), currency).toBe(true);
      expect(effects.reduce((sum, effect) => sum.plus(effect), new Money(0)).eq(change!), currency).toBe(true);
      const margin = human.stdout.split('\n').find((line) => line.startsWith(`  ${currency}  margin`))!;
      expect(margin, currency).toBe(
        currency.includes('→')
          ? `  ${currency}  margin: none across two currencies`
          : `  ${currency}  margin ${new Money(sales[1]!).minus(before!).toFixed()} → ${new Money(sales[2]!).minus(after!).toFixed()} (${new Money(sales[2]!)
              .minus(after!)
              .minus(new Money(sales[1]!).minus(before!))
              .toFixed()
              .replace(/^(?!-)/, '+')})`,
      );
    }

    // check: each planted anomaly, open, and exit 4.
    const checked = await cli(['reports', 'check', november, '--json']);
    expect(checked.code).toBe(4);
    const exceptions = JSON.parse(checked.stdout) as ExceptionJson[];
    const open = { state: 'open', note: null };
    expect(exceptions).toContainEqual(expect.objectContaining({ rule: 'negative-margin', severity: 'high', ...on(planted.negativeMargin), ...open }));
    expect(exceptions).toContainEqual(expect.objectContaining({ rule: 'unbilled', ...on(planted.costWithoutSales), ...open }));
    expect(exceptions).toContainEqual(
      expect.objectContaining({ rule: 'missing-customer-number', orgId: planted.missingCustomerNumber?.orgId, customerNumber: '', ...open }),
    );
    expect(exceptions).toContainEqual(expect.objectContaining({ rule: 'line-total-mismatch', ...onLine(planted.lineTotalMismatch), ...open }));
    expect(exceptions).toContainEqual(expect.objectContaining({ rule: 'quantity-jump', ...onLine(planted.quantityJump) }));
    expect(exceptions).toContainEqual(expect.objectContaining({ rule: 'missing-subscription', ...on(planted.lostSubscription) }));
    expect(exceptions.filter((exception) => exception.subscriptionId === planted.unchanged?.subscriptionId)).toEqual([]);

    // accept: the high ones first (then --fail-on high passes), then the rest, one marked resolved instead.
    const high = exceptions.filter((exception) => exception.severity === 'high').map((exception) => exception.id);
    const acceptedHigh = await cli(['reports', 'accept', november, ...high, '--note', 'Checked with the account manager']);
    expect([acceptedHigh.code, acceptedHigh.stdout]).toEqual([0, `${exceptions.length - high.length}\n`]);
    expect((await cli(['reports', 'check', november, '--fail-on', 'high'])).code).toBe(0);
    const rest = exceptions.filter((exception) => exception.severity !== 'high').map((exception) => exception.id);
    const resolved = rest.pop()!;
    expect(await cli(['reports', 'accept', november, ...rest, '--note', 'Expected this month'])).toMatchObject({ code: 0, stdout: '1\n' });
    expect(await cli(['reports', 'accept', november, resolved, '--resolve', '--note', 'Put right in the service'])).toMatchObject({ code: 0, stdout: '0\n' });
    const done = await cli(['reports', 'check', november, '--json']);
    expect(done.code).toBe(0);
    const note = (id: string) =>
      high.includes(id)
        ? ['accepted', 'Checked with the account manager']
        : id === resolved
          ? ['resolved', 'Put right in the service']
          : ['accepted', 'Expected this month'];
    expect((JSON.parse(done.stdout) as ExceptionJson[]).map((exception) => [exception.state, exception.note])).toEqual(
      exceptions.map((exception) => note(exception.id)),
    );

    // The sign-off: prepared by this OS user; the same user's approval refused with exit 5 and the rule in words.
    expect(await cli(['reports', 'accept', november, 'negative-margin|no-such-org|x|EUR', '--note', 'n'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/1 exception does not exist in this month/),
    });
    const prepared = await cli(['reports', 'prepare', november]);
    expect([prepared.code, prepared.stdout, prepared.stderr]).toEqual([
      0,
      'prepared\n',
      expect.stringMatching(/PREPARED: prepared by \S+ at .*; not approved by a second person\.\n$/),
    ]);
    const approval = await cli(['reports', 'approve', november]);
    expect([approval.code, approval.stderr]).toEqual([
      5,
      expect.stringMatching(/prepared this month, so \S+ cannot approve it: approval needs a second person, who signs in through the team ledger/),
    ]);
    expect(await cli(['reports', 'accept', november, high[0]!, '--note', 'Again'])).toMatchObject({
      code: 5,
      stderr: expect.stringMatching(/Prepared, so its reviews are locked/),
    });
    expect(await cli(['reports', 'delete', november])).toMatchObject({ code: 5, stderr: expect.stringMatching(/cannot be deleted/) });
    const log = await cli(['reports', 'log', november, '--json']);
    expect(log.code).toBe(0);
    const entries = (JSON.parse(log.stdout) as { entries: { action: string }[]; intact: boolean }).entries;
    expect(entries.map((entry) => entry.action).slice(-2)).toEqual(['resolved', 'prepared']);
    expect((await cli(['reports', 'check', november])).stderr).toMatch(/PREPARED: prepared by/);

    // The evidence pack: its text holds the full content hash, the preparer and every exception with its note.
    const pdf = join(simulator.dataDir, 'november-evidence.pdf');
    const evidence = await cli(['reports', 'evidence', november, '--out', pdf]);
    expect([evidence.code, evidence.stderr]).toEqual([0, expect.stringMatching(/wrote the month's evidence \(\d+ pages?\) to /)]);
    const text = execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' });
    const state = JSON.parse((await cli(['reports', 'log', november, '--json'])).stdout) as { entries: { actor: string; action: string; hash: string }[] };
    const preparer = state.entries.find((entry) => entry.action === 'prepared')!.actor;
    const signedHash = /Content hash of the signed lines \(SHA-256\): ([0-9a-f]{64})/.exec(text.replace(/\s+/g, ' '))?.[1];
    expect(signedHash).toMatch(/^[0-9a-f]{64}$/);
    expect(text).toContain(`Prepared by: ${preparer} at`);
    expect(text).toMatch(/not approved by a second person/);
    const flat = text.replace(/\s+/g, ' ');
    // Long ids wrap (at a "|" or "-"): nothing is cut, so without the white space each is whole.
    const solid = text.replace(/\s+/g, '');
    for (const exception of exceptions) expect(solid, exception.id).toContain(exception.id.replace(/\s+/g, ''));
    expect(flat).toContain('“Checked with the account manager”');
    expect(flat).toContain('Note: Put right in the service');
    for (const entry of state.entries) expect(solid).toContain(`hash${entry.hash}`);
    const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))?.[1]);
    for (let page = 1; page <= pages; page++) expect(text).toContain(`Page ${page} of ${pages}`);

    // A month whose month before was never fetched is checked against the newest earlier one, and says so.
    expect((await cli(['reports', 'check', november])).stderr).not.toMatch(/newest earlier month/);
    const january = await fetchMonth('2027-01-01', '2027-01-31');
    expect((await cli(['reports', 'check', january])).stderr).toMatch(
      /compared with 2026-11-01…2026-11-30, the newest earlier month in the ledger: the months between are not in it \(fetch them/,
    );

    // October, checked with no month before it in the ledger, is prepared so; then September is fetched: what the
    // checks against it find was never reviewed, and the state says so.
    const octoberIds = (JSON.parse((await cli(['reports', 'check', october, '--json'])).stdout) as ExceptionJson[]).map((exception) => exception.id);
    expect(await cli(['reports', 'accept', october, ...octoberIds, '--note', 'Checked on its own'])).toMatchObject({ code: 0 });
    expect(await cli(['reports', 'prepare', october])).toMatchObject({ code: 0, stderr: expect.not.stringMatching(/open since/) });
    await fetchMonth('2026-09-01', '2026-09-30');
    const rechecked = await cli(['reports', 'check', october]);
    expect(rechecked.stderr).toMatch(
      new RegExp(
        `\\nPREPARED: prepared by .*\\n\\d+ exceptions? (is|are) open since the month was prepared .*Reopen the month \\(reports reopen ${october} --reason TEXT\\)`,
      ),
    );
    expect(rechecked.stderr).not.toMatch(/Accept each/); // its reviews are locked until it is reopened

    // A period not over yet (one far ahead, so that the test holds on any day) is fetched with a warning and cannot be prepared.
    const ahead = await cli(reportFetch(simulator.baseUrl, '2099-12-01', '2099-12-31'));
    expect([ahead.code, ahead.stderr]).toEqual([
      0,
      expect.stringMatching(/^This period ends on 2099-12-31: a report fetched by that day holds what was billed so far/),
    ]);
    const unfinished = ahead.stdout.trim();
    const savedList = (await cli(['reports', 'list'])).stdout;
    expect(savedList).toMatch(new RegExp(`^${unfinished} {2}\\S.* {2}2099-12-01…2099-12-31 \\(partial: fetched before the period ended\\) {2}`, 'm'));
    expect(savedList).toMatch(new RegExp(`^${october} {2}\\S.* {2}2026-10-01…2026-10-31 {2}`, 'm'));
    const aheadIds = (JSON.parse((await cli(['reports', 'check', unfinished, '--json'])).stdout) as ExceptionJson[]).map((exception) => exception.id);
    expect((await cli(['reports', 'accept', unfinished, ...aheadIds, '--note', 'Looked at'])).code).toBe(0);
    expect((await cli(['reports', 'check', unfinished])).stderr).toMatch(
      /\nDRAFT: not prepared\.\nThis fetch was made on \d{4}-\d\d-\d\d, before its period ended on 2099-12-31/,
    );
    expect(await cli(['reports', 'prepare', unfinished])).toMatchObject({
      code: 5,
      stderr: expect.stringMatching(
        /before its period ended on 2099-12-31: it holds what was billed so far, not the whole period\. Fetch the month again once it is over/,
      ),
    });
    // The month after it is checked against what was billed by then, and says so.
    const next = await fetchMonth('2100-01-01', '2100-01-31');
    expect((await cli(['reports', 'check', next])).stderr).toMatch(
      /^[^\n]*\. 2099-12-01…2099-12-31 was fetched on \d{4}-\d\d-\d\d, before it was over on 2099-12-31: the checks against last month compare with what was billed by then\. Fetch it again/,
    );
  }, 180_000);

  it('refuses an unknown report, a bad --fail-on and an accept without a note with exit 1, saying why', async () => {
    for (const args of [
      ['reports', 'compare', 'no-such-report'],
      ['reports', 'check', 'no-such-report'],
      ['reports', 'accept', 'no-such-report', 'rule|key', '--note', 'n'],
    ]) {
      const refused = await cli(args);
      expect([refused.code, refused.stderr], args.join(' ')).toEqual([1, 'closebook: No saved report with id no-such-report. See: closebook reports list\n']);
    }
    expect(await cli(['reports', 'check', 'x', '--fail-on', 'urgent'])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--fail-on must be high, medium or low'),
    });
    expect(await cli(['reports', 'accept', 'x', 'rule|key'])).toMatchObject({ code: 1, stderr: expect.stringContaining('--note TEXT') });
    // A calendar refused says each value as it was given, one problem each, and keeps the calendar it had.
    expect(await cli(['reports', 'calendar', '--holidays', '2026-02-30,24 Dec', '--due', 'fetched=0'])).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'closebook: The calendar is not usable: --due fetched is at least business day 1; holiday "2026-02-30" is not a real calendar date; holiday "24 Dec" must be a date like 2026-10-31.\n',
    });
    expect(JSON.parse((await cli(['reports', 'calendar', '--json'])).stdout)).toMatchObject({ holidays: [], dueBusinessDay: { fetched: 8 } });
  }, 60_000);
});
