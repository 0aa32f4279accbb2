import { createWriteStream } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ChannelName } from '@shared/contract';
import { AppError, AppErrorShape } from '@shared/errors';
import { FUZZ_SEED, Fuzz, preview, saveFigures, unclearReason, watchProcessFailures } from '@testing/fuzz';
import { protectedState, type ServiceFixture, serviceFixture } from '@testing/service-fixture';
import { temporaryDir } from '@testing/test-support';
import { Ledger } from './ledger/ledger';
import { dispatch } from './runtime/dispatch';
import { silentLogger } from './ports/ports';
import { ANSWER_LIMITS } from './service-api/service-client';
import { readBillingReport, REPORT_LIMITS } from './reports/report-reader';

/**
 * Deep and huge JSON, in a colleague's report file and in the service's answers: nesting 100,000 and 2,000,000
 * deep in every place of a report and of every answer the service gives (and at seeded places of a valid report),
 * a small gzip that unpacks to 50,000,000 levels, a 5,000,000-entry list, one organization with more lines than
 * the bound (written as a stream, never built), a text of 100 MB and a number of 10 MB. Each is answered within
 * seconds — imported, or refused in words naming the place and the bound — memory stays flat, and a refused one
 * leaves nothing behind. Before these bounds the reader took 11 s at 100,000 levels and "Maximum call stack size
 * exceeded" in `meta`; a service's answer was read whole whatever its size.
 */

const ANSWER_WITHIN_MS = 10_000;
/** What reading one organization of the bound's size (1,000,001 lines) may take on a busy CI machine. */
const BIG_WITHIN_MS = 60_000;

let fixture: ServiceFixture;
let folder: { path: string; remove: () => Promise<void> };
let valid: string;
const watch = watchProcessFailures();
const rejections = watch.failures;

/** An answer the service gives instead of its own, `left` more times, for requests whose path holds `path` (and of `method`). */
let hostile: { path: string; method: string; status: number; body: () => string | ReadableStream<Uint8Array>; left: number } | null = null;

beforeAll(async () => {
  fixture = await serviceFixture({
    ports: {
      fetch: (url, init) => {
        const method = (init?.method ?? 'GET').toUpperCase();
        if (hostile && hostile.left > 0 && url.toLowerCase().includes(hostile.path.toLowerCase()) && method === hostile.method) {
          hostile.left -= 1;
          return Promise.resolve(
            new Response(hostile.body(), {
              status: hostile.status,
              headers: {
                'content-type': 'application/json',
                location: `${fixture.twin.baseUrl}/api/resellers/x/billing/reports/MonthlyBillingPerOrganizationAsync/gone`,
              },
            }),
          );
        }
        return fetch(url, init);
      },
    },
  });
  folder = await temporaryDir('closebook-json-bounds-');
  valid = gunzipSync(await readFile(fixture.sharedReportFile)).toString('utf8');
}, 60_000);

afterAll(async () => {
  watch.stop();
  await fixture?.close();
  await folder?.remove();
});

/** `levels` of nesting around `inner`, as arrays or objects, written without building it twice. */
function nested(levels: number, kind: 'array' | 'object', inner = '1'): string {
  return kind === 'array' ? `${'['.repeat(levels)}${inner}${']'.repeat(levels)}` : `${'{"a":'.repeat(levels)}${inner}${'}'.repeat(levels)}`;
}

/** A body of `bytes` bytes, made as it is read: `head`, then `fill` repeated, then `tail`. */
function streamed(head: string, fill: string, bytes: number, tail: string): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const block = encoder.encode(fill.repeat(Math.ceil((1024 * 1024) / fill.length)));
  let sent = 0;
  let stage = 0;
  return new ReadableStream({
    pull(controller) {
      if (stage === 0) {
        controller.enqueue(encoder.encode(head));
        stage = 1;
      } else if (stage === 1 && sent < bytes) {
        const part = block.subarray(0, Math.min(block.length, bytes - sent));
        sent += part.length;
        controller.enqueue(part);
      } else if (stage === 1) {
        controller.enqueue(encoder.encode(tail));
        stage = 2;
      } else controller.close();
    },
  });
}

/** Writes a gzip file from parts made one at a time (a 5,000,000-entry list or 50,000,000 levels never sit in memory). */
async function gzipFile(path: string, parts: () => Generator<string>): Promise<number> {
  await pipeline(Readable.from(parts()), createGzip({ level: 9 }), createWriteStream(path));
  return (await stat(path)).size;
}

function* repeated(head: string, unit: string, times: number, tail: string): Generator<string> {
  yield head;
  const block = unit.repeat(Math.max(1, Math.floor(65_536 / unit.length)));
  const perBlock = block.length / unit.length;
  let left = times;
  for (; left >= perBlock; left -= perBlock) yield block;
  yield unit.repeat(left);
  yield tail;
}

function* once(text: string): Generator<string> {
  yield text;
}

/** The valid shared report with `value` put at `place` (a key of the file, or a new unknown field there). */
function withValue(place: string, value: string): string {
  switch (place) {
    case 'the list of entries':
      return valid.replace(/"entries":\[.*\]\}$/s, `"entries":${value}}`);
    case 'an unknown top-level field':
      return valid.replace('{"meta":', `{"extension":${value},"meta":`);
    case 'meta':
      return valid.replace(/^\{"meta":\{.*?\},"entries":/s, `{"meta":${value},"entries":`);
    case 'an unknown field of an organization':
      return valid.replace('"organizationGroups":', `"extension":${value},"organizationGroups":`);
    case 'an entry field':
      return valid.replace(/"billingDate":"[^"]*"/, `"billingDate":${value}`);
    case 'a line field':
      return valid.replace(/"itemDetails":"[^"]*"/, `"itemDetails":${value}`);
    default:
      throw new Error(`no place ${place}`);
  }
}

const PLACES = ['the list of entries', 'an unknown top-level field', 'meta', 'an unknown field of an organization', 'an entry field', 'a line field'];

/** The valid report with `value` in place of the value of a key picked by the seed. */
function atSeededKey(fuzz: Fuzz, value: string): { text: string; key: string } {
  const keys = [...valid.matchAll(/"(\w+)":("[^"]*"|-?[\d.]+)/g)];
  const place = fuzz.pick(keys);
  const start = (place.index ?? 0) + (place[1] as string).length + 3;
  return { text: `${valid.slice(0, start)}${value}${valid.slice(start + (place[2] as string).length)}`, key: place[1] as string };
}

/** A job or batch the service keeps trying: it must end, but retrying with back-off takes its time. */
async function within<T>(work: Promise<T>, what: string, ms = 90_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not end within ${ms / 1000} s`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

interface Outcome {
  what: string;
  ms: number;
  ok: boolean;
  message: string;
  code: string;
}

describe('deep and huge JSON: report files, the report reader and the service answers', () => {
  const outcomes: Outcome[] = [];
  const crashes: string[] = [];
  const unclear: string[] = [];
  const damaged: string[] = [];
  const slow: string[] = [];
  let accepted = 0;

  async function importFile(path: string, what: string, withinMs = ANSWER_WITHIN_MS, expectRefusal: RegExp | null = /./): Promise<void> {
    const name = path.split('/').at(-1) as string;
    const began = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        fixture.service.reports.importFile(path),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${withinMs / 1000} s`)), withinMs))),
      ]);
      accepted += 1;
      outcomes.push({ what, ms: performance.now() - began, ok: true, message: '', code: '' });
      if (expectRefusal) damaged.push(`${what}: imported, though it should be refused`);
    } catch (error) {
      const ms = performance.now() - began;
      if (!(error instanceof AppError)) {
        crashes.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
      outcomes.push({ what, ms, ok: false, message: error.message, code: error.code });
      const reason = unclearReason(error.message, error.code);
      if (reason) unclear.push(`${what}: ${reason}: [${error.code}] ${preview(error.message, 300)}`);
      if (!error.message.includes(name)) unclear.push(`${what}: the message does not name the file: ${preview(error.message, 200)}`);
      if (/call stack|Maximum/i.test(error.message)) unclear.push(`${what}: ${preview(error.message, 200)}`);
      if (expectRefusal && !expectRefusal.test(error.message))
        unclear.push(`${what}: the message does not say ${expectRefusal}: ${preview(error.message, 300)}`);
    } finally {
      clearTimeout(timer);
    }
    const last = outcomes.at(-1);
    if (last && last.ms > withinMs) slow.push(`${what}: ${(last.ms / 1000).toFixed(1)} s`);
  }

  it('refuses a report file nested 100,000 and 2,000,000 deep anywhere — a few KB of gzip — within 10 s, naming the place', async () => {
    const fuzz = new Fuzz(FUZZ_SEED ^ 0xdee9);
    let index = 0;
    for (const levels of [100_000, 2_000_000]) {
      for (const kind of ['array', 'object'] as const) {
        const value = nested(levels, kind);
        const seeded = atSeededKey(fuzz, value);
        for (const [place, text] of [
          ...PLACES.map((place) => [place, withValue(place, value)] as const),
          [`a seeded place (${seeded.key})`, seeded.text] as const,
        ]) {
          const path = join(folder.path, `deep-${index++}.closebook-report.json.gz`);
          const bytes = gzipSync(text);
          await writeFile(path, bytes);
          await importFile(
            path,
            `${levels.toLocaleString('en')} levels of ${kind}s in ${place} (${(bytes.length / 1024).toFixed(0)} KB of gzip)`,
            ANSWER_WITHIN_MS,
            /deeper than 64 levels/,
          );
        }
      }
    }
    // The file of the issue: 2,000,000 levels in a few KB of gzip.
    expect(gzipSync(withValue('the list of entries', nested(2_000_000, 'array'))).length).toBeLessThan(20_000);
    expect(crashes).toEqual([]);
    expect(unclear).toEqual([]);
    expect(slow).toEqual([]);
  });

  it('refuses a gzip bomb of nesting, a 5,000,000-entry list, a 100 MB text, a 10 MB number and megabytes of dates within 10 s, reading no more than the bound', async () => {
    const meta = JSON.stringify(JSON.parse(valid).meta);
    const files: [string, string, () => Generator<string>, RegExp][] = [
      [
        'bomb.closebook-report.json.gz',
        '50,000,000 levels of arrays in a gzip',
        () => repeated(`{"meta":${meta},"entries":`, '[', 50_000_000, ''),
        /deeper than 64 levels \(at entries\.0\.0/,
      ],
      // Each entry with a date: before the bound they were all kept, then spread into one call ("Maximum call stack size exceeded").
      [
        'entries.closebook-report.json.gz',
        'a list of 5,000,000 dated entries',
        () => repeated(`{"meta":${meta},"entries":[{"billingDate":"2026-10-07T00:00:00"}`, ',{"billingDate":"2026-10-07T00:00:00"}', 4_999_999, ']}'),
        /more than 1,000 billing entries/,
      ],
      [
        'text.closebook-report.json.gz',
        'a text of 100 MB in an unknown field',
        () => repeated(`{"meta":${meta},"note":"`, 'x', 100_000_000, '","entries":[]}'),
        /text of more than 1,000,000 characters at note/,
      ],
      [
        'name.closebook-report.json.gz',
        'an organization name of 100 MB',
        () => repeated(valid.slice(0, valid.indexOf('"name":"', valid.indexOf('"organizations"')) + 8), 'y', 100_000_000, '"}]}]}'),
        /text of more than 1,000,000 characters at entries\.0\.organizations\.0\.name/,
      ],
      [
        'number.closebook-report.json.gz',
        'a number of 10 MB as an amount',
        () => repeated(valid.slice(0, valid.indexOf('"totalResellerPrice":') + 21), '9', 10_000_000, '}]}]}]}'),
        /number of more than 1,000 characters at entries\.0\.organizations\.0\.services\.0\.totalResellerPrice/,
      ],
      [
        'dates.closebook-report.json.gz',
        '1,000 entries with dates of 100,000 characters',
        () => repeated(`{"meta":${meta},"entries":[{"billingDate":"${'x'.repeat(100_000)}"}`, `,{"billingDate":"${'x'.repeat(100_000)}"}`, 999, ']}'),
        /at entries\.0\.billingDate, is longer than 4,000 characters/,
      ],
      [
        'key.closebook-report.json.gz',
        'a field name of 10 MB',
        () => repeated(`{"meta":${meta},"`, 'k', 10_000_000, '":1,"entries":[]}'),
        /field name of more than 1,000,000 characters/,
      ],
    ];
    for (const [name, what, parts, says] of files) {
      const path = join(folder.path, name);
      const bytes = await gzipFile(path, parts);
      await importFile(path, `${what} (${(bytes / 1024).toFixed(0)} KB of gzip)`, ANSWER_WITHIN_MS, says);
    }
    expect(crashes).toEqual([]);
    expect(unclear).toEqual([]);
    expect(slow).toEqual([]);
  });

  it('imports an organization of 100,000 lines handed over in parts, with its services and subscriptions, and refuses one past the bound', async () => {
    const line = (n: number) =>
      `{"productName":"Seat","productId":"p${n % 7}","itemCode":"IC","quantity":1,"resellerPricePerUnit":"1.5","customerPricePerUnit":"2","totalResellerPrice":"1.5","totalCustomerPrice":"2","itemDetails":""}`;
    const meta = JSON.parse(valid).meta as { period: unknown };
    const header = `{"meta":${JSON.stringify({ ...meta, id: '00000000-0000-4000-8000-00000000b16b', name: 'One big customer' })},"entries":[{"billingDate":"2026-10-07T00:00:00","organizations":[{"name":"Big","orgId":"big","services":[`;
    // Ten services of 100 subscriptions of 100 lines: the service's currency comes after its items in half of them.
    function* body(): Generator<string> {
      yield header;
      for (let service = 0; service < 10; service++) {
        const late = service % 2 === 1;
        yield `${service ? ',' : ''}{"serviceName":"S${service}","serviceId":"s${service}","totalResellerPrice":"15000","totalCustomerPrice":"20000",${late ? '' : '"currencyCode":"SEK",'}"items":[`;
        for (let item = 0; item < 100; item++) {
          yield `${item ? ',' : ''}{"itemName":"I","subscriptionId":"i${service}-${item}","totalResellerPrice":"150","totalCustomerPrice":"200","products":[`;
          yield Array.from({ length: 100 }, (_, n) => line(n)).join(',');
          yield ']}';
        }
        yield `]${late ? ',"currencyCode":"EUR"' : ''}}`;
      }
      yield ']}]}]}';
    }
    const path = join(folder.path, 'one-big-customer.closebook-report.json.gz');
    await gzipFile(path, body);
    await importFile(path, 'one organization of 100,000 lines in 10 services, half with their currency after their items', 30_000, null);
    const listed = (await fixture.service.handlers['reports:list']({})).flatMap((listing) =>
      listing.state === 'ok' && listing.meta.name === 'One big customer' ? [listing.meta] : [],
    );
    expect(listed[0]?.counts).toEqual({ billingEntries: 1, organizations: 1, services: 10, subscriptions: 1_000, lines: 100_000 });
    expect(listed[0]?.totals.map((total) => [total.currency, total.cost, total.sales])).toEqual([
      ['EUR', '75000.000000', '100000.000000'],
      ['SEK', '75000.000000', '100000.000000'],
    ]);
    expect(crashes).toEqual([]);
    expect(unclear).toEqual([]);
  });

  it('reads an organization of the bound in flat memory and refuses the next line; refuses each count past its bound', async () => {
    const organization = (lines: number) => repeated('{"data":[{"organizations":[{"services":[{"items":[{"products":[{}', ',{}', lines - 1, ']}]}]}]}]}');
    const many = (unit: string, times: number, head: string, tail: string) => repeated(head, unit, times, tail);
    const cases: [string, () => Generator<string>, RegExp][] = [
      [
        `one organization of ${(REPORT_LIMITS.linesPerOrganization + 1).toLocaleString('en')} lines`,
        () => organization(REPORT_LIMITS.linesPerOrganization + 1),
        /more than 1,000,000 billing lines in one organization \(at data\.0\.organizations\.0\)/,
      ],
      [
        `${(REPORT_LIMITS.organizations + 1).toLocaleString('en')} organizations`,
        () => many(',{}', REPORT_LIMITS.organizations, '{"data":[{"organizations":[{}', ']}]}'),
        /more than 500,000 organizations/,
      ],
      [
        `${(REPORT_LIMITS.lines + 1).toLocaleString('en')} lines in organizations of 100,000`,
        () =>
          many(
            `]}]}]},{"services":[{"items":[{"products":[{}${',{}'.repeat(99_999)}`,
            50,
            '{"data":[{"organizations":[{"services":[{"items":[{"products":[{}',
            ']}]}]}]}]}',
          ),
        /more than 5,000,000 billing lines, more than Closebook reads in one report/,
      ],
      [
        `${(REPORT_LIMITS.subscriptions + 1).toLocaleString('en')} subscriptions`,
        () => many(',{}', REPORT_LIMITS.subscriptions, '{"data":[{"organizations":[{"services":[{"items":[{}', ']}]}]}]}'),
        /more than 5,000,000 subscriptions/,
      ],
      [
        `${(REPORT_LIMITS.groupsPerOrganization + 1).toLocaleString('en')} groups of one organization`,
        () => many(',"g"', REPORT_LIMITS.groupsPerOrganization, '{"data":[{"organizations":[{"organizationGroups":["g"', ']}]}]}'),
        /more than 1,000 groups for one organization \(at data\.0\.organizations\.0\.organizationGroups\)/,
      ],
      [
        `a summary of ${(REPORT_LIMITS.metaValues + 1).toLocaleString('en')} values`,
        () => many(',1', REPORT_LIMITS.metaValues, '{"meta":{"counts":[1', ']},"entries":[]}'),
        /summary \("meta"\) of more than 10,000 values/,
      ],
      [
        `a summary of ${(REPORT_LIMITS.metaCharacters + 1).toLocaleString('en')} characters`,
        () => once(`{"meta":{"name":"${'n'.repeat(REPORT_LIMITS.metaCharacters + 1)}"},"entries":[]}`),
        /summary \("meta"\) of more than 100,000 characters/,
      ],
      ['the entries given twice', () => once('{"entries":[],"data":[]}'), /billing entries twice/],
      ['a report cut short after a whole organization', () => once('{"status":5,"data":[{"organizations":[{"services":[]}'), /ends too early/],
    ];
    for (const [what, parts, says] of cases) {
      let lines = 0;
      let parts_ = 0;
      const heapBefore = process.memoryUsage().heapUsed;
      let heapPeak = heapBefore;
      const began = performance.now();
      try {
        await readBillingReport(
          (async function* () {
            for (const part of parts()) {
              heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
              yield part;
            }
          })(),
          { line: () => void lines++, end: () => void parts_++ },
        );
        damaged.push(`${what}: read, though it should be refused`);
      } catch (error) {
        const ms = performance.now() - began;
        if (!(error instanceof AppError)) crashes.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
        else {
          outcomes.push({
            what: `${what} (${lines.toLocaleString('en')} lines read, heap ${((heapPeak - heapBefore) / 1024 / 1024).toFixed(0)} MB above the start)`,
            ms,
            ok: false,
            message: error.message,
            code: error.code,
          });
          const reason = unclearReason(error.message, error.code);
          if (reason) unclear.push(`${what}: ${reason}: ${preview(error.message, 300)}`);
          if (!says.test(error.message)) unclear.push(`${what}: the message does not say ${says}: ${preview(error.message, 300)}`);
        }
        if (ms > BIG_WITHIN_MS) slow.push(`${what}: ${(ms / 1000).toFixed(1)} s`);
        if (heapPeak - heapBefore > 128 * 1024 * 1024)
          damaged.push(`${what}: the heap grew by ${((heapPeak - heapBefore) / 1024 / 1024).toFixed(0)} MB while reading`);
      }
    }
    expect(crashes).toEqual([]);
    expect(unclear).toEqual([]);
    expect(slow).toEqual([]);
    expect(damaged).toEqual([]);
  }, 300_000);

  it('answers a service whose answers are nested 2,000,000 deep or hundreds of MB long, on every call, within 10 s and in words', async () => {
    const service = fixture.service;
    let batch = 100;
    const bodies: { what: string; status: number; body: () => string | ReadableStream<Uint8Array> }[] = [
      { what: '2,000,000 levels of arrays', status: 200, body: () => nested(2_000_000, 'array') },
      { what: '2,000,000 levels of objects', status: 200, body: () => nested(2_000_000, 'object') },
      {
        what: 'an answer of the right shape with 100,000 levels in an unknown field',
        status: 200,
        body: () => `{"access_token":"t","message":"Queued","taskId":"t1","status":0,"data":[{"orgId":"o","name":"n","x":${nested(100_000, 'array')}}]}`,
      },
      { what: 'a text of 300 MB', status: 200, body: () => streamed('{"access_token":"', 'x', 300 * 1024 * 1024, '","data":[]}') },
      { what: 'HTTP 400 with 2,000,000 levels', status: 400, body: () => nested(2_000_000, 'object') },
      { what: 'HTTP 503 with 300 MB', status: 503, body: () => streamed('{"message":"', 'x', 300 * 1024 * 1024, '"}') },
    ];
    const calls: { channel: ChannelName; path: string; method: string; input: () => unknown }[] = [
      { channel: 'profiles:test', path: 'connect/token', method: 'POST', input: () => ({ profileId: fixture.profile.id }) },
      { channel: 'organizations:list', path: 'Organizations', method: 'GET', input: () => ({ profileId: fixture.profile.id }) },
      {
        channel: 'reports:request',
        path: 'MonthlyBilling',
        method: 'POST',
        input: () => ({ profileId: fixture.profile.id, period: { startDate: '2026-07-01', endDate: '2026-07-31' } }),
      },
      {
        channel: 'reports:request',
        path: 'MonthlyBilling',
        method: 'GET',
        input: () => ({ profileId: fixture.profile.id, period: { startDate: '2026-08-01', endDate: '2026-08-31' } }),
      },
      // Each batch differs (its quantities), so no repeat check stops it before it reaches the service.
      {
        channel: 'consumption:submit',
        path: 'bulkconsumptions',
        method: 'POST',
        input: () => ({
          profileId: fixture.profile.id,
          fileName: `hostile-${++batch}.csv`,
          rows: fixture.consumptionRows.map((row) => ({ ...row, quantity: `${batch}.${row.row}` })),
        }),
      },
      {
        channel: 'consumption:submit',
        path: 'bulkconsumptions',
        method: 'GET',
        input: () => ({
          profileId: fixture.profile.id,
          fileName: `hostile-${++batch}.csv`,
          rows: fixture.consumptionRows.map((row) => ({ ...row, quantity: `${batch}.${row.row}` })),
        }),
      },
    ];
    const before = await protectedState(fixture, service);
    for (const body of bodies) {
      for (const call of calls) {
        const what = `${call.channel} (${call.method} ${call.path}) answered ${body.what}`;
        hostile = { path: call.path, method: call.method, status: body.status, body: body.body, left: 12 };
        const began = performance.now();
        let timer: NodeJS.Timeout | undefined;
        try {
          const reply = await Promise.race([
            dispatch(service, call.channel, call.input(), fixture.ports.log),
            new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_WITHIN_MS / 1000} s`)), ANSWER_WITHIN_MS))),
          ]);
          // The answer to the call; a report job or a batch then goes on in the background, retrying what is worth it.
          const ms = performance.now() - began;
          let message = '';
          let code = '';
          if (!reply.ok) {
            const error = AppErrorShape.parse(reply.error);
            ({ message, code } = error);
          } else if (call.channel === 'reports:request') {
            const [job] = await within(service.reports.waitFor([(reply.data as { id: string }).id]), 'the report job');
            message = job?.message ?? '';
            code = `job ${job?.state}`;
            if (job?.state !== 'failed' && job?.state !== 'done') damaged.push(`${what}: the job ended ${job?.state}`);
            if (job?.state === 'failed') await service.handlers['reports:cancel']({ jobId: job.id });
          } else if (call.channel === 'consumption:submit') {
            const id = (reply.data as { id: string }).id;
            await within(service.consumption.waitFor([id]), 'the consumption batch');
            const submission = await service.handlers['consumption:get']({ submissionId: id });
            message = submission.message ?? '';
            code = `batch ${submission.state}`;
            if (call.method === 'POST' && body.status === 200 && (submission.state === 'error' || submission.state === 'sending'))
              damaged.push(`${what}: saved as "${submission.state}" though it may have arrived`);
          }
          outcomes.push({ what, ms, ok: reply.ok, message, code });
          if (message) {
            const reason = unclearReason(message, code);
            if (reason) unclear.push(`${what}: ${reason}: ${preview(message, 300)}`);
            if (/call stack/i.test(message)) unclear.push(`${what}: ${preview(message, 200)}`);
          }
          if (ms > ANSWER_WITHIN_MS) slow.push(`${what}: ${(ms / 1000).toFixed(1)} s`);
        } catch (error) {
          crashes.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
        } finally {
          clearTimeout(timer);
          hostile = null;
        }
      }
    }
    const after = await protectedState(fixture, service);
    for (const key of Object.keys(before) as (keyof typeof before)[]) {
      if (JSON.stringify(after[key]) !== JSON.stringify(before[key])) damaged.push(`the protected ${key} changed`);
    }
    expect(crashes).toEqual([]);
    expect(unclear).toEqual([]);
    expect(slow).toEqual([]);
    expect(damaged).toEqual([]);
  }, 300_000);

  it('leaves no rows of a refused file behind, and the saved report as it was', async () => {
    const listed = await fixture.service.handlers['reports:list']({});
    if (listed.some((listing) => listing.state !== 'ok')) damaged.push('a report is listed as damaged');
    if (!listed.some((listing) => listing.state === 'ok' && listing.meta.id === fixture.report.id)) damaged.push('the saved report is gone');
    await fixture.restart();
    await fixture.service.dispose();
    const ledger = await Ledger.open(fixture.ports.dataDir, silentLogger);
    try {
      for (const table of [
        'billing_entries',
        'organizations',
        'organization_groups',
        'services',
        'subscriptions',
        'billing_lines',
        'products',
        'report_totals',
      ]) {
        const [row] = await ledger.all(`SELECT count(DISTINCT report_id) AS orphans FROM ${table} WHERE report_id NOT IN (SELECT report_id FROM reports)`);
        if (Number(row?.orphans) > 0) damaged.push(`${table} holds rows of ${row?.orphans} report(s) that are not saved`);
      }
    } finally {
      await ledger.close();
    }
    const slowest = outcomes.reduce((top, outcome) => (outcome.ms > top.ms ? outcome : top), { what: '', ms: 0 } as Pick<Outcome, 'what' | 'ms'>);
    saveFigures(inject('faultFiguresDir'), {
      boundary: '13 Deep and huge JSON',
      inputs: outcomes.length + crashes.length,
      crashes: crashes.length + rejections.length,
      unclear: unclear.length,
      damaged: damaged.length + slow.length,
      notes: [
        `report files: 2 depths × arrays/objects × 7 places (one seeded), a 50,000,000-level gzip bomb, 5,000,000 entries, 100 MB texts, a 10 MB number and field name, 1,000 entries of 100,000-character dates — each refused within ${ANSWER_WITHIN_MS / 1000} s; one organization of 100,000 lines imported (${accepted} imported in all)`,
        `the reader: each count one past REPORT_LIMITS (1,000,001 lines in one organization, 500,001 organizations, 5,000,001 lines, 5,000,001 subscriptions, 1,001 groups, 10,001 summary values, 100,001 summary characters), entries twice, a report cut short`,
        `service answers: 6 hostile bodies (2,000,000 levels, 300 MB, errors with both) × token, organizations, report request and poll, consumption submit and status; bounds ${ANSWER_LIMITS.depth} levels, ${ANSWER_LIMITS.answerBytes / 1024 / 1024} MB`,
        `slowest ${(slowest.ms / 1000).toFixed(2)} s (${slowest.what})`,
      ],
      examples: [
        ...crashes.slice(0, 8).map((what) => `crash: ${what}`),
        ...rejections.slice(0, 4).map((reason) => `unhandled rejection or exception: ${reason instanceof Error ? reason.message : preview(reason)}`),
        ...unclear.slice(0, 8).map((what) => `unclear: ${what}`),
        ...damaged.slice(0, 8).map((what) => `damage: ${what}`),
        ...slow.slice(0, 8).map((what) => `slow: ${what}`),
      ],
    });
    expect(rejections).toEqual([]);
    expect(damaged).toEqual([]);
  });
});
