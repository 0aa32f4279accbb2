import { contextBridge, ipcRenderer } from 'electron';
import type { ClosebookBridge } from '@shared/contract';
import { channelNames, EVENT_PREFIX, eventNames } from '@shared/contract';

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
