import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryDir, testPorts } from '../testing/test-support';
import { type Harness, startHarness, uploadName } from './server';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function harness(): Promise<Harness> {
  const { ports, cleanup } = await testPorts();
  const staticDir = await temporaryDir();
  await writeFile(join(staticDir.path, 'index.html'), '<!doctype html><title>Closebook</title>');
  const started = await startHarness({ staticDir: staticDir.path, ports });
  cleanups.push(cleanup, staticDir.remove, () => started.close());
  return started;
}

async function invoke(bridge: Harness, channel: string, input: unknown) {
  const response = await fetch(`${bridge.url}/bridge/invoke/${channel}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: bridge.url, 'x-closebook-bridge': bridge.token },
    body: JSON.stringify(input),
  });
  return (await response.json()) as { ok: boolean; data: { kind: string; fileName: string; url: string } };
}

describe('files handed to the page by the browser bridge', () => {
  it('come by a one-time URL as an attachment, never as bytes in the reply', async () => {
    const bridge = await harness();
    const reply = await invoke(bridge, 'consumption:template', { format: 'csv' });
    expect(reply).toMatchObject({ ok: true, data: { kind: 'download', fileName: 'Consumption template.csv', url: expect.stringMatching(/^\/bridge\/files\/[0-9a-f-]{36}$/) } });
    expect(Object.keys(reply.data).sort()).toEqual(['fileName', 'kind', 'url']);

    const file = await fetch(`${bridge.url}${reply.data.url}`, { headers: { Referer: `${bridge.url}/`, 'x-closebook-bridge': bridge.token } });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''Consumption%20template.csv`);
    expect(file.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(await file.text()).toMatch(/^Subscription ID,Is add-on,/);

    const withToken = { headers: { 'x-closebook-bridge': bridge.token } };
    expect((await fetch(`${bridge.url}${reply.data.url}`, withToken)).status).toBe(404); // served once
    expect((await fetch(`${bridge.url}/bridge/files/..%2f..%2fetc%2fpasswd`, withToken)).status).toBe(404);
  });

  it('are refused to another page in the same browser', async () => {
    const bridge = await harness();
    const reply = await invoke(bridge, 'consumption:template', { format: 'xlsx' });
    expect((await fetch(`${bridge.url}${reply.data.url}`, { headers: { Origin: 'http://evil.example', 'x-closebook-bridge': bridge.token } })).status).toBe(403);
  });
});

describe('the browser bridge itself', () => {
  const call = (bridge: Harness, headers: Record<string, string>, body = '{}') =>
    fetch(`${bridge.url}/bridge/invoke/profiles:list`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });

  it("answers only its own page: its exact origin, its own host name, and this run's token", async () => {
    const bridge = await harness();
    expect((await call(bridge, { Origin: bridge.url, 'x-closebook-bridge': bridge.token })).status).toBe(200);
    expect((await call(bridge, { Origin: bridge.url })).status).toBe(403); // no token
    expect((await call(bridge, { Origin: bridge.url, 'x-closebook-bridge': 'guessed' })).status).toBe(403);
    // An origin that merely starts with the bridge's (a prefix match would let it in).
    expect((await call(bridge, { Origin: `${bridge.url}.evil.example`, 'x-closebook-bridge': bridge.token })).status).toBe(403);
    expect((await call(bridge, { Referer: `${bridge.url}.evil.example/page`, 'x-closebook-bridge': bridge.token })).status).toBe(403);
    // The page gets the token as a cookie with the app, and its requests carry it back.
    const page = await fetch(`${bridge.url}/`);
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(page.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Strict/);
    expect((await call(bridge, { Origin: bridge.url, Cookie: cookie })).status).toBe(200);
  });

  it('refuses another host name (DNS rebinding), an oversized body, and files outside the renderer folder', async () => {
    const bridge = await harness();
    const port = new URL(bridge.url).port;
    const { request } = await import('node:http');
    const status = (path: string, host: string) =>
      new Promise<number>((resolve, reject) => {
        request({ host: '127.0.0.1', port, path, headers: { Host: host } }, (response) => resolve(response.statusCode ?? 0)).on('error', reject).end();
      });
    expect(await status('/', `evil.example:${port}`)).toBe(421);
    expect(await status('/', `127.0.0.1:${port}`)).toBe(200);
    expect(await status('/%2e%2e/%2e%2e/etc/passwd', `127.0.0.1:${port}`)).toBe(404);
    const huge = await call(bridge, { Origin: bridge.url, 'x-closebook-bridge': bridge.token }, `{"x":"${'a'.repeat(81 * 1024 * 1024)}"}`).catch(() => null);
    expect(huge === null || huge.status === 413).toBe(true);
  });
});

describe('uploads', () => {
  it('keep the name the user picked as one safe path segment, never a path', () => {
    expect(uploadName(encodeURIComponent('Billing 2026-10 · Acme.closebook-report.json.gz'))).toBe('Billing 2026-10 · Acme.closebook-report.json.gz');
    expect(uploadName(encodeURIComponent('../../etc/passwd'))).toBe('passwd');
    expect(uploadName(encodeURIComponent('C:\\Users\\me\\march.csv'))).toBe('march.csv');
    expect(uploadName(encodeURIComponent('..'))).toBe('upload');
    expect(uploadName('%E0%A4%A')).toBe('upload'); // not valid URI encoding
    expect(uploadName(undefined)).toBe('upload');
    expect(uploadName(encodeURIComponent(`a\u0000b\nc.csv`))).toBe('abc.csv');
  });
});

describe('copy and print in the browser bridge', () => {
  it('hands the copied text back to the page (it has no clipboard of its own) and refuses printing to PDF', async () => {
    const bridge = await harness();
    expect(await invoke(bridge, 'clipboard:copy-table', { rows: [['Organization', 'Sales'], ['=cmd', '-12.50']] })).toEqual({ ok: true, data: { copied: false, text: "Organization\tSales\r\n'=cmd\t-12.50" } });
    expect(await invoke(bridge, 'view:print-pdf', { fileName: 'Summary' })).toEqual({ ok: false, error: { code: 'internal', message: expect.stringMatching(/browser's Print/) } });
  });
});
