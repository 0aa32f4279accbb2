import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { temporaryDir } from '@testing/test-support';
import { createFileLogger } from './log';

const cleanups = cleanupsAfterEach();
const quiet = () => {};

describe('the log file', () => {
  it('writes owner-only, timestamped lines to logs/closebook.log, rotates it at its limit and keeps three earlier files', async () => {
    const dir = await temporaryDir();
    cleanups.push(() => dir.remove());
    const log = createFileLogger(dir.path, 'closebook', { bytes: 2000, kept: 3 }, quiet);
    for (let i = 0; i < 200; i++) log.info(`poll ${i}`, { status: 0 });

    const files = (await readdir(join(dir.path, 'logs'))).sort();
    expect(files).toEqual(['closebook.log', 'closebook.log.1', 'closebook.log.2', 'closebook.log.3']);
    for (const file of files) {
      expect((await stat(join(dir.path, 'logs', file))).mode & 0o777).toBe(0o600);
      expect((await stat(join(dir.path, 'logs', file))).size).toBeLessThanOrEqual(2100);
    }
    expect((await stat(join(dir.path, 'logs'))).mode & 0o777).toBe(0o700);
    const newest = await readFile(join(dir.path, 'logs', 'closebook.log'), 'utf8');
    expect(newest).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z closebook info: poll \d+ \{"status":0\}$/m);
    expect(newest).toContain('poll 199');
  });

  it('masks secrets by key and inside values', async () => {
    const dir = await temporaryDir();
    cleanups.push(() => dir.remove());
    createFileLogger(dir.path, 'closebook', undefined, quiet).warn('service answered 401 for Bearer eyJhbGciOiJIUzI1NiJ9.secret-part', {
      password: 'hunter2',
      url: 'https://x.example/a?access_token=abc123&b=1',
      header: 'Basic Y2xpZW50OnNlY3JldA==',
    });
    const text = await readFile(join(dir.path, 'logs', 'closebook.log'), 'utf8');
    for (const secret of ['eyJhbGciOiJIUzI1NiJ9', 'hunter2', 'abc123', 'Y2xpZW50OnNlY3JldA']) expect(text).not.toContain(secret);
    expect(text).toContain('Bearer ***');
    expect(text).toContain('access_token=***&b=1');
  });

  it('masks secrets at any depth, in JSON inside text, at the start of a string and inside URLs', async () => {
    const dir = await temporaryDir();
    cleanups.push(() => dir.remove());
    const log = createFileLogger(dir.path, 'closebook', undefined, quiet);
    log.warn('token request failed: {"access_token":"tok-1","token_type":"bearer","refresh_token":"tok-2"}', {
      request: { form: { username: 'a', password: 'pw-3' }, headers: [{ Authorization: 'Basic abc' }] },
      body: '{"error":"x","client_secret":"sec-4"}',
      line: 'password=pw-5&grant_type=password',
      url: 'https://finance:pw-6@billing.example.com/connect/token',
      nested: { deeper: { apiSecret2: 'sec-7' } },
    });
    log.info('password=pw-8 was refused');
    const text = await readFile(join(dir.path, 'logs', 'closebook.log'), 'utf8');
    for (const secret of ['tok-1', 'tok-2', 'pw-3', 'abc', 'sec-4', 'pw-5', 'pw-6', 'sec-7', 'pw-8']) expect(text).not.toContain(secret);
    expect(text).toContain('"token_type":"***"'); // a field named like a secret is masked, whatever it holds
    expect(text).toContain('https://finance:***@billing.example.com/connect/token');
    expect(text).toContain('grant_type=password'); // a value is not a secret for being the word
    expect(text).toContain('"username":"a"');
  });

  it('keeps logging to stderr when the log file cannot be written', async () => {
    const dir = await temporaryDir();
    cleanups.push(() => dir.remove());
    await writeFile(join(dir.path, 'a-file'), '');
    const written: string[] = [];
    const log = createFileLogger(join(dir.path, 'a-file', 'data'), 'closebook', undefined, (line) => written.push(line));
    log.info('still here');
    log.info('and here');
    expect(written.filter((line) => /cannot be written/.test(line))).toHaveLength(1);
    expect(written.filter((line) => /still here|and here/.test(line))).toHaveLength(2);
  });
});
