import { beforeEach, describe, expect, it, vi } from 'vitest';
import { channelNames, type ClosebookBridge } from '@shared/contract';

const exposed: Record<string, unknown> = {};
const ipcRenderer = { invoke: vi.fn(async () => ({ ok: true, data: 'x' })), on: vi.fn(), removeListener: vi.fn() };

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, value: unknown) => (exposed[key] = value) },
  ipcRenderer,
}));

beforeEach(async () => {
  vi.resetModules();
  ipcRenderer.invoke.mockClear();
  await import('./index');
});

describe('preload', () => {
  it('exposes window.closebook with invoke and on, and nothing else', () => {
    expect(Object.keys(exposed)).toEqual(['closebook']);
    expect(Object.keys(exposed.closebook as object).sort()).toEqual(['invoke', 'on']);
  });

  it('forwards every contract channel to the main process', async () => {
    const bridge = exposed.closebook as ClosebookBridge;
    for (const channel of channelNames) await bridge.invoke(channel, {} as never);
    expect(ipcRenderer.invoke.mock.calls.map((call) => (call as unknown[])[0])).toEqual(channelNames);
  });

  it('refuses a channel outside the contract without calling the main process', async () => {
    const bridge = exposed.closebook as ClosebookBridge;
    const reply = await bridge.invoke('fs:read' as never, {} as never);
    expect(reply).toMatchObject({ ok: false, error: { code: 'validation' } });
    expect(ipcRenderer.invoke).not.toHaveBeenCalled();
  });

  it('subscribes to contract events and returns an unsubscribe', () => {
    const bridge = exposed.closebook as ClosebookBridge;
    const unsubscribe = bridge.on('connection:state', () => {});
    expect(ipcRenderer.on).toHaveBeenCalledWith('closebook-event:connection:state', expect.any(Function));
    unsubscribe();
    expect(ipcRenderer.removeListener).toHaveBeenCalledWith('closebook-event:connection:state', expect.any(Function));
    expect(() => bridge.on('nope' as never, () => {})).toThrow();
  });
});
