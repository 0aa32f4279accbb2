import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Logger } from '@core';
import { FUZZ_SEED, Fuzz, preview, saveFigures, watchProcessFailures, fuzzCount } from '@testing/fuzz';
import { testPorts } from '@testing/test-support';
import { type Harness, startHarness } from './server';

/**
 * The browser bridge under hostile requests: a seeded mix of Host headers, origins, Sec-Fetch-Site values,
 * credentials (none, forged, stale, the old token cookie, the spent link), routes, bad % escapes and bodies over the
 * limit, as a page of another loopback port, a plain `curl` or a confused client would send them. Only this run's
 * session (or token header) with the bridge's exact origin and host reaches a channel. Everything else is refused
 * with the expected status and a short plain message, never a 500 or a reset; no answer carries a cookie, a CORS
 * header or a secret; and a refused request changes nothing (no channel called, no download spent, no upload kept).
 */

const REQUESTS = fuzzCount('CLOSEBOOK_FUZZ_BRIDGE_REQUESTS', 600);
const MAX_UPLOAD = 64 * 1024;
const ANSWER_WITHIN_MS = 15_000;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

let bridge: Harness;
let uploadDir = '';
let cleanup: () => Promise<void> = async () => {};
const warnings: string[] = [];
const watch = watchProcessFailures();

beforeAll(async () => {
  const log: Logger = { info: () => {}, warn: (message, details) => void warnings.push(`${message} ${preview(details)}`) };
  const { ports, cleanup: removePorts } = await testPorts({ log });
  const staticDir = await mkdtemp(join(tmpdir(), 'closebook-bridge-static-'));
  await writeFile(join(staticDir, 'index.html'), '<!doctype html><title>Closebook</title>');
  // The bridge keeps uploads under the temporary folder: a private one here, so what a request left can be counted.
  const temporary = await mkdtemp(join(tmpdir(), 'closebook-bridge-faults-'));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = temporary;
  try {
    bridge = await startHarness({ staticDir, ports, maxUploadBytes: MAX_UPLOAD });
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  }
  uploadDir = join(temporary, (await readdir(temporary)).find((name) => name.startsWith('closebook-uploads-')) as string);
  cleanup = async () => {
    await bridge.close();
    await removePorts();
    await rm(staticDir, { recursive: true, force: true });
    await rm(temporary, { recursive: true, force: true });
  };
});

afterAll(async () => {
  watch.stop();
  await cleanup();
});

/** One request with exactly these headers (Host included); an event stream is answered once its headers arrive. */
function send(path: string, method: string, headers: Record<string, string>, body?: string | Buffer): Promise<Answer> {
  return new Promise((resolvePromise, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port: new URL(bridge.url).port, path, method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      const answer = () => ({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (String(response.headers['content-type']).startsWith('text/event-stream')) {
        resolvePromise(answer());
        response.destroy();
        return;
      }
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolvePromise(answer()));
      response.on('error', reject);
    });
    request.setTimeout(ANSWER_WITHIN_MS, () => request.destroy(new Error(`no answer within ${ANSWER_WITHIN_MS / 1000} s`)));
    request.on('error', reject);
    request.end(body);
  });
}

/** Bytes written as they are (requests no client library sends); returns the status line, or '' for none. */
function raw(text: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const socket = connect(Number(new URL(bridge.url).port), '127.0.0.1', () => socket.write(text));
    const chunks: Buffer[] = [];
    const line = () => Buffer.concat(chunks).toString('utf8').split('\r\n')[0] ?? '';
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (Buffer.concat(chunks).includes('\r\n')) socket.destroy();
    });
    socket.on('close', () => resolvePromise(line()));
    socket.on('error', reject);
    socket.setTimeout(5_000, () => socket.end());
  });
}

/** Why a refusal's answer would not read clearly, or null: it must be a short plain sentence. */
function unclearRefusal(answer: Answer): string | null {
  if (!String(answer.headers['content-type']).startsWith('text/plain')) return `not plain text (${String(answer.headers['content-type'])})`;
  const text = answer.body.trim();
  if (text.length < 10 || text.length > 300) return `${text.length} characters`;
  if (/\bat .+:\d+:\d+|Error:|undefined|\[object/.test(text)) return `reads like a crash: ${preview(text)}`;
  return null;
}

describe('browser bridge: hostile requests', () => {
  it(`refuses ${REQUESTS} seeded hostile requests clearly, answers its own page, and gives nothing away`, async () => {
    const fuzz = new Fuzz(FUZZ_SEED ^ 0xb41d6e);
    const { port } = new URL(bridge.url);
    const host = `127.0.0.1:${port}`;
    const code = new URL(bridge.link).searchParams.get('token') as string;
    const opened = await send(`/open?token=${code}`, 'GET', { Host: host });
    expect(opened.status).toBe(303);
    const session = String(opened.headers['set-cookie']?.[0]).split(';')[0] as string;
    const cookieName = `closebook-session-${port}`;
    const secrets = [bridge.token, code, session.slice(cookieName.length + 1)];

    // Every channel call is counted: a refused request must leave the count as it was.
    let calls = 0;
    const handlers = bridge.service.handlers as Record<string, (input: unknown) => Promise<unknown>>;
    const template = handlers['consumption:template'] as (input: unknown) => Promise<{ url: string }>;
    for (const [name, handler] of Object.entries(handlers)) {
      handlers[name] = (input) => {
        calls += 1;
        return handler(input);
      };
    }
    const uploadsKept = async () => (await readdir(uploadDir, { withFileTypes: true })).filter((entry) => entry.isDirectory()).length;

    const crashes: string[] = [];
    const unclear: string[] = [];
    const damaged: string[] = [];
    const outcomes = new Map<number, number>();
    let inputs = 0;

    const hosts = [
      `evil.example:${port}`,
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      '127.0.0.1',
      `127.0.0.1:${port}.evil.example`,
      `[::1]:${port}`,
      '127.0.0.1:1',
      `127.0.0.1:${port}@evil.example`,
      `127.0.0.1:0${port}`,
      `127.0.0.1:${port}, evil.example`,
    ];
    const origins: (string | undefined)[] = [
      undefined,
      `http://127.0.0.1:${Number(port) + 1}`,
      'http://127.0.0.1:1',
      `http://localhost:${port}`,
      'null',
      `${bridge.url}.evil.example`,
      `${bridge.url}/`,
      `HTTP://127.0.0.1:${port}`,
      `https://127.0.0.1:${port}`,
      'http://evil.example',
      '',
    ];
    const credentials: [string, Record<string, string>][] = [
      ['no credential', {}],
      ['a forged session', { Cookie: `${cookieName}=${fuzz.random.guid()}` }],
      ['a forged session of the right length', { Cookie: `${cookieName}=${'A'.repeat(32)}` }],
      ['a forged session of the right length in bytes past ASCII', { Cookie: `${cookieName}=${'é'.repeat(32)}` }],
      ['a token header of the right length in bytes past ASCII', { 'x-closebook-bridge': 'ÿ'.repeat(32) }],
      ["another port's session cookie", { Cookie: `closebook-session-${Number(port) + 1}=${session.slice(cookieName.length + 1)}` }],
      ['the old token cookie', { Cookie: `closebook-bridge=${bridge.token}` }],
      ['the token as the session cookie', { Cookie: `${cookieName}=${bridge.token}` }],
      ['the spent link code as the session', { Cookie: `${cookieName}=${code}` }],
      ['the session in the token header', { 'x-closebook-bridge': session.slice(cookieName.length + 1) }],
      ['a guessed token header', { 'x-closebook-bridge': Buffer.from(fuzz.string()).toString('base64url') }],
    ];
    const valid: [string, Record<string, string>][] = [
      ['the session', { Cookie: session }],
      ['the token header', { 'x-closebook-bridge': bridge.token }],
      ['the session after a same-named one another page planted', { Cookie: `${cookieName}=planted; ${session}` }],
    ];
    const badEscapes = ['%zz', '%', '%E0%A4%A', '%u0041', '%%', '%0', '%C0%AF', '%ED%A0%80'];

    interface Case {
      label: string;
      method: string;
      path: string;
      headers: Record<string, string>;
      body?: string | Buffer;
      expect: number;
      /** What an allowed request does: a channel called, a download spent, an upload kept. */
      effect?: 'call' | 'download' | 'upload';
    }

    async function attempt(test: Case): Promise<void> {
      inputs += 1;
      const before = { calls, uploads: await uploadsKept(), warnings: warnings.length };
      const download = test.path.startsWith('/bridge/files/') ? test.path.slice('/bridge/files/'.length) : null;
      let answer: Answer;
      try {
        answer = await send(test.path, test.method, test.headers, test.body);
      } catch (error) {
        crashes.push(`${test.label}: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
      outcomes.set(answer.status, (outcomes.get(answer.status) ?? 0) + 1);
      if (answer.status >= 500 || warnings.length > before.warnings)
        crashes.push(`${test.label}: HTTP ${answer.status} ${preview(answer.body)} ${warnings.slice(before.warnings).join('; ')}`);
      else if (answer.status !== test.expect) (answer.status < 300 ? damaged : unclear).push(`${test.label}: HTTP ${answer.status}, expected ${test.expect}`);
      else if (answer.status >= 400) {
        const reason = unclearRefusal(answer);
        if (reason) unclear.push(`${test.label}: HTTP ${answer.status} ${reason}`);
      }
      if (answer.headers['set-cookie']) damaged.push(`${test.label}: a cookie was set: ${preview(answer.headers['set-cookie'])}`);
      const cors = Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'));
      if (cors.length) damaged.push(`${test.label}: CORS headers ${cors.join(', ')}`);
      const text = JSON.stringify(answer);
      if (secrets.some((secret) => text.includes(secret))) damaged.push(`${test.label}: the answer holds a secret`);
      const allowed = answer.status < 300 && test.expect < 300;
      // A refused request does nothing; an allowed one does what it asked.
      const uploads = (await uploadsKept()) - before.uploads;
      if (!allowed && calls !== before.calls) damaged.push(`${test.label}: refused, yet a channel was called`);
      if (!allowed && uploads !== 0) damaged.push(`${test.label}: refused, yet an upload was kept`);
      if (allowed && test.effect === 'call' && calls !== before.calls + 1) damaged.push(`${test.label}: answered, yet ${calls - before.calls} channel calls`);
      if (allowed && test.effect === 'upload' && uploads !== 1) damaged.push(`${test.label}: answered, yet ${uploads} uploads kept`);
      if (download && test.effect === 'download' && !allowed) {
        // Still there for the page: a refused request did not spend it.
        const page = await send(test.path, 'GET', { Host: host, Origin: bridge.url, Cookie: session });
        if (page.status !== 200) damaged.push(`${test.label}: the download was spent by a refused request`);
      }
    }

    const started = performance.now();
    for (let index = 0; index < REQUESTS; index++) {
      // Each part is right most of the time, so the allowed requests and each single fault are all well represented.
      const goodHost = fuzz.chance(0.85);
      const requestHost = goodHost ? host : fuzz.pick(hosts);
      const goodOrigin = fuzz.chance(0.55);
      const origin = goodOrigin ? bridge.url : fuzz.pick(origins);
      const secFetch = fuzz.pick([undefined, undefined, 'same-origin', 'same-site', 'cross-site', 'none']);
      const goodCredential = fuzz.chance(0.55);
      const [credentialLabel, credential] = goodCredential ? fuzz.pick(valid) : fuzz.pick(credentials);
      const headers: Record<string, string> = {
        Host: requestHost,
        ...credential,
        ...(origin !== undefined ? { Origin: origin } : {}),
        ...(secFetch ? { 'Sec-Fetch-Site': secFetch } : {}),
      };
      const fromOwnPage = origin !== undefined ? origin === bridge.url : secFetch === 'same-origin';
      const trusted = fromOwnPage && goodCredential;

      const route = fuzz.int(0, 9);
      let test: Omit<Case, 'label' | 'headers'> & { what: string };
      if (route <= 2) {
        const json = fuzz.chance(0.9);
        const channel = fuzz.pick(['profiles:list', 'app:info', 'settings:get', 'reports:list', 'no:such-channel', 'constructor', '__proto__']);
        headers['Content-Type'] = json ? 'application/json' : fuzz.pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data']);
        const body = fuzz.chance(0.8) ? '{}' : JSON.stringify(fuzz.json(2));
        // A known channel with a valid input reaches its handler (other inputs are dispatch's own fault file).
        const reaches = body === '{}' && channel.includes(':') && channel !== 'no:such-channel';
        test = {
          what: `invoke ${channel}`,
          method: 'POST',
          path: `/bridge/invoke/${encodeURIComponent(channel)}`,
          body,
          expect: trusted ? (json ? 200 : 415) : 403,
          ...(reaches ? { effect: 'call' as const } : {}),
        };
      } else if (route === 3) {
        const { url } = await template({ format: 'csv' });
        test = { what: 'a download', method: 'GET', path: url, expect: trusted ? 200 : 403, effect: 'download' };
      } else if (route === 4) {
        test = {
          what: 'an unknown download',
          method: 'GET',
          path: `/bridge/files/${fuzz.pick([fuzz.random.guid(), '..%2f..%2fetc%2fpasswd', '', 'download-..%2f..%2findex.html'])}`,
          expect: trusted ? 404 : 403,
        };
      } else if (route === 5) {
        test = { what: 'the event stream', method: 'GET', path: '/bridge/events', expect: trusted ? 200 : 403 };
      } else if (route === 6) {
        const bytes = fuzz.pick([0, 10, MAX_UPLOAD, MAX_UPLOAD + 1, 3 * MAX_UPLOAD]);
        headers['X-File-Name'] = fuzz.pick(['report.json', '..%2F..%2Fetc%2Fpasswd', '%zz', '%E0%A4%A', '', 'a%00b', '%2e%2e', 'r%C3%A9sum%C3%A9.json']);
        test = {
          what: `an upload of ${bytes} bytes`,
          method: 'POST',
          path: '/bridge/upload',
          body: Buffer.alloc(bytes, 120),
          expect: trusted ? (bytes > MAX_UPLOAD ? 413 : 200) : 403,
          effect: 'upload',
        };
      } else if (route === 7) {
        test = { what: 'a preflight', method: 'OPTIONS', path: '/bridge/invoke/profiles:list', expect: trusted ? 404 : 403 };
        headers['Access-Control-Request-Method'] = 'POST';
      } else if (route === 8) {
        const guess = fuzz.pick([
          code,
          code,
          bridge.token,
          `${code}x`,
          code.slice(1),
          Buffer.from(fuzz.string()).toString('base64url'),
          '',
          '%zz',
          `${code}&token=${code}`,
        ]);
        test = { what: 'the spent one-time link, or a guess', method: 'GET', path: `/open?token=${guess}`, expect: 403 };
      } else {
        test = { what: 'a file of the page', method: 'GET', path: fuzz.pick(['/', '/index.html', '/missing.js', '/..%2f..%2fetc%2fpasswd']), expect: 200 };
        if (test.path !== '/' && test.path !== '/index.html') test.expect = 404;
      }
      let path = test.path;
      if (fuzz.chance(0.12)) {
        // Before a slash or at the end of the path, so nothing after it can complete the escape.
        const end = path.includes('?') ? path.indexOf('?') : path.length;
        const at = fuzz.pick([...[...path.slice(0, end)].flatMap((character, index) => (character === '/' && index > 0 ? [index] : [])), end]);
        path = `${path.slice(0, at)}${fuzz.pick(badEscapes)}${path.slice(at)}`;
        test.expect = 400;
        delete test.effect;
      }
      if (!goodHost) test.expect = 421;
      const label = `${test.what} (${path}) from ${goodHost ? 'the host' : `Host ${JSON.stringify(requestHost)}`}, ${origin === undefined ? 'no Origin' : `Origin ${JSON.stringify(origin)}`}${secFetch ? `, Sec-Fetch-Site ${secFetch}` : ''}, with ${credentialLabel}`;
      await attempt({ ...test, path, headers, label });
    }
    const randomSeconds = (performance.now() - started) / 1000;

    // Bodies over the limit: the page's 85 MB call, one declared too large, an upload streamed past its limit, and
    // the same 85 MB from a page that is not the bridge's.
    const own = { Host: host, Origin: bridge.url, Cookie: session };
    const huge = `{"x":"${'a'.repeat(85 * 1024 * 1024)}"}`;
    await attempt({
      label: 'an 85 MB call',
      method: 'POST',
      path: '/bridge/invoke/profiles:list',
      headers: { ...own, 'Content-Type': 'application/json' },
      body: huge,
      expect: 413,
    });
    await attempt({
      label: 'an 85 MB call from another loopback port',
      method: 'POST',
      path: '/bridge/invoke/profiles:list',
      headers: { ...own, Origin: `http://127.0.0.1:${Number(port) + 1}`, 'Content-Type': 'application/json' },
      body: huge,
      expect: 403,
    });
    await attempt({
      label: 'an upload streamed past its limit',
      method: 'POST',
      path: '/bridge/upload',
      headers: { ...own, 'Transfer-Encoding': 'chunked' },
      body: Buffer.alloc(4 * MAX_UPLOAD, 120),
      expect: 413,
      effect: 'upload',
    });
    const rawCases: [string, string, RegExp][] = [
      [
        'a call declaring 81 MB',
        `POST /bridge/invoke/profiles:list HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${bridge.url}\r\nCookie: ${session}\r\nContent-Type: application/json\r\nContent-Length: ${81 * 1024 * 1024}\r\n\r\n{}`,
        / 413 /,
      ],
      [
        'an upload declaring 3 GB',
        `POST /bridge/upload HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${bridge.url}\r\nCookie: ${session}\r\nContent-Length: ${3 * 1024 ** 3}\r\n\r\nxx`,
        / 413 /,
      ],
      ['HTTP/1.1 without Host', 'GET / HTTP/1.1\r\n\r\n', / 400 /],
      ['HTTP/1.0 without Host', 'GET / HTTP/1.0\r\n\r\n', / 421 /],
      ['two Host headers', `GET / HTTP/1.1\r\nHost: evil.example\r\nHost: ${host}\r\n\r\n`, / (400|421) /],
      ['an absolute URL', `GET http://${host}/bridge/events HTTP/1.1\r\nHost: ${host}\r\nCookie: ${session}\r\nOrigin: ${bridge.url}\r\n\r\n`, / 400 /],
      ['OPTIONS *', `OPTIONS * HTTP/1.1\r\nHost: ${host}\r\n\r\n`, / 400 /],
      ['a path without its slash', `GET bridge/events HTTP/1.1\r\nHost: ${host}\r\nCookie: ${session}\r\nOrigin: ${bridge.url}\r\n\r\n`, / 400 /],
      [
        'a path that is two slashes',
        `GET //evil.example/bridge/events HTTP/1.1\r\nHost: ${host}\r\nCookie: ${session}\r\nOrigin: ${bridge.url}\r\n\r\n`,
        / 404 /,
      ],
    ];
    for (const [label, text, status] of rawCases) {
      inputs += 1;
      const line = await raw(`${text}`).catch((error: unknown) => `failed: ${String(error)}`);
      if (line === '' || / 5\d\d /.test(line) || line.startsWith('failed')) crashes.push(`${label}: ${line || 'the connection closed with no answer'}`);
      else if (!status.test(line)) unclear.push(`${label}: ${line}, expected ${status.source.trim()}`);
    }
    // And its own page is still answered.
    const still = await send('/bridge/invoke/profiles:list', 'POST', { ...own, 'Content-Type': 'application/json' }, '{}');
    if (still.status !== 200) damaged.push(`its own page is no longer answered: HTTP ${still.status}`);
    if (warnings.length) crashes.push(...warnings.map((warning) => `logged: ${warning}`));

    saveFigures(inject('faultFiguresDir'), {
      boundary: '12 Browser bridge',
      inputs,
      crashes: crashes.length + watch.failures.length,
      unclear: unclear.length,
      damaged: damaged.length,
      notes: [
        `${REQUESTS} seeded requests (hosts, origins, Sec-Fetch-Site, credentials, routes, bad % escapes) in ${randomSeconds.toFixed(1)} s, then 3 bodies over the limit and ${rawCases.length} raw requests`,
        [...outcomes]
          .sort(([a], [b]) => a - b)
          .map(([status, times]) => `${times} × ${status}`)
          .join(', '),
      ],
      examples: [
        ...crashes.slice(0, 8).map((what) => `crash: ${what}`),
        ...watch.failures.slice(0, 4).map((reason) => `unhandled rejection or exception: ${reason instanceof Error ? reason.message : preview(reason)}`),
        ...unclear.slice(0, 8).map((what) => `unclear: ${what}`),
        ...damaged.slice(0, 8).map((what) => `damage: ${what}`),
      ],
    });
    expect(crashes).toEqual([]);
    expect(watch.failures).toEqual([]);
    expect(damaged).toEqual([]);
    expect(unclear).toEqual([]);
  });
});
