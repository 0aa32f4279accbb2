import { describe, expect, it, vi } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { channelNames, EVENT_PREFIX } from '@shared/contract';
import { createService, silentLogger } from '@core';
import { testPorts } from '@testing/test-support';
import { forwardEvents, isTrustedSender, registerIpc } from './ipc';

vi.mock('electron', () => ({}));

const TRUSTED = 'app://closebook/index.html';
type Handler = (event: unknown, input: unknown) => Promise<unknown>;

const cleanups = cleanupsAfterEach();

async function registered() {
  const env = await testPorts();
  cleanups.push(env.cleanup);
  const service = createService(env.ports);
  const handlers = new Map<string, Handler>();
  registerIpc({ handle: (channel: string, handler: Handler) => handlers.set(channel, handler) } as never, service, TRUSTED, silentLogger);
  return { service, handlers };
}

const topFrame = (url: string) => ({ senderFrame: { url, parent: null } });

describe('IPC registration', () => {
  it('registers a handler for every contract channel', async () => {
    const { handlers } = await registered();
    expect([...handlers.keys()].sort()).toEqual([...channelNames].sort());
  });

  it('answers the trusted window through the service', async () => {
    const { handlers } = await registered();
    const reply = await handlers.get('profiles:list')?.(topFrame(TRUSTED), {});
    expect(reply).toEqual({ ok: true, data: { profiles: [], activeProfileId: null } });
  });

  it('refuses other pages, iframes and pages that navigated elsewhere', async () => {
    const { handlers } = await registered();
    const handler = handlers.get('profiles:list') as Handler;
    for (const event of [
      topFrame('https://evil.example/index.html'),
      topFrame('file:///tmp/other.html'),
      topFrame('file:///opt/Closebook/resources/app.asar/out/renderer/index.html'), // the renderer is never trusted from file:
      topFrame('app://elsewhere/index.html'),
      topFrame('evil://closebook/index.html'), // a scheme URL does not know has origin "null", as app: has: not enough to compare
      { senderFrame: { url: TRUSTED, parent: {} } },
      { senderFrame: null },
    ]) {
      expect(await handler(event, {})).toMatchObject({ ok: false, error: { code: 'untrusted-sender' } });
    }
  });

  it('refuses malformed input before it reaches the service', async () => {
    const { handlers } = await registered();
    const reply = await handlers.get('organizations:create')?.(topFrame(TRUSTED), { profileId: 'x', organization: { name: 3 } });
    expect(reply).toMatchObject({ ok: false, error: { code: 'validation' } });
  });

  it('trusts the dev server by origin', () => {
    expect(isTrustedSender(topFrame('http://localhost:5173/#/reports') as never, 'http://localhost:5173/')).toBe(true);
    expect(isTrustedSender(topFrame('http://localhost:5174/') as never, 'http://localhost:5173/')).toBe(false);
  });

  it('forwards service events to the window until it is destroyed', async () => {
    // A stand-in for the service's event hub: forwardEvents needs only subscribe.
    let listener: ((event: 'connection:state', payload: unknown) => void) | null = null;
    const service = { events: { subscribe: (l: typeof listener) => ((listener = l), () => (listener = null)) } } as never;
    const emit = (event: 'connection:state', payload: unknown) => listener?.(event, payload);
    const sent: [string, unknown][] = [];
    let onDestroyed = () => {};
    forwardEvents(service, {
      send: (channel: string, payload: unknown) => sent.push([channel, payload]),
      isDestroyed: () => false,
      once: (_: string, cb: () => void) => (onDestroyed = cb),
    } as never);
    const payload = { profileId: 'p', state: 'online' as const, at: 'now' };
    emit('connection:state', payload);
    onDestroyed();
    emit('connection:state', payload);
    expect(sent).toEqual([[`${EVENT_PREFIX}connection:state`, payload]]);
  });
});
