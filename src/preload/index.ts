import { contextBridge, ipcRenderer } from 'electron';
import type { ClosebookBridge } from '../shared/contract';
import { channelNames, eventNames } from '../shared/contract';

// Kept in step with src/main/ipc.ts (the preload is bundled on its own, so it does not import main code).
const EVENT_PREFIX = 'closebook-event:';
const allowedChannels = new Set<string>(channelNames);
const allowedEvents = new Set<string>(eventNames);

/** The whole surface the renderer gets: invoke a contract channel, listen to a contract event. Nothing else. */
const bridge: ClosebookBridge = {
  invoke: (channel, input) => {
    if (!allowedChannels.has(channel)) {
      return Promise.resolve({ ok: false, error: { code: 'validation', message: `Unknown request "${String(channel)}".` } });
    }
    return ipcRenderer.invoke(channel, input);
  },
  on: (event, listener) => {
    if (!allowedEvents.has(event)) throw new Error(`Unknown event "${String(event)}"`);
    const handler = (_event: unknown, payload: unknown) => listener(payload as never);
    ipcRenderer.on(`${EVENT_PREFIX}${event}`, handler);
    return () => {
      ipcRenderer.removeListener(`${EVENT_PREFIX}${event}`, handler);
    };
  },
};

contextBridge.exposeInMainWorld('closebook', bridge);
