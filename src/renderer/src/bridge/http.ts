import type { ClosebookBridge, EventName, EventPayload, Reply } from '@shared/contract';

/**
 * The browser test bridge: the same contract over HTTP to a host that runs the same service (src/harness).
 * Used by the end-to-end tests and for trying the UI where Electron cannot run; never shipped in the app.
 */
export function createHttpBridge(origin: string): ClosebookBridge {
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  let source: EventSource | null = null;

  const ensureEvents = () => {
    if (source) return;
    source = new EventSource(`${origin}/bridge/events`);
    source.onmessage = (message) => {
      const { event, payload } = JSON.parse(message.data as string) as { event: string; payload: unknown };
      for (const listener of listeners.get(event) ?? []) listener(payload);
    };
  };

  return {
    async invoke(channel, input) {
      try {
        const response = await fetch(`${origin}/bridge/invoke/${encodeURIComponent(channel)}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(input ?? {}),
        });
        // A refusal (no session in this browser, a body too large) comes as a short plain message.
        if (!response.ok)
          return { ok: false, error: { code: response.status === 403 ? 'untrusted-sender' : 'internal', message: (await response.text()).trim() } };
        return (await response.json()) as Reply<never>;
      } catch {
        return { ok: false, error: { code: 'network', message: 'The Closebook bridge is not running. Restart it and reload the page.' } };
      }
    },
    on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void) {
      ensureEvents();
      const set = listeners.get(event) ?? new Set();
      set.add(listener as (payload: unknown) => void);
      listeners.set(event, set);
      return () => set.delete(listener as (payload: unknown) => void);
    },
  };
}

/** Sends a file's bytes to the browser bridge (for an import) and returns the id it is kept under. */
export async function uploadToHttpBridge(origin: string, file: File): Promise<string> {
  const response = await fetch(`${origin}/bridge/upload`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/octet-stream', 'X-File-Name': encodeURIComponent(file.name) },
    body: file,
  });
  if (!response.ok) throw new Error(`The file could not be handed to Closebook: ${(await response.text()).trim()}`);
  return ((await response.json()) as { upload: string }).upload;
}
