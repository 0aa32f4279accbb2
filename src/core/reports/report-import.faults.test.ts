import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AppError } from '@shared/errors';
import { FUZZ_SEED, Fuzz, preview, saveFigures, unclearReason, watchProcessFailures, fuzzCount } from '@testing/fuzz';
import { protectedState, type ServiceFixture, serviceFixture } from '@testing/service-fixture';
import { temporaryDir } from '@testing/test-support';
import { Ledger } from '../ledger/ledger';
import { silentLogger } from '../ports/ports';

/**
 * Report files from a colleague under fuzzing: 500 files (in CI) made from a valid shared report — cut, bit-flipped,
 * fields removed or retyped, hostile decimals, duplicate keys, a byte-order mark, broken gzip — imported through
 * the service. Each is imported or refused with a clear message; none half-imports, and the saved report stays.
 */

const FILES = fuzzCount('CLOSEBOOK_FUZZ_REPORT_FILES', 500);
const ANSWER_WITHIN_MS = 30_000;

let fixture: ServiceFixture;
let folder: { path: string; remove: () => Promise<void> };
let valid: string;
const watch = watchProcessFailures();
const rejections = watch.failures;

beforeAll(async () => {
  fixture = await serviceFixture();
  folder = await temporaryDir('closebook-report-files-');
  valid = gunzipSync(await readFile(fixture.sharedReportFile)).toString('utf8');
});

afterAll(async () => {
  watch.stop();
  await fixture?.close();
  await folder?.remove();
});

/** Amount texts no report should carry: each must be refused, naming the field, or read exactly. */
const HOSTILE_DECIMALS = [
  `0.${'1'.repeat(100_000)}`,
  '9'.repeat(400),
  `1${'0'.repeat(399)}`,
  '1e400',
  '-1e400',
  '1e-400',
  '123456789012345678901234567890',
  '12345678901234567.5',
  '0.1000000000000000055511151231257827',
  '1E+2',
  '-0',
  '-0.000',
  '00012.50',
  '.5',
  '5.',
];
const HOSTILE_DECIMAL_TEXTS = ['NaN', 'Infinity', '-Infinity', '1,5', ' 12.5 ', '+12', '1e5', '0x10', '12.5.1', '', '١٢٣', '12\u00a0500', '1_000'];

/** Every key:value place in the JSON text whose value is a number or a decimal string, by its key. */
const AMOUNT_KEYS = /"(totalResellerPrice|totalCustomerPrice|resellerPricePerUnit|customerPricePerUnit|quantity)":("[^"]*"|-?[\d.eE+-]+)/g;

/** One malformed variant of the valid report, as bytes, with what was done to it. */
function variant(fuzz: Fuzz, index: number): { bytes: Uint8Array; what: string; text?: string } {
  const text = valid;
  const gzip = (content: string | Uint8Array) => new Uint8Array(gzipSync(content));
  const plain = (content: string) => new TextEncoder().encode(content);
  const compressed = fuzz.chance(0.5);
  const pack = (content: string, what: string) => ({
    bytes: compressed ? gzip(content) : plain(content),
    what: `${compressed ? 'gzip' : 'plain'} ${what}`,
    text: content,
  });
  switch (index % 12) {
    case 0: {
      const at = fuzz.int(0, text.length - 1);
      if (fuzz.chance(0.5)) return { ...pack(text.slice(0, at), `cut at ${at}`) };
      const packed = gzip(text);
      const cut = fuzz.int(0, packed.length - 1);
      return { bytes: packed.subarray(0, cut), what: `gzip cut at byte ${cut} of ${packed.length}` };
    }
    case 1: {
      const bytes = compressed ? gzip(text) : plain(text);
      const flips = fuzz.int(1, 8);
      fuzz.flipBits(bytes, flips);
      return { bytes, what: `${compressed ? 'gzip' : 'plain'} with ${flips} bits flipped` };
    }
    case 2:
    case 3:
    case 4: {
      // A field removed, retyped or replaced somewhere in the tree (the meta included).
      const { input, change } = fuzz.mutate(JSON.parse(text));
      try {
        return pack(JSON.stringify(input), change);
      } catch {
        return pack(
          text.replace('"itemDetails":""', `"itemDetails":${'['.repeat(20_000)}${']'.repeat(20_000)}`),
          `${change} (too deep for JSON.stringify: 20,000 levels written instead)`,
        );
      }
    }
    case 5:
    case 6: {
      // A hostile decimal, as a JSON number literal or as text, in one amount field.
      const places = [...text.matchAll(AMOUNT_KEYS)];
      const place = fuzz.pick(places);
      const asText = fuzz.chance(0.4);
      const raw = asText ? JSON.stringify(fuzz.pick([...HOSTILE_DECIMALS, ...HOSTILE_DECIMAL_TEXTS])) : fuzz.pick(HOSTILE_DECIMALS);
      const at = place.index ?? 0;
      const content = `${text.slice(0, at)}"${place[1]}":${raw}${text.slice(at + place[0].length)}`;
      return pack(content, `${place[1]} at ${at} = ${preview(raw, 60)}`);
    }
    case 7: {
      // A key given twice: an amount, the meta, or the whole entries list.
      const places = [...text.matchAll(AMOUNT_KEYS)];
      const place = fuzz.pick(places);
      const at = place.index ?? 0;
      const choice = fuzz.int(0, 2);
      const content =
        choice === 0
          ? `${text.slice(0, at)}${place[0]},"${place[1]}":"999999.99"${text.slice(at + place[0].length)}`
          : choice === 1
            ? text.replace('{"meta":', `{"meta":{"id":1},"meta":`)
            : `${text.slice(0, -1)},"entries":${JSON.stringify(JSON.parse(text).entries)}}`;
      return pack(content, ['a duplicate amount key', 'a duplicate meta key', 'the entries twice'][choice] as string);
    }
    case 8: {
      const choice = fuzz.int(0, 5);
      const bom = '\uFEFF';
      const contents = [`${bom}${text}`, `${bom}${bom}${text}`, `${text}\n\n  `, `${text}{}`, `[${text},${text}]`, `[${text}]`];
      return pack(
        contents[choice] as string,
        ['a byte-order mark', 'two byte-order marks', 'trailing whitespace', 'trailing data', 'two results in an array', 'one result in an array'][
          choice
        ] as string,
      );
    }
    case 9: {
      const choice = fuzz.int(0, 7);
      const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
      const options: [Uint8Array, string][] = [
        [new Uint8Array([0x1f, 0x8b]), 'gzip magic only'],
        [new Uint8Array([0x1f, 0x8b, 8, 0, ...plain('not deflate at all')]), 'gzip header, junk body'],
        [gzip(gzip(text)), 'gzip twice'],
        [new Uint8Array([...gzip(text), ...plain('trailing junk')]), 'gzip with junk after it'],
        [new Uint8Array([...gzip(text.slice(0, 5000)), ...gzip(text.slice(5000))]), 'two gzip members'],
        [gzip(''), 'gzip of nothing'],
        [new Uint8Array(utf16), 'UTF-16 text'],
        [new Uint8Array(Buffer.from(text.replace('Billing', 'Fakturor åäö'), 'latin1')), 'Latin-1 text'],
      ];
      const [bytes, what] = options[choice] as [Uint8Array, string];
      return { bytes, what };
    }
    case 10: {
      const contents = [
        '',
        ' ',
        '\n',
        'null',
        '[]',
        '{}',
        '""',
        '0',
        '{"meta":null,"entries":null}',
        '{"meta":{},"entries":[]}',
        '{"status":5,"data":[]}',
        '{"entries":[{"organizations":[{}]}]}',
        `{"meta":${JSON.stringify(JSON.parse(text).meta)},"entries":[]}`,
      ];
      const content = fuzz.pick(contents);
      return pack(content, `the text ${preview(content, 40)}`);
    }
    default: {
      // Something big or deep in one text field: a 1–5 MB name, or details nested thousands of levels.
      const key = fuzz.pick(['"name":', '"itemDetails":', '"serviceName":', '"productName":', '"customerNumber":']);
      const at = text.indexOf(key, fuzz.int(0, text.length / 2));
      if (at < 0) return pack(text, 'unchanged');
      // Huge values are rare: the reader streams every character (~1 s a megabyte on a busy CI machine).
      const roll = fuzz.int(0, 99);
      const value =
        roll < 8
          ? JSON.stringify(fuzz.hugeString().replace(/[^ -~\u00a0-\uffff]|["\\]/g, 'x'))
          : roll < 50
            ? JSON.stringify('y'.repeat(4_001))
            : `${'['.repeat(5000)}1${']'.repeat(5000)}`;
      const end = text.indexOf('"', text.indexOf('"', at + key.length) + 1) + 1;
      const content = `${text.slice(0, at + key.length)}${value}${text.slice(end)}`;
      return {
        bytes: compressed ? gzip(content) : plain(content),
        what: `${compressed ? 'gzip' : 'plain'} ${key} given ${value.length.toLocaleString('en')} characters`,
      };
    }
  }
}

async function importWithin(path: string): Promise<{ ok: true } | { ok: false; error: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      fixture.service.reports.importFile(path),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_WITHIN_MS / 1000} s`)), ANSWER_WITHIN_MS))),
    ]);
    return { ok: true };
  } catch (error) {
    return { ok: false, error };
  } finally {
    clearTimeout(timer);
  }
}

describe('report files: import under malformed files', () => {
  it('refuses a report file with a 100,000-place amount within 10 s, naming the field', async () => {
    const text = valid.replace(/"totalResellerPrice":"[^"]*"/, `"totalResellerPrice":"0.${'1'.repeat(100_000)}"`);
    const path = join(folder.path, 'decimal-bomb.closebook-report.json.gz');
    await writeFile(path, gzipSync(text));
    const started = performance.now();
    await expect(fixture.service.reports.importFile(path)).rejects.toMatchObject({ code: 'validation', message: expect.stringMatching(/totalResellerPrice/) });
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('accepts the valid file with a byte-order mark, plain or compressed', async () => {
    for (const [name, bytes] of [
      ['bom.json', Buffer.from(`\uFEFF${valid}`)],
      ['bom.closebook-report.json.gz', gzipSync(`\uFEFF${valid}`)],
    ] as const) {
      const path = join(folder.path, name);
      await writeFile(path, bytes);
      const meta = await fixture.service.reports.importFile(path);
      expect(meta.counts).toEqual(fixture.report.counts);
      expect(meta.totals).toEqual(fixture.report.totals);
    }
  });

  it(`imports or clearly refuses ${FILES} malformed report files, and half-imports none`, async () => {
    const fuzz = new Fuzz(FUZZ_SEED ^ 0x2e90);
    const service = fixture.service;
    const before = await protectedState(fixture, service);
    const listedBefore = (await service.handlers['reports:list']({})).length;
    const crashes: string[] = [];
    const unclear: string[] = [];
    const refusedFor = new Map<string, number>();
    let accepted = 0;
    let slowest = { ms: 0, what: '' };
    const started = performance.now();
    for (let index = 0; index < FILES; index++) {
      const { bytes, what, text } = variant(fuzz, index);
      const name = `file-${index}${fuzz.chance(0.5) ? '.closebook-report.json.gz' : '.json'}`;
      const path = join(folder.path, name);
      await writeFile(path, bytes);
      const began = performance.now();
      const outcome = await importWithin(path);
      const ms = performance.now() - began;
      if (ms > slowest.ms) slowest = { ms, what };
      if (outcome.ok) accepted += 1;
      else if (!(outcome.error instanceof AppError)) crashes.push(`${what}: ${outcome.error instanceof Error ? outcome.error.message : String(outcome.error)}`);
      else {
        const { code, message } = outcome.error;
        refusedFor.set(code, (refusedFor.get(code) ?? 0) + 1);
        const reason = unclearReason(message, code, { input: [name, text && text.length < 100_000 ? text : ''] });
        if (reason) unclear.push(`${what}: ${reason}: [${code}] ${preview(message, 300)}`);
        if (!message.includes(name)) unclear.push(`${what}: the message does not name the file: ${preview(message, 200)}`);
      }
    }
    const seconds = (performance.now() - started) / 1000;

    const damage: string[] = [];
    const listed = await service.handlers['reports:list']({});
    if (listed.length !== listedBefore + accepted) damage.push(`${listed.length} reports listed, expected ${listedBefore} + ${accepted} accepted`);
    const damaged = listed.filter((listing) => listing.state !== 'ok');
    if (damaged.length) damage.push(`${damaged.length} reports listed as damaged`);
    const after = await protectedState(fixture, service);
    if (JSON.stringify(after.report) !== JSON.stringify(before.report) || JSON.stringify(after.totals) !== JSON.stringify(before.totals))
      damage.push('the saved report changed');
    // No rows of a refused file anywhere in the ledger: every table's reports are listed ones.
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
        if (Number(row?.orphans) > 0) damage.push(`${table} holds rows of ${row?.orphans} report(s) that are not saved`);
      }
    } finally {
      await ledger.close();
    }

    saveFigures(inject('faultFiguresDir'), {
      boundary: '2 Report files',
      inputs: FILES + 3,
      crashes: crashes.length + rejections.length,
      unclear: unclear.length,
      damaged: damage.length,
      notes: [
        `${accepted} imported, ${FILES - accepted} refused (${[...refusedFor].map(([code, count]) => `${count} ${code}`).join(', ')}); ${seconds.toFixed(1)} s; slowest ${(slowest.ms / 1000).toFixed(2)} s (${slowest.what})`,
        'plus the 100,000-place amount (refused within 10 s) and the valid file with a byte-order mark, plain and gzip (imported)',
      ],
      examples: [
        ...crashes.slice(0, 8).map((what) => `crash: ${what}`),
        ...rejections.slice(0, 4).map((reason) => `unhandled rejection or exception: ${reason instanceof Error ? reason.message : preview(reason)}`),
        ...unclear.slice(0, 8).map((what) => `unclear: ${what}`),
        ...damage.map((what) => `damage: ${what}`),
      ],
    });
    expect(crashes).toEqual([]);
    expect(rejections).toEqual([]);
    expect(damage).toEqual([]);
    expect(unclear).toEqual([]);
  });
});
