import { afterEach, describe, expect, it } from 'vitest';
import { temporaryDir, testPorts } from '../testing/test-support';
import { type Harness, startHarness } from './server';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function harness(): Promise<Harness> {
  const { ports, cleanup } = await testPorts();
  const staticDir = await temporaryDir();
  const started = await startHarness({ staticDir: staticDir.path, ports });
  cleanups.push(cleanup, staticDir.remove, () => started.close());
  return started;
}

async function invoke(bridge: Harness, channel: string, input: unknown) {
  const response = await fetch(`${bridge.url}/bridge/invoke/${channel}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: bridge.url },
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

    const file = await fetch(`${bridge.url}${reply.data.url}`, { headers: { Referer: `${bridge.url}/` } });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''Consumption%20template.csv`);
    expect(file.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(await file.text()).toMatch(/^Subscription ID,Is add-on,/);

    expect((await fetch(`${bridge.url}${reply.data.url}`)).status).toBe(404); // served once
    expect((await fetch(`${bridge.url}/bridge/files/..%2f..%2fetc%2fpasswd`)).status).toBe(404);
  });

  it('are refused to another page in the same browser', async () => {
    const bridge = await harness();
    const reply = await invoke(bridge, 'consumption:template', { format: 'xlsx' });
    expect((await fetch(`${bridge.url}${reply.data.url}`, { headers: { Origin: 'http://evil.example' } })).status).toBe(403);
  });
});
