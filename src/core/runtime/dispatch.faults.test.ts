import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { type ChannelName, channelNames, channels } from '@shared/contract';
import { AppErrorShape } from '@shared/errors';
import { FUZZ_SEED, Fuzz, preview, saveFigures, unclearReason, fuzzCount } from '@testing/fuzz';
import { leftoverTemporaries, protectedState, type ServiceFixture, serviceFixtureForFile } from '@testing/service-fixture';
import { dispatch } from './dispatch';
import { silentLogger } from '../ports/ports';

/**
 * The IPC boundary under fuzzing: every contract channel gets its valid inputs and 150 malformed ones
 * (any value, then valid inputs with one thing changed), through the same `dispatch` Electron's IPC and the browser
 * bridge use. Nothing may throw or reject unhandled, every refusal must read clearly, and the saved profile,
 * report and consumption batch must come through unchanged.
 */

const INPUTS_PER_CHANNEL = fuzzCount('CLOSEBOOK_FUZZ_IPC_INPUTS', 150);
/**
 * Mutated inputs the contract still accepts do real work (an export takes about a second), so each channel takes
 * at most this many; the rest of its inputs are ones the contract must refuse. Deterministic for a seed.
 */
const ACCEPTED_PER_CHANNEL = 20;
/** A request that has not answered by then counts as a crash (a hang is as bad for the user). */
const ANSWER_WITHIN_MS = 30_000;

/** Requests that change or remove what they name: aimed at the decoys, never at the protected profile, report and batch. */
const DESTRUCTIVE: ReadonlySet<ChannelName> = new Set(['profiles:save', 'profiles:set-name-order', 'profiles:delete', 'reports:delete', 'reports:rename']);

const { fixture, rejections } = serviceFixtureForFile();

/** Valid inputs for each channel (a Record, so a channel added to the contract cannot be left out unnoticed). */
function validInputs(f: ServiceFixture): Record<ChannelName, unknown[]> {
  const c = f.twin.credentials;
  const fields = { name: 'Fuzzed', baseUrl: f.twin.baseUrl, clientId: c.clientId, username: c.username, resellerId: c.resellerId, sellerId: c.sellerId };
  const period = { startDate: '2026-08-01', endDate: '2026-08-31' };
  const filter = { group: 'Nordics', organization: 'a', service: 'Microsoft 365', currency: 'SEK', text: 'licence', ungrouped: false };
  const window = {
    reportId: f.report.id,
    filter: {},
    sort: { key: 'cost', direction: 'desc' },
    expansion: { all: 'organizations', toggled: ['o:1'] },
    hierarchy: 'service',
    offset: 0,
    count: 50,
  };
  const csv = Buffer.from(
    `Subscription ID,Is add-on,Quantity\n${f.consumptionRows.map((row) => `${row.subscriptionId},no,${row.quantity}`).join('\n')}\n`,
  ).toString('base64');
  return {
    'app:info': [{}],
    // No team ledger answers here: each says so (connect: the server cannot be reached; pull: none is connected).
    'team:status': [{}],
    'team:connect': [{ url: 'postgresql://anna@127.0.0.1:9/closebook', password: 'not kept' }],
    'team:disconnect': [{}],
    'team:pull': [{ period: '2026-10' }],
    'team:move-in': [{}],
    'profiles:list': [{}],
    'profiles:save': [
      { fields, apiSecret: c.apiSecret, password: c.password },
      { id: f.decoyProfile.id, fields: { ...fields, name: 'Decoy' }, password: c.password },
    ],
    'profiles:delete': [{ profileId: f.decoyProfile.id }],
    'profiles:set-active': [{ profileId: f.profile.id }],
    'profiles:set-name-order': [{ profileId: f.decoyProfile.id, nameOrder: 'sv' }],
    'profiles:test': [{ profileId: f.profile.id }],
    'demo:start': [{}],
    'organizations:list': [{ profileId: f.profile.id }],
    'organizations:in-report': [{ profileId: f.profile.id }],
    'organizations:create': [
      {
        profileId: f.profile.id,
        organization: {
          name: 'Fuzz AB',
          registrationNumber: '556677-8899',
          contact: { name: 'Eva', email: 'eva@fuzz.example' },
          customerNumber: 'C-1',
          address: { street: 'Gatan 1', postalCode: '111 22', city: 'Stockholm', countryCode: 'SE' },
          primaryDomain: 'fuzz.example',
        },
      },
    ],
    'reports:request': [{ profileId: f.profile.id, period }],
    'reports:jobs': [{}],
    'reports:cancel': [{ jobId: f.report.id }],
    'reports:retry': [{ jobId: f.report.id }],
    'reports:list': [{}],
    'reports:open': [{ reportId: f.report.id }],
    'reports:window': [
      window,
      { ...window, filter, sort: { key: 'label', direction: 'asc' }, expansion: { all: 'none', toggled: [] }, hierarchy: 'organization', offset: 10 },
    ],
    'reports:invoicing': [
      { reportId: f.report.id, filter: {} },
      { reportId: f.report.id, filter },
    ],
    'reports:rename': [{ reportId: f.decoyReport.id, name: 'Renamed by the fuzz' }],
    'reports:delete': [{ reportId: f.decoyReport.id }],
    'reports:export': [
      { reportId: f.report.id, format: 'csv' },
      { reportId: f.report.id, format: 'xlsx', filter },
      { reportId: f.report.id, format: 'parquet' },
    ],
    'reports:export-groups': [{ reportId: f.report.id }, { reportId: f.report.id, filter }],
    'reports:share': [{ reportId: f.report.id }],
    'reports:import': [{}, { upload: 'shared-report' }, { upload: 'garbage' }, { upload: 'gone' }],
    'clipboard:copy-table': [
      {
        rows: [
          ['Organization', 'Sales'],
          ['=HYPERLINK("x")', '12.50'],
        ],
      },
    ],
    'view:print-pdf': [{ fileName: 'October view' }],
    'settings:get': [{}],
    'settings:save': [{ reportColumns: ['quantity', 'cost', 'poNumber'], reportHierarchy: 'service' }],
    'close:state': [{ reportId: f.report.id }],
    'close:review': [{ reportId: f.report.id, exceptionIds: ['margin-outlier:o:1'], state: 'accepted', note: 'Agreed discount' }],
    'close:prepare': [{ reportId: f.report.id }],
    'close:approve': [{ reportId: f.report.id }],
    'close:log': [{ reportId: f.report.id }],
    'close:checklist': [{ reportId: f.report.id }],
    'close:calendar': [
      {},
      {
        calendar: { dueBusinessDay: { consumption: 3, fetched: 8, reviewed: 9, rates: 9, prepared: 10, approved: 11, exported: 12 }, holidays: ['2026-12-24'] },
      },
    ],
    'close:evidence': [{ reportId: f.report.id }],
    'close:reopen': [{ reportId: f.report.id, reason: 'A late credit' }],
    'close:compare': [{ beforeId: f.decoyReport.id, afterId: f.report.id }],
    'close:changes': [{ beforeId: f.decoyReport.id, afterId: f.report.id, view: { sort: 'effect', direction: 'desc', text: 'a' }, from: 0, count: 10 }],
    'close:months': [{ reportId: f.report.id }],
    'close:fetch-states': [{}],
    'close:thresholds': [{ profileId: f.profile.id }, { profileId: f.profile.id, thresholds: { marginDeviationPoints: 15, quantityJumpPercent: 200 } }],
    'close:trend-scopes': [{ reportId: f.report.id }],
    'close:trends': [
      { reportId: f.report.id, scope: { kind: 'all' } },
      { reportId: f.report.id, scope: { kind: 'group', key: 'Nordics' } },
    ],
    'close:rates': [{ reportId: f.report.id }],
    'close:set-rates': [
      { reportId: f.report.id, referenceCurrency: 'EUR', rates: [{ currency: 'SEK', rate: '0.0874' }] },
      { reportId: f.report.id, referenceCurrency: null, rates: [] },
    ],
    'close:import-rates': [{ reportId: f.report.id, referenceCurrency: 'EUR', csv: 'currency;rate\nSEK;0.0874\nUSD;0.9214\n' }],
    'invoices:run': [{ reportId: f.report.id }, { reportId: f.report.id, invoiceDate: '2026-11-09' }],
    'invoices:mapping': [{ reportId: f.report.id }],
    'invoices:map': [
      {
        reportId: f.report.id,
        customer: { orgId: 'org-1', contactName: 'Acme AB', paymentTermsDays: 30, vatTreatment: 'domestic' },
        item: { match: 'service', id: 'svc-1', account: '3010', taxCode: 'MP1', vatCategory: 'S', vatRate: '25' },
      },
    ],
    'invoices:import-mapping': [
      { reportId: f.report.id, csv: 'type,match,id,contactName,paymentTermsDays,vatTreatment\ncustomer,,org-1,Acme AB,30,domestic\n' },
    ],
    'invoices:export-mapping': [{ reportId: f.report.id }],
    'invoices:settings': [
      { reportId: f.report.id, settings: { prefix: 'F-', dateFormat: 'YYYY-MM-DD', linesPer: 'product', splitByPo: true, template: null } },
    ],
    'invoices:adjust': [
      {
        reportId: f.report.id,
        adjustment: { kind: 'manual', orgId: 'org-1', currency: 'SEK', description: 'Setup fee', amount: '1500.00', item: 'service:svc-1' },
        reason: 'Agreed in the contract',
      },
    ],
    'invoices:approve-adjustments': [{ reportId: f.report.id }],
    'invoices:lines': [{ reportId: f.report.id, invoice: { orgId: 'org-1', orgKey: 'org-1', currency: 'SEK', po: '' } }],
    'invoices:export': [{ reportId: f.report.id, format: 'xero' }],
    'consumption:parse': [
      { fileName: 'october.csv', base64: csv },
      { fileName: 'october.xlsx', base64: csv, sheet: 'Sheet1' },
    ],
    'consumption:template': [{ format: 'csv' }, { format: 'xlsx' }],
    'consumption:submit': [{ profileId: f.profile.id, fileName: 'october.csv', rows: f.consumptionRows, confirmRepeat: true }],
    'consumption:history': [{}],
    'consumption:get': [{ submissionId: f.submission.id }],
    'consumption:resume': [{ submissionId: f.submission.id }],
    'consumption:export-failed': [
      { submissionId: f.submission.id, format: 'csv' },
      { submissionId: f.submission.id, format: 'xlsx' },
    ],
    'consumption:names': [{ profileId: f.profile.id, subscriptionIds: f.consumptionRows.map((row) => row.subscriptionId) }],
  };
}

/** Ids a mutation may swap in: the fixture's (of every kind, in variants) — only the decoys' for destructive channels. */
function idPool(f: ServiceFixture, fuzz: Fuzz, destructive: boolean): string[] {
  const mine = destructive ? [f.decoyProfile.id, f.decoyReport.id] : [f.profile.id, f.report.id, f.submission.id, f.decoyProfile.id, f.decoyReport.id];
  return [
    ...mine,
    ...mine.map((id) => id.toUpperCase()),
    ...mine.map((id) => ` ${id}\n`),
    fuzz.random.guid(),
    fuzz.random.guid(),
    '00000000-0000-0000-0000-000000000000',
    'not-a-uuid',
  ];
}

interface Finding {
  channel: string;
  input: string;
  outcome: string;
}

/** Whether a channel's contract takes an input; one it cannot even look at (zod throws) is not taken. */
function accepted(channel: keyof typeof channels, input: unknown): boolean {
  try {
    return channels[channel].input.safeParse(input).success;
  } catch {
    return false;
  }
}

describe('IPC: dispatch under malformed input', () => {
  it(`answers ${INPUTS_PER_CHANNEL} malformed inputs on every channel with a clear reply, and loses nothing saved`, async () => {
    const fuzz = new Fuzz(FUZZ_SEED);
    const before = await protectedState(fixture(), fixture().service);
    const service = fixture().service;
    // Counts what got past the contract's input check into the handler: proof the mutations reach real work.
    const passed = new Map<ChannelName, number>();
    for (const channel of channelNames) {
      const handler = service.handlers[channel] as (input: unknown) => Promise<unknown>;
      (service.handlers as Record<string, (input: unknown) => Promise<unknown>>)[channel] = (input) => {
        passed.set(channel, (passed.get(channel) ?? 0) + 1);
        return handler(input);
      };
    }
    const tried = new Map<string, number>();
    const spent = new Map<string, number>();
    const crashes: Finding[] = [];
    const unclear: Finding[] = [];
    const longest = { length: 0, channel: '' };
    let over300 = 0;

    async function attempt(channel: unknown, input: unknown, label: string): Promise<void> {
      const name = typeof channel === 'string' && channelNames.includes(channel as ChannelName) ? channel : '(bad channel)';
      tried.set(name, (tried.get(name) ?? 0) + 1);
      const began = performance.now();
      const warningsBefore = fixture().warnings.length;
      let timer: NodeJS.Timeout | undefined;
      let reply: unknown;
      try {
        reply = await Promise.race([
          dispatch(service, channel, input, fixture().ports.log),
          new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_WITHIN_MS / 1000} s`)), ANSWER_WITHIN_MS))),
        ]);
      } catch (error) {
        crashes.push({ channel: name, input: label, outcome: `dispatch threw: ${error instanceof Error ? error.message : String(error)}` });
        return;
      } finally {
        clearTimeout(timer);
        spent.set(name, (spent.get(name) ?? 0) + performance.now() - began);
      }
      const shape = reply as { ok?: unknown; error?: unknown };
      if (!shape || typeof shape !== 'object' || typeof shape.ok !== 'boolean') {
        crashes.push({ channel: name, input: label, outcome: `not a reply: ${preview(reply)}` });
        return;
      }
      try {
        JSON.stringify(reply); // the browser bridge sends every reply as JSON
      } catch (error) {
        crashes.push({ channel: name, input: label, outcome: `the reply cannot be sent as JSON: ${String(error)}` });
      }
      if (shape.ok) return;
      const error = AppErrorShape.safeParse(shape.error);
      if (!error.success) {
        crashes.push({ channel: name, input: label, outcome: `an error reply that is not an AppError: ${preview(shape.error)}` });
        return;
      }
      const { message, code } = error.data;
      if (message.length > longest.length) Object.assign(longest, { length: message.length, channel: name });
      if (message.length > 300) over300 += 1;
      const reason = unclearReason(message, code, { input: [channel, input] });
      if (reason) {
        const logged = fixture()
          .warnings.slice(warningsBefore)
          .map((warning) => `${warning.message} ${preview(warning.details, 300)}`)
          .join('; ');
        unclear.push({ channel: name, input: label, outcome: `${reason}: [${code}] ${preview(message, 300)}${logged ? ` — log: ${logged}` : ''}` });
      }
    }

    const started = performance.now();
    // Channel names themselves: not strings, prototype keys, near misses.
    for (const channel of [
      undefined,
      null,
      0,
      {},
      [],
      'constructor',
      '__proto__',
      'toString',
      'hasOwnProperty',
      'valueOf',
      'shell:exec',
      'PROFILES:LIST',
      ' profiles:list',
      'profiles:list\u0000',
      'reports:*',
      Symbol('x'),
      10n,
    ]) {
      await attempt(channel, {}, `channel ${preview(channel)}`);
    }
    for (let index = 0; index < 100; index++) await attempt(fuzz.value(2), fuzz.value(2), 'any channel, any input');

    const inputs = validInputs(fixture());
    for (const channel of channelNames) {
      const ids = idPool(fixture(), fuzz, DESTRUCTIVE.has(channel));
      const valid = inputs[channel];
      for (const base of valid) await attempt(channel, base, 'a valid input');
      for (let index = valid.length; index < INPUTS_PER_CHANNEL; index++) {
        const roll = fuzz.int(0, 99);
        if (roll < 12) {
          const value = fuzz.value(3);
          await attempt(channel, value, `any value ${preview(value)}`);
        } else if (roll < 17) {
          const value = fuzz.object(3);
          await attempt(channel, value, `an object ${preview(value)}`);
        } else {
          // Past its cap of accepted inputs, a channel gets mutations its contract refuses (redrawn up to 4 times).
          let mutation = fuzz.mutate(fuzz.pick(valid), ids);
          for (let redraw = 0; redraw < 4 && (passed.get(channel) ?? 0) >= ACCEPTED_PER_CHANNEL && accepted(channel, mutation.input); redraw++)
            mutation = fuzz.mutate(fuzz.pick(valid), ids);
          await attempt(channel, mutation.input, `valid but ${mutation.change} → ${preview(mutation.input)}`);
        }
      }
    }
    const fuzzSeconds = (performance.now() - started) / 1000;

    // Let the background work the requests started (report jobs, consumption tasks) finish before judging.
    await service.reports.waitFor((await service.handlers['reports:jobs']({})).map((job) => job.id));
    await service.consumption.waitFor((await service.handlers['consumption:history']({})).map((summary) => summary.id));

    const damage: string[] = [];
    const check = async (what: string, read: () => Promise<unknown>) => {
      try {
        await read();
      } catch (error) {
        damage.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
      }
    };
    // Every saved file still reads, through the service and as JSON on disk.
    for (const channel of ['profiles:list', 'reports:jobs', 'reports:list', 'consumption:history', 'settings:get'] as const) {
      await check(channel, async () => {
        const reply = await dispatch(service, channel, {}, silentLogger);
        if (!reply.ok) throw new Error(reply.error.message);
      });
    }
    for (const file of ['profiles.json', join('jobs', 'report-jobs.json'), join('consumption', 'index.json')]) {
      await check(file, async () => JSON.parse(await readFile(join(fixture().ports.dataDir, file), 'utf8')));
    }
    const after = await protectedState(fixture(), service);
    for (const key of Object.keys(before) as (keyof typeof before)[]) {
      if (JSON.stringify(after[key]) !== JSON.stringify(before[key]))
        damage.push(`the protected ${key} changed: ${preview(before[key], 200)} → ${preview(after[key], 200)}`);
    }
    // And after a restart over the same folder.
    const restarted = await fixture().restart();
    const again = await protectedState(fixture(), restarted);
    if (JSON.stringify(again) !== JSON.stringify(after)) damage.push('the protected state reads differently after a restart');
    const temporaries = await leftoverTemporaries(fixture().ports.dataDir);
    if (temporaries.length) damage.push(`temporary files left in the data folder: ${temporaries.join(', ')}`);

    const total = [...tried.values()].reduce((sum, count) => sum + count, 0);
    const unreached = channelNames.filter((channel) => !passed.get(channel));
    const crashCount = crashes.length + rejections.length;
    const examples = [
      ...crashes.slice(0, 8).map((finding) => `crash on ${finding.channel}: ${finding.outcome} — input: ${finding.input}`),
      ...rejections.slice(0, 4).map((reason) => `unhandled rejection or exception: ${reason instanceof Error ? reason.message : preview(reason)}`),
      ...unclear.slice(0, 12).map((finding) => `unclear on ${finding.channel}: ${finding.outcome} — input: ${finding.input}`),
      ...damage.map((what) => `damage: ${what}`),
    ];
    saveFigures(inject('faultFiguresDir'), {
      boundary: '1 IPC (dispatch)',
      inputs: total,
      crashes: crashCount,
      unclear: unclear.length,
      damaged: damage.length,
      notes: [
        `${channelNames.length} channels × ${INPUTS_PER_CHANNEL} inputs, plus ${(tried.get('(bad channel)') ?? 0).toLocaleString('en')} with bad channel names; ${[...passed.values()].reduce((sum, count) => sum + count, 0).toLocaleString('en')} got past the input check into a handler; ${fuzzSeconds.toFixed(1)} s`,
        `no channel skipped; requests to hosts other than this machine: ${fixture().refusedRequests()} refused by the suite's network port (never sent); destructive channels (${[...DESTRUCTIVE].join(', ')}) aimed at a decoy profile and report`,
        `slowest channels: ${[...spent]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 5)
          .map(([channel, ms]) => `${channel} ${(ms / 1000).toFixed(1)} s`)
          .join(', ')}`,
        `longest error message: ${longest.length} characters (${longest.channel}); ${over300} over 300 characters`,
      ],
      examples,
    });

    expect(unreached, 'channels whose handler no input reached').toEqual([]);
    expect(crashes.map((finding) => `${finding.channel}: ${finding.outcome} — ${finding.input}`)).toEqual([]);
    expect(rejections).toEqual([]);
    expect(damage).toEqual([]);
    expect(unclear.map((finding) => `${finding.channel}: ${finding.outcome} — ${finding.input}`)).toEqual([]);
  });
});
