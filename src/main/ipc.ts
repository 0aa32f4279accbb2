import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { channelNames, EVENT_PREFIX, type Reply } from '@shared/contract';
import { dispatch, type Logger, type Service } from '@core';

const UNTRUSTED: Reply<never> = {
  ok: false,
  error: { code: 'untrusted-sender', message: "This request did not come from Closebook's own window and was refused." },
};

/**
 * A sender is trusted only when it is the top frame of a page loaded from the app's own renderer location.
 * Anything else (an iframe, a page that navigated away) is refused before its input is even parsed.
 */
export function isTrustedSender(event: Pick<IpcMainInvokeEvent, 'senderFrame'>, trustedUrl: string): boolean {
  const frame = event.senderFrame;
  if (!frame || frame.parent !== null) return false;
  try {
    const sender = new URL(frame.url);
    const trusted = new URL(trustedUrl);
    // Scheme and host, not `origin`: for a scheme URL does not know (app:) that is "null" for every address alike.
    return sender.protocol === trusted.protocol && sender.host === trusted.host;
  } catch {
    return false;
  }
}

/** Registers one handler per contract channel; each checks the sender, then dispatches like every other host. */
export function registerIpc(ipcMain: Pick<IpcMain, 'handle'>, service: Service, trustedUrl: string, log: Logger): void {
  for (const channel of channelNames) {
    ipcMain.handle(channel, async (event, input: unknown) => {
      if (!isTrustedSender(event, trustedUrl)) {
        log.warn('refused IPC from an untrusted sender', { channel });
        return UNTRUSTED;
      }
      return dispatch(service, channel, input, log);
    });
  }
}

/** Sends every service event to the window until it closes. */
export function forwardEvents(service: Pick<Service, 'events'>, webContents: Pick<WebContents, 'send' | 'isDestroyed' | 'once'>): () => void {
  const unsubscribe = service.events.subscribe((event, payload) => {
    if (!webContents.isDestroyed()) webContents.send(`${EVENT_PREFIX}${event}`, payload);
  });
  webContents.once('destroyed', unsubscribe);
  return unsubscribe;
}
