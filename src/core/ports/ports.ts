import type { FileResult } from '@shared/contract';
/**
 * What the core needs from the host it runs in. Electron, the CLI and the browser test bridge each supply
 * these; tests supply fakes. Nothing in the core reaches for a global clock, keychain or network directly.
 */

/** A secret per account (= profile id) in the OS keychain, or an in-memory twin in tests. */
export interface SecretStore {
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<void>;
}

export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects with an AbortError when the signal aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface DemoService {
  baseUrl: string;
  /** The twin's public demo credentials: not secrets, so they are never put in the keychain. */
  credentials: { clientId: string; apiSecret: string; username: string; password: string; resellerId: string; sellerId: string };
}

/** Starts (once) the built-in service twin for demo profiles and says where it runs. */
export type DemoServiceStarter = () => Promise<DemoService>;

export interface Logger {
  info(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
}

/**
 * Hands a file to the user: the host chooses the path (a save dialog, or a download folder it serves) and calls
 * `write` with it. Hosts that never hand files to a user (the CLI writes to its own --out) omit it.
 */
export type DeliverFile = (suggestedName: string, kind: import('../storage/files').FileKind, write: (path: string) => Promise<void>) => Promise<FileResult>;

export interface Ports {
  /** Folder for profiles, settings and saved data. */
  dataDir: string;
  secrets: SecretStore;
  fetch: FetchLike;
  clock: Clock;
  log: Logger;
  startDemoService: DemoServiceStarter;
  appVersion: string;
  host: import('@shared/contract').HostKind;
  /** Who is acting (the month close records and checks it); the OS account when omitted. Tests pass a second person. */
  identity?: import('./identity').IdentityPort;
  deliver?: DeliverFile;
  /** An OS notification (report ready); hosts without one omit it. */
  notify?: (title: string, body: string) => void;
  /** Asks the user to pick a file to open (the desktop's dialog); null when they cancel. Hosts without a dialog omit it. */
  pickFile?: (kind: 'report') => Promise<string | null>;
  /** Asks the user to pick a folder to write into (the desktop's dialog, titled `title`); null when they cancel. */
  pickFolder?: (title: string) => Promise<string | null>;
  /** Puts a table on the system clipboard as text and HTML (Electron). The browser bridge has none: the page copies it itself. */
  writeClipboard?: (table: { text: string; html: string }) => Promise<void>;
  /** The app's window as it shows now, printed to PDF bytes (Electron's printToPDF). Hosts without one omit it. */
  printToPdf?: () => Promise<Uint8Array>;
  /** A file the page uploaded to the host (the browser bridge), by the id the host gave it. */
  uploadedFile?: (id: string) => string | null;
  /** Where secrets of environment-sourced profiles are read (the process environment in the CLI). */
  environment?: Readonly<Record<string, string | undefined>>;
  /**
   * Wanted poll intervals (the CLI's --poll-interval, tests). A report is never polled faster than every 30 s
   * unless the service runs on this machine; consumption tasks otherwise back off from 3 s to 30 s.
   */
  pollIntervals?: { reportMs?: number; consumptionMs?: number };
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason ?? new DOMException('Aborted', 'AbortError'));
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason ?? new DOMException('Aborted', 'AbortError'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

export const silentLogger: Logger = { info: () => {}, warn: () => {} };
