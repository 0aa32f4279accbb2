import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FUZZ_SEED, Fuzz, preview, saveFigures } from '@testing/fuzz';
import { temporaryDir } from '@testing/test-support';
import { safeFileName } from './storage/files';
import { createFileLogger } from './ports/log';

/**
 * Two small boundaries where a value from elsewhere is written down: the log (a secret must never reach it, however
 * it is carried — a nested detail, JSON inside a message, a form body, a URL's password) and the names Closebook
 * gives files (no path, control or bidirectional character may survive, whatever a report or a user called it).
 */

let dir: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  dir = await temporaryDir();
});
afterAll(async () => {
  await dir?.remove();
});

/** Ways a secret travels into a log line, each as the message and details a careless call would pass. */
const CARRIERS: ((secret: string, fuzz: Fuzz) => [string, Record<string, unknown> | undefined])[] = [
  (secret) => ['token request failed', { request: { form: { password: secret } } }],
  (secret) => ['token request failed', { deep: { deeper: { deepest: [{ clientSecret: secret }] } } }],
  (secret) => [`the service answered {"access_token":"${secret}","expires_in":3600}`, undefined],
  (secret) => ['answer', { body: `{"refresh_token":"${secret}"}` }],
  (secret) => [`password=${secret}`, undefined],
  (secret, fuzz) => ['form', { line: `grant_type=password&username=${fuzz.pick(['a', 'b@c.example'])}&password=${secret}` }],
  (secret) => [`calling https://finance:${secret}@billing.example.com/connect/token`, undefined],
  (secret) => ['header', { header: `Bearer ${secret}` }],
  (secret) => [`Authorization: Basic ${secret}`, undefined],
  (secret) => ['query', { url: `https://billing.example.com/x?a=1&access_token=${secret}` }],
];

const BIDI = ['\u202E', '\u202D', '\u2066', '\u2067', '\u2068', '\u2069', '\u200E', '\u200F', '\u061C', '\u202A', '\u202B', '\u202C'];

describe('the log and file names', () => {
  it('writes no secret to the log and no hidden or path character into a file name', async () => {
    const fuzz = new Fuzz(FUZZ_SEED ^ 0x106);
    const leaked: string[] = [];
    const unsafe: string[] = [];
    const log = createFileLogger(dir.path, 'closebook', { bytes: 64 * 1024 * 1024, kept: 1 }, () => {});
    const secrets: string[] = [];
    const rounds = 300;
    for (let round = 0; round < rounds; round++) {
      // Secrets of the characters credentials are made of (no separators: a separator ends a secret in any format).
      const secret = `S${round}x${Array.from({ length: fuzz.int(6, 40) }, () => fuzz.pick([...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~+/'])).join('')}`;
      secrets.push(secret);
      const [message, details] = fuzz.pick(CARRIERS)(secret, fuzz);
      log.warn(message, details);
    }
    const text = await readFile(join(dir.path, 'logs', 'closebook.log'), 'utf8');
    for (const secret of secrets) if (text.includes(secret)) leaked.push(text.split('\n').find((line) => line.includes(secret)) ?? secret);

    const names = Array.from({ length: 1000 }, () => {
      const parts = Array.from({ length: fuzz.int(1, 5) }, () => fuzz.pick([fuzz.string(), fuzz.pick(BIDI), '../', '\\', ':', '\u0000', 'exe.docx']));
      return parts.join('');
    });
    for (const name of names) {
      const safe = safeFileName(name);
      // eslint-disable-next-line no-control-regex -- what must not survive
      if (/[\\/:*?"<>|\u0000-\u001f\u007f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(safe) || safe.length > 150 || safe !== safe.trim() || safe === '')
        unsafe.push(`${preview(name)} → ${preview(safe)}`);
    }
    saveFigures(inject('faultFiguresDir'), {
      boundary: '11 Log lines and file names',
      inputs: rounds + names.length,
      crashes: 0,
      unclear: 0,
      damaged: leaked.length + unsafe.length,
      notes: [
        `${rounds} secrets in ${CARRIERS.length} ways into the log; ${names.length} hostile names given to files (damaged = a secret in the log, or a hidden or path character in a name)`,
      ],
      examples: [...leaked.slice(0, 5), ...unsafe.slice(0, 5)],
    });
    expect(leaked).toEqual([]);
    expect(unsafe).toEqual([]);
  });
});
