import type { ChannelInput, ChannelName, ChannelOutput, ClosebookBridge } from '@shared/contract';
import type { AppErrorShape } from '@shared/errors';
import { createHttpBridge, uploadToHttpBridge } from './http';

declare global {
  interface Window {
    closebook?: ClosebookBridge;
  }
}

/** In Electron the preload provides `window.closebook`; in a plain browser the HTTP bridge stands in. */
export const bridge: ClosebookBridge = window.closebook ?? createHttpBridge(window.location.origin);

/**
 * How a file the user picked reaches the main process: the desktop app opens its own dialog in the main process
 * (null here); the browser bridge takes an upload and answers with its id.
 */
export const uploadFile: ((file: File) => Promise<string>) | null = window.closebook ? null : (file) => uploadToHttpBridge(window.location.origin, file);

/** A failed request as the UI sees it: a code, a message for people, and field messages for forms. */
export class RequestError extends Error {
  constructor(readonly shape: AppErrorShape) {
    super(shape.message);
  }
  get code() {
    return this.shape.code;
  }
  get fields() {
    return this.shape.fields ?? {};
  }
}

/** Invokes a channel and returns its data, or throws a RequestError with the service's words. */
export async function call<C extends ChannelName>(channel: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  const reply = await bridge.invoke(channel, input);
  if (!reply.ok) throw new RequestError(reply.error);
  return reply.data;
}

export { errorMessage } from '@shared/error-message';
