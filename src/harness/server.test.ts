import { writeFile } from 'node:fs/promises';
import { type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { temporaryDir, testPorts } from '@testing/test-support';
import { type Harness, startHarness, uploadName } from './server';

const cleanups = cleanupsAfterEach();

async function harness(options: { maxUploadBytes?: number } = {}): Promise<Harness> {
  const { ports, cleanup } = await testPorts();
  const staticDir = await temporaryDir();
  await writeFile(join(staticDir.path, 'index.html'), '<!doctype html><title>Closebook</title>');
  const started = await startHarness({ staticDir: staticDir.path, ports, ...options });
  cleanups.push(cleanup, staticDir.remove, () => started.close());
  return started;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request as a test tool or a hostile client would make it: any Host, any headers, nothing added. */
function send(bridge: Harness, path: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Answer> {
  const { port } = new URL(bridge.url);
  return new Promise((resolvePromise, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { Host: `127.0.0.1:${port}`, ...options.headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolvePromise({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

async function invoke(bridge: Harness, channel: string, input: unknown) {
  const response = await fetch(`${bridge.url}/bridge/invoke/${channel}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: bridge.url, 'x-closebook-bridge': bridge.token },
    body: JSON.stringify(input),
  });
  return (await response.json()) as { ok: boolean; data: { kind: string; fileName: string; url: string } };
}

/** Bytes written as they are to the bridge's port (a request no client library would send); returns what came back. */
function raw(bridge: Harness, text: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const socket = connect(Number(new URL(bridge.url).port), '127.0.0.1', () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolvePromise(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
    socket.setTimeout(5_000, () => socket.end());
  });
}

/** Opens the one-time link as a browser would; returns the session cookie it got (`name=value`). */
async function signIn(bridge: Harness): Promise<string> {
  const answer = await send(bridge, new URL(bridge.link).pathname + new URL(bridge.link).search);
  expect(answer.status).toBe(303);
  return String(answer.headers['set-cookie']?.[0]).split(';')[0] as string;
}

describe('files handed to the page by the browser bridge', () => {
  it('come by a one-time URL as an attachment, never as bytes in the reply', async () => {
    const bridge = await harness();
    const reply = await invoke(bridge, 'consumption:template', { format: 'csv' });
    expect(reply).toMatchObject({
      ok: true,
      data: { kind: 'download', fileName: 'Consumption template.csv', url: expect.stringMatching(/^\/bridge\/files\/[0-9a-f-]{36}$/) },
    });
    expect(Object.keys(reply.data).sort()).toEqual(['fileName', 'kind', 'url']);

    // As the page's download would come: no Origin on a same-origin GET, but the browser's Sec-Fetch-Site.
    const file = await fetch(`${bridge.url}${reply.data.url}`, { headers: { 'Sec-Fetch-Site': 'same-origin', 'x-closebook-bridge': bridge.token } });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''Consumption%20template.csv`);
    expect(file.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(await file.text()).toMatch(/^Subscription ID,Is add-on,/);

    const withToken = { headers: { Origin: bridge.url, 'x-closebook-bridge': bridge.token } };
    expect((await fetch(`${bridge.url}${reply.data.url}`, withToken)).status).toBe(404); // served once
    expect((await fetch(`${bridge.url}/bridge/files/..%2f..%2fetc%2fpasswd`, withToken)).status).toBe(404);
    expect((await fetch(`${bridge.url}/bridge/files/%zz`, withToken)).status).toBe(400);
  });

  it('are refused to another page in the same browser', async () => {
    const bridge = await harness();
    const reply = await invoke(bridge, 'consumption:template', { format: 'xlsx' });
    expect((await fetch(`${bridge.url}${reply.data.url}`, { headers: { Origin: 'http://evil.example', 'x-closebook-bridge': bridge.token } })).status).toBe(
      403,
    );
  });
});

describe('the browser bridge itself', () => {
  const json = { 'Content-Type': 'application/json' };
  const call = (bridge: Harness, headers: Record<string, string>, body = '{}') =>
    send(bridge, '/bridge/invoke/profiles:list', { method: 'POST', headers: { ...json, ...headers }, body });

  it('gives its token and session to no one who asks for the page (`curl /`)', async () => {
    const bridge = await harness();
    const answers = await Promise.all(['/', '/index.html', '/missing.js', '/bridge/invoke/profiles:list', '/bridge/events'].map((path) => send(bridge, path)));
    for (const answer of answers) {
      expect(answer.headers['set-cookie']).toBeUndefined();
      for (const secret of [bridge.token, new URL(bridge.link).searchParams.get('token') as string]) expect(JSON.stringify(answer)).not.toContain(secret);
    }
    expect((await send(bridge, '/')).status).toBe(200);
    expect((await call(bridge, {})).status).toBe(403); // a plain curl calls no channel
  });

  it('exchanges its one-time link once for a fresh session, then refuses the link with what to do instead', async () => {
    const bridge = await harness();
    const code = new URL(bridge.link).searchParams.get('token') as string;
    const opened = await send(bridge, `/open?token=${code}`);
    expect(opened.status).toBe(303);
    expect(opened.headers.location).toBe('/'); // the token does not stay in the address bar
    const [setCookie] = opened.headers['set-cookie'] ?? [];
    expect(setCookie).toMatch(new RegExp(`^closebook-session-${new URL(bridge.url).port}=[\\w-]{32}; Path=/; HttpOnly; SameSite=Strict$`));
    const cookie = String(setCookie).split(';')[0] as string;
    expect(cookie).not.toContain(code);
    expect(cookie).not.toContain(bridge.token);
    expect((await call(bridge, { Origin: bridge.url, Cookie: cookie })).status).toBe(200);

    const again = await send(bridge, `/open?token=${code}`);
    expect(again.status).toBe(403);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect(again.body).toContain(`go to ${bridge.url}/`);
    expect(again.body).toMatch(/start it again for a new link/);
    // A guess does not spend a fresh link, and the token for programs is not a link.
    const other = await harness();
    expect((await send(other, '/open?token=guessed')).status).toBe(403);
    expect((await send(other, `/open?token=${other.token}`)).status).toBe(403);
    expect((await send(other, new URL(other.link).pathname + new URL(other.link).search)).status).toBe(303);
  });

  it('answers a call only with the session (or the token header) AND its exact origin', async () => {
    const bridge = await harness();
    const cookie = await signIn(bridge);
    const { port } = new URL(bridge.url);
    expect((await call(bridge, { Origin: bridge.url, Cookie: cookie })).status).toBe(200);
    expect((await call(bridge, { Origin: bridge.url, 'x-closebook-bridge': bridge.token })).status).toBe(200);
    // A page on another loopback port shares the browser's cookies (not scoped by port) but not the origin.
    expect((await call(bridge, { Origin: 'http://127.0.0.1:1', Cookie: cookie })).status).toBe(403);
    expect((await call(bridge, { Origin: `http://localhost:${port}`, Cookie: cookie })).status).toBe(403);
    expect((await call(bridge, { Origin: `${bridge.url}.evil.example`, Cookie: cookie })).status).toBe(403); // a prefix is not a match
    expect((await call(bridge, { Origin: 'null', Cookie: cookie })).status).toBe(403);
    expect((await call(bridge, { Cookie: cookie })).status).toBe(403); // no origin at all (curl with a stolen cookie)
    expect((await call(bridge, { 'Sec-Fetch-Site': 'same-site', Cookie: cookie })).status).toBe(403);
    expect((await call(bridge, { 'x-closebook-bridge': bridge.token })).status).toBe(403);
    // The right origin without a credential, or with a forged one.
    expect((await call(bridge, { Origin: bridge.url })).status).toBe(403);
    expect((await call(bridge, { Origin: bridge.url, Cookie: `closebook-session-${port}=forged` })).status).toBe(403);
    // A same-named cookie another loopback page planted (sent first, for a longer path) does not hide the real one.
    expect((await call(bridge, { Origin: bridge.url, Cookie: `closebook-session-${port}=planted; ${cookie}` })).status).toBe(200);
    expect((await call(bridge, { Origin: bridge.url, Cookie: `closebook-bridge=${bridge.token}` })).status).toBe(403); // the old token cookie
    expect((await call(bridge, { Origin: bridge.url, 'x-closebook-bridge': 'guessed' })).status).toBe(403);
    // As long as the real one in characters, longer in bytes (a comparison of unequal lengths throws).
    expect((await call(bridge, { Origin: bridge.url, 'x-closebook-bridge': 'é'.repeat(bridge.token.length) })).status).toBe(403);
    expect((await call(bridge, { Origin: bridge.url, Cookie: `closebook-session-${port}=${'é'.repeat(32)}` })).status).toBe(403);
    // A same-origin GET from the page carries no Origin; the browser's Sec-Fetch-Site says where it comes from.
    const events = await new Promise<number>((resolvePromise, reject) => {
      httpRequest({ host: '127.0.0.1', port, path: '/bridge/events', headers: { 'Sec-Fetch-Site': 'same-origin', Cookie: cookie } }, (response) => {
        resolvePromise(response.statusCode ?? 0);
        response.destroy();
      })
        .on('error', reject)
        .end();
    });
    expect(events).toBe(200);
    for (const site of ['same-site', 'cross-site', 'none'])
      expect((await send(bridge, '/bridge/events', { headers: { 'Sec-Fetch-Site': site, Cookie: cookie } })).status).toBe(403);
    const refused = await call(bridge, { Origin: bridge.url });
    expect(refused.headers['content-type']).toMatch(/^text\/plain/);
    expect(refused.body).toMatch(/Open the link it printed at start, or restart it for a new one/);
  });

  it('lets no other origin read an answer: no CORS headers, not even for a preflight', async () => {
    const bridge = await harness();
    const cookie = await signIn(bridge);
    const answers = [
      await send(bridge, '/bridge/invoke/profiles:list', {
        method: 'OPTIONS',
        headers: { Origin: 'http://127.0.0.1:1', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
      }),
      await call(bridge, { Origin: 'http://127.0.0.1:1', Cookie: cookie }),
      await call(bridge, { Origin: bridge.url, Cookie: cookie }),
      await send(bridge, '/', { headers: { Origin: 'http://127.0.0.1:1' } }),
    ];
    for (const answer of answers) expect(Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it('refuses another host name (DNS rebinding) and files outside the renderer folder', async () => {
    const bridge = await harness();
    const { port } = new URL(bridge.url);
    for (const host of [`evil.example:${port}`, `localhost:${port}`, '127.0.0.1', `127.0.0.1:${port}.evil.example`, `[::1]:${port}`]) {
      const answer = await send(bridge, new URL(bridge.link).pathname + new URL(bridge.link).search, { headers: { Host: host } });
      expect(answer.status, host).toBe(421);
      expect(answer.body).toContain(`${bridge.url}/`);
    }
    expect((await send(bridge, '/')).status).toBe(200);
    expect((await send(bridge, '/%2e%2e/%2e%2e/etc/passwd')).status).toBe(404);
    expect((await send(bridge, '/..%2f..%2fetc%2fpasswd')).status).toBe(404);
  });

  it('answers a bad % escape with 400 and a body over the limit with 413, each with a short message, never a reset or a 500', async () => {
    const bridge = await harness({ maxUploadBytes: 1024 });
    const auth = { Origin: bridge.url, 'x-closebook-bridge': bridge.token };
    for (const path of ['/bridge/invoke/%zz', '/bridge/invoke/profiles%3Alist%', '/bridge/files/%E0%A4%A', '/%zz', '/bridge/upload%']) {
      const answer = path.includes('invoke')
        ? await send(bridge, path, { method: 'POST', headers: { ...json, ...auth }, body: '{}' })
        : await send(bridge, path, { headers: auth });
      expect(answer.status, path).toBe(400);
      expect(answer.body).toMatch(/bad % escape/);
    }
    // 85 MB, as the page's fetch would send it (the limit is 80 MB).
    const huge = await fetch(`${bridge.url}/bridge/invoke/profiles:list`, {
      method: 'POST',
      headers: { ...json, ...auth },
      body: `{"x":"${'a'.repeat(85 * 1024 * 1024)}"}`,
    });
    expect(huge.status).toBe(413);
    expect(await huge.text()).toMatch(/larger than Closebook accepts \(80 MB\)/);
    // Declared too large: answered at once, the body is not read.
    const { port } = new URL(bridge.url);
    const declared = await raw(
      bridge,
      `POST /bridge/invoke/profiles:list HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: ${bridge.url}\r\nx-closebook-bridge: ${bridge.token}\r\nContent-Type: application/json\r\nContent-Length: ${81 * 1024 * 1024}\r\n\r\n{}`,
    );
    expect(declared).toMatch(/^HTTP\/1\.1 413 [^]*larger than Closebook accepts \(80 MB\)/);
    // An upload streamed over its limit (no length given), and one just within it.
    const upload = (bytes: number) =>
      send(bridge, '/bridge/upload', { method: 'POST', headers: { ...auth, 'Transfer-Encoding': 'chunked' }, body: Buffer.alloc(bytes, 120) });
    const over = await upload(1025);
    expect(over.status).toBe(413);
    expect(over.body).toMatch(/larger than Closebook accepts \(1024 bytes\)/);
    expect((await upload(1024)).status).toBe(200);
    expect((await call(bridge, auth)).status).toBe(200); // and it still answers
  });
});

describe('uploads', () => {
  it('keep the name the user picked as one safe path segment, never a path', () => {
    expect(uploadName(encodeURIComponent('Billing 2026-10 · Acme.closebook-report.json.gz'))).toBe('Billing 2026-10 · Acme.closebook-report.json.gz');
    expect(uploadName(encodeURIComponent('../../etc/passwd'))).toBe('passwd');
    expect(uploadName(encodeURIComponent('C:\\Users\\me\\march.csv'))).toBe('march.csv');
    expect(uploadName(encodeURIComponent('..'))).toBe('upload');
    expect(uploadName(encodeURIComponent('report\u202Ezg.json.exe'))).toBe('reportzg.json.exe');
    expect(uploadName('%E0%A4%A')).toBe('upload'); // not valid URI encoding
    expect(uploadName(undefined)).toBe('upload');
    expect(uploadName(encodeURIComponent(`a\u0000b\nc.csv`))).toBe('abc.csv');
  });
});

describe('copy and print in the browser bridge', () => {
  it('hands the copied table back to the page as text and HTML (it has no clipboard of its own) and refuses printing to PDF', async () => {
    const bridge = await harness();
    expect(
      await invoke(bridge, 'clipboard:copy-table', {
        rows: [
          ['Organization', 'Sales'],
          ['=cmd', '-12.50'],
        ],
      }),
    ).toEqual({
      ok: true,
      data: {
        copied: false,
        text: "Organization\tSales\r\n'=cmd\t-12.50",
        html: expect.stringMatching(/^<meta charset="utf-8"><table>.*<td>-12\.50<\/td><\/tr><\/table>$/),
      },
    });
    expect(await invoke(bridge, 'view:print-pdf', { fileName: 'Summary' })).toEqual({
      ok: false,
      error: { code: 'internal', message: expect.stringMatching(/browser's Print/) },
    });
  });
});
