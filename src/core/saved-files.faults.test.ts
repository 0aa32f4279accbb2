import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AppErrorShape } from '@shared/errors';
import { FUZZ_SEED, Fuzz, preview, saveFigures, unclearReason, watchProcessFailures, fuzzCount } from '@testing/fuzz';
import { protectedState, type ServiceFixture, serviceFixture } from '@testing/service-fixture';
import { dispatch } from './runtime/dispatch';
import { createService } from './service';

/**
 * Saved files damaged on disk (a crash, a sync tool, a hand edit): profiles.json, jobs/report-jobs.json,
 * consumption/index.json and ui-settings.json, each in 50 ways in CI — cut, bit-flipped, retyped, emptied, another
 * encoding, a folder in its place. Each time a new service starts over the folder and reads everything: each read
 * either works, falls back as designed (the index is rebuilt, settings use their defaults), or gives a storage
 * message naming the file and leaves it as it is — and nothing in the other files is lost.
 */

const CASES_PER_FILE = fuzzCount('CLOSEBOOK_FUZZ_FILE_CASES', 50);
const ANSWER_WITHIN_MS = 20_000;

/** The files, and what a damaged one must do: refuse by name and stay untouched, or fall back as designed. */
const TARGETS = [
  { file: 'profiles.json', damaged: 'refused' },
  { file: join('jobs', 'report-jobs.json'), damaged: 'refused' },
  { file: join('consumption', 'index.json'), damaged: 'rebuilt' },
  { file: 'ui-settings.json', damaged: 'defaults' },
] as const;

/** What a host reads at start and on its first screens. */
const READS = ['app:info', 'profiles:list', 'reports:jobs', 'reports:list', 'consumption:history', 'settings:get'] as const;

let fixture: ServiceFixture;
const pristine = new Map<string, Buffer>();
const watch = watchProcessFailures();
const rejections = watch.failures;

beforeAll(async () => {
  fixture = await serviceFixture();
  await fixture.service.handlers['settings:save']({ reportColumns: ['quantity', 'cost', 'sales'], reportHierarchy: 'service', exceptionGrouping: 'rule' });
  // A report request that stopped with an error, so the jobs file holds a job (finished ones leave it) that no
  // start resumes: a resumed one would poll the twin without pause under the fixture's fake clock.
  fixture.twin.faults.add({ kind: 'report-status', status: 0, times: 1_000_000 });
  const job = await fixture.service.handlers['reports:request']({ profileId: fixture.profile.id, period: { startDate: '2026-07-01', endDate: '2026-07-31' } });
  await fixture.service.dispose();
  fixture.twin.faults.clear();
  const jobs = join(fixture.ports.dataDir, 'jobs', 'report-jobs.json');
  const saved = JSON.parse(await readFile(jobs, 'utf8')) as { version: number; jobs: { id: string }[] };
  saved.jobs = saved.jobs.map((entry) => (entry.id === job.id ? { ...entry, state: 'failed', nextPollAt: null, message: 'The service answered 503.' } : entry));
  await writeFile(jobs, `${JSON.stringify(saved, null, 2)}\n`);
  for (const { file } of TARGETS) pristine.set(file, await readFile(join(fixture.ports.dataDir, file)));
});

afterAll(async () => {
  watch.stop();
  await fixture?.close();
});

/** One way to damage a JSON file, as its new bytes (or a folder in its place), with what was done. */
function damage(fuzz: Fuzz, index: number, original: Buffer): { bytes: Uint8Array | 'folder'; what: string } {
  const text = original.toString('utf8');
  const encode = (content: string) => new TextEncoder().encode(content);
  switch (index % 8) {
    case 0: {
      const at = fuzz.int(0, text.length - 1);
      return { bytes: encode(text.slice(0, at)), what: `cut at ${at} of ${text.length}` };
    }
    case 1: {
      const bytes = new Uint8Array(original);
      const flips = fuzz.int(1, 6);
      fuzz.flipBits(bytes, flips);
      return { bytes, what: `${flips} bits flipped` };
    }
    case 2:
    case 3:
    case 4: {
      const { input, change } = fuzz.mutate(JSON.parse(text));
      try {
        return { bytes: encode(JSON.stringify(input, null, 2)), what: change };
      } catch {
        return { bytes: encode(`${'['.repeat(50_000)}${']'.repeat(50_000)}`), what: 'nested 50,000 levels deep' };
      }
    }
    case 5: {
      const specials: [string | Uint8Array, string][] = [
        ['', 'empty'],
        ['   \n', 'whitespace'],
        ['null', 'null'],
        ['[]', 'an empty list'],
        ['{}', 'an empty object'],
        ['"profiles"', 'a string'],
        [`\uFEFF${text}`, 'a byte-order mark before it'],
        [new Uint8Array(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])), 'saved as UTF-16'],
        [`${text}\n{"version":1}`, 'two documents'],
        [`${text.trimEnd()} trailing`, 'text after the document'],
        [text.replace(/"version": \d+/, '"version": 99'), 'version 99'],
        [text.replace(/"version": (\d+)/, '"version": "$1"'), 'the version as text'],
        [text.replace(/\}\s*$/, ',}'), 'a trailing comma'],
        [`// saved by hand\n${text}`, 'a comment'],
        [text.replace(/"version"/, '"__proto__": {"version": 1}, "version"'), 'a __proto__ key'],
      ];
      const [content, what] = fuzz.pick(specials);
      return { bytes: typeof content === 'string' ? encode(content) : content, what };
    }
    case 6: {
      const choice = fuzz.int(0, 2);
      if (choice === 0) return { bytes: new Uint8Array(fuzz.int(1, 2048)).map(() => fuzz.int(0, 255)), what: 'binary junk' };
      if (choice === 1) return { bytes: encode(text.replace(/"[^"]{1,40}"(?=[,\n])/, JSON.stringify(fuzz.hugeString()))), what: 'a value of megabytes' };
      return { bytes: new Uint8Array(original.length), what: 'zeros (a block never written)' };
    }
    default:
      return fuzz.chance(0.3)
        ? { bytes: 'folder', what: 'a folder in its place' }
        : { bytes: encode(text.replace(/[{}[\],:]/, '')), what: 'one brace or comma lost' };
  }
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text.replace(/^\uFEFF/, ''));
    return true;
  } catch {
    return false;
  }
}

async function within<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_WITHIN_MS / 1000} s`)), ANSWER_WITHIN_MS))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe('saved files: damaged on disk', () => {
  it(`starts and reads clearly over ${CASES_PER_FILE} damaged versions of each saved file, losing nothing else`, async () => {
    const fuzz = new Fuzz(FUZZ_SEED ^ 0xd15c);
    const dataDir = fixture.ports.dataDir;
    const before = await (async () => {
      const service = createService(fixture.ports);
      await service.start();
      try {
        return await protectedState(fixture, service, { totals: false });
      } finally {
        await service.dispose();
      }
    })();
    const crashes: string[] = [];
    const unclear: string[] = [];
    const damaged: string[] = [];
    const outcomes = new Map<string, number>();
    const count = (outcome: string) => outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    const started = performance.now();

    for (const target of TARGETS) {
      for (let index = 0; index < CASES_PER_FILE; index++) {
        for (const [file, bytes] of pristine) {
          await rm(join(dataDir, file), { recursive: true, force: true });
          await writeFile(join(dataDir, file), bytes);
        }
        const path = join(dataDir, target.file);
        const { bytes, what } = damage(fuzz, index, pristine.get(target.file) as Buffer);
        await rm(path, { force: true });
        if (bytes === 'folder') await mkdir(path);
        else await writeFile(path, bytes);
        const label = `${target.file}, ${what}`;

        const service = createService(fixture.ports);
        try {
          await within(service.start());
        } catch (error) {
          crashes.push(`${label}: the service did not start: ${error instanceof Error ? error.message : String(error)}`);
        }
        const failures: string[] = [];
        for (const channel of READS) {
          let reply;
          try {
            reply = await within(dispatch(service, channel, {}, fixture.ports.log));
          } catch (error) {
            crashes.push(`${label}: ${channel} threw ${error instanceof Error ? error.message : String(error)}`);
            continue;
          }
          if (reply.ok) continue;
          const error = AppErrorShape.parse(reply.error);
          failures.push(channel);
          const reason = unclearReason(error.message, error.code);
          if (reason) unclear.push(`${label}: ${channel}: ${reason}: [${error.code}] ${preview(error.message, 300)}`);
          else if (error.code !== 'storage' || !error.message.includes(target.file.split('/').at(-1) as string))
            unclear.push(`${label}: ${channel} failed without a storage message naming the file: [${error.code}] ${preview(error.message, 300)}`);
        }
        // A write that would replace the damaged file must be refused, not overwrite it.
        if (target.file === 'profiles.json') {
          const saved = await dispatch(
            service,
            'profiles:save',
            {
              fields: {
                name: `Added ${index}`,
                baseUrl: 'https://billing.example.com',
                clientId: 'c',
                username: 'u',
                resellerId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
              },
              apiSecret: 's',
              password: 'p',
            },
            fixture.ports.log,
          );
          if (!saved.ok && saved.error.code !== 'storage')
            unclear.push(`${label}: saving a profile failed with [${saved.error.code}] ${preview(saved.error.message, 200)}`);
          if (saved.ok && failures.includes('profiles:list')) damaged.push(`${label}: a profile was saved over a file the list refused to read`);
        }
        if (target.file.endsWith('report-jobs.json')) await dispatch(service, 'reports:cancel', { jobId: fuzz.random.guid() }, fixture.ports.log);
        const state = failures.length
          ? null
          : await protectedState(fixture, service, { totals: false }).catch((error: unknown) => {
              damaged.push(`${label}: the saved state could not be read back: ${error instanceof Error ? error.message : String(error)}`);
              return null;
            });
        await service.dispose();

        // What the damaged file became, and whether everything else is as it was.
        const now = await readFile(path).catch(() => 'folder' as const);
        const untouched = bytes === 'folder' ? now === 'folder' : now !== 'folder' && Buffer.compare(now, Buffer.from(bytes)) === 0;
        if (failures.length) {
          count('refused by name');
          // A folder where the index goes cannot be replaced by a rebuilt index: saying so by name is right too.
          if (target.damaged !== 'refused' && bytes !== 'folder') damaged.push(`${label}: ${failures.join(', ')} failed where the design falls back`);
          if (!untouched) damaged.push(`${label}: the damaged file was changed although it was refused`);
        } else if (state) {
          count(untouched ? 'read as it is' : target.damaged === 'rebuilt' ? 'rebuilt' : 'rewritten');
          // Read without complaint: only right if the file was still whole (a damaged one read as empty loses it all).
          const text = bytes === 'folder' ? null : Buffer.from(bytes).toString('utf8');
          if (target.damaged === 'refused' && (text === null || !parsesAsJson(text))) damaged.push(`${label}: read as if it were empty or missing`);
          if (target.file === 'profiles.json' && text?.includes(fixture.profile.id) && !state.profile)
            damaged.push(`${label}: the profile it still holds is no longer listed`);
          // A damaged profiles.json that still reads may say other things about the profile; the rest is as before.
          for (const key of Object.keys(before) as (keyof typeof before)[]) {
            if (target.file === 'profiles.json' && (key === 'profile' || key === 'secret')) continue;
            if (JSON.stringify(state[key]) !== JSON.stringify(before[key])) damaged.push(`${label}: the saved ${key} changed or went missing`);
          }
        }
        for (const [file, original] of pristine) {
          if (file === target.file) continue;
          const other = await readFile(join(dataDir, file)).catch(() => null);
          // The index is derived data: rebuilt, it may differ in form but must list the same submissions.
          if (file.endsWith('index.json') && other) {
            const ids = (content: Buffer) => (JSON.parse(content.toString()) as { submissions: { id: string }[] }).submissions.map((entry) => entry.id).sort();
            if (JSON.stringify(ids(other)) !== JSON.stringify(ids(original))) damaged.push(`${label}: ${file} lost or gained submissions`);
          } else if (!other || Buffer.compare(other, original) !== 0) damaged.push(`${label}: ${file} changed`);
        }
      }
    }
    const seconds = (performance.now() - started) / 1000;

    saveFigures(inject('faultFiguresDir'), {
      boundary: '4 Saved files',
      inputs: TARGETS.length * CASES_PER_FILE,
      crashes: crashes.length + rejections.length,
      unclear: unclear.length,
      damaged: damaged.length,
      notes: [
        `${TARGETS.map((target) => target.file).join(', ')} × ${CASES_PER_FILE}; ${[...outcomes].map(([outcome, times]) => `${times} ${outcome}`).join(', ')}; ${seconds.toFixed(1)} s`,
        'each case: a new service starts over the folder, reads what the first screens read, and tries a write',
      ],
      examples: [
        ...crashes.slice(0, 8).map((what) => `crash: ${what}`),
        ...rejections.slice(0, 4).map((reason) => `unhandled rejection or exception: ${reason instanceof Error ? reason.message : preview(reason)}`),
        ...unclear.slice(0, 8).map((what) => `unclear: ${what}`),
        ...damaged.slice(0, 8).map((what) => `damage: ${what}`),
      ],
    });
    expect(crashes).toEqual([]);
    expect(rejections).toEqual([]);
    expect(damaged).toEqual([]);
    expect(unclear).toEqual([]);
  });
});
