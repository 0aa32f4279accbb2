import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTwin, type Twin, type TwinOptions } from '@twin/server';
import { type Connection, ServiceClient } from '@core/service-api/service-client';
import type { Clock, Ports } from '@core/ports/ports';
import { silentLogger } from '@core/ports/ports';
import { MemorySecretStore } from './memory-secret-store';

/**
 * Runs `script` (TypeScript, through tsx, from the project's folder) in a Node process of its own, killed should it
 * not exit within `limitMs`: for what only a process of its own shows (a lock held, an exit that hangs, a kill).
 */
export async function inProcess(script: string, limitMs = 40_000): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { cwd: process.cwd() });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  const exit = await new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  clearTimeout(killer);
  return { ...exit, stdout, stderr };
}

/** A clock for tests: sleeps are recorded and return at once, so waits and backoff are asserted, not endured. */
export class FakeClock implements Clock {
  readonly sleeps: number[] = [];
  constructor(private time = Date.parse('2026-11-09T08:00:00Z')) {}
  now(): number {
    return this.time;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason ?? new DOMException('Aborted', 'AbortError');
    this.sleeps.push(ms);
    this.time += ms;
  }
}

export async function temporaryDir(prefix = 'closebook-test-'): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** A twin plus a client signed in with its demo credentials. */
export async function twinWithClient(
  options: TwinOptions = {},
  clock: Clock = new FakeClock(),
): Promise<{ twin: Twin; client: ServiceClient; connection: Connection }> {
  const twin = await startTwin({ reportReadyAfterMs: 0, reportReadyAfterPolls: 0, taskQueuedMs: 0, taskProcessingMs: 0, ...options });
  const c = twin.credentials;
  const connection: Connection = {
    baseUrl: twin.baseUrl,
    clientId: c.clientId,
    username: c.username,
    resellerId: c.resellerId,
    sellerId: c.sellerId,
    readSecrets: async () => ({ apiSecret: c.apiSecret, password: c.password }),
  };
  return { twin, connection, client: new ServiceClient(connection, { fetch: (input, init) => fetch(input, init), clock, timeoutMs: 5_000 }) };
}

/** Ports for a service under test: a temporary data folder, in-memory secrets, a fake clock, a demo twin on demand. */
export async function testPorts(overrides: Partial<Ports> = {}): Promise<{ ports: Ports; secrets: MemorySecretStore; cleanup: () => Promise<void> }> {
  // A folder of its own only when the caller gives none (one made and never used was left behind by every such test).
  const dir = overrides.dataDir ? null : await temporaryDir();
  const secrets = new MemorySecretStore();
  let twin: Twin | null = null;
  const ports: Ports = {
    dataDir: dir?.path ?? '',
    secrets,
    fetch: (input, init) => fetch(input, init),
    clock: new FakeClock(),
    log: silentLogger,
    startDemoService: async () => {
      twin ??= await startTwin({ reportReadyAfterMs: 0, reportReadyAfterPolls: 0, taskQueuedMs: 0, taskProcessingMs: 0 });
      return { baseUrl: twin.baseUrl, credentials: twin.credentials };
    },
    appVersion: '0.0.0-test',
    host: 'cli',
    ...overrides,
  };
  return {
    ports,
    secrets,
    cleanup: async () => {
      await twin?.close();
      await dir?.remove();
    },
  };
}

/** The address under which tests present a loopback twin as a remote service (so the 30 s floor applies). */
export const REMOTE = 'https://billing.example.com';

/** Makes the loopback twin look like a remote service, so the client applies the 30 s floor. */
export function remoteFetch(twin: Twin, rewriteLocation = (location: string) => location.replace(twin.baseUrl, REMOTE)) {
  return async (url: string, init?: RequestInit) => {
    const response = await fetch(url.replace(REMOTE, twin.baseUrl), init);
    const headers = new Headers(response.headers);
    const location = headers.get('location');
    if (location) headers.set('location', rewriteLocation(location));
    return new Response(response.status === 201 || response.status === 204 ? null : await response.arrayBuffer(), { status: response.status, headers });
  };
}

// The twin, for core unit tests: they reach it through this folder, never directly (the core never imports the twin).
export { startTwin, type Twin, type TwinOptions } from '@twin/server';
export { SeededRandom } from '@twin/random';
export { buildBillingReport, type WireBillingEntry } from '@twin/billing-report';
export { generateOrganizations } from '@twin/dataset';

/** A report file as Closebook saved it before the ledger (and as colleagues still share it): summary and entries. */
export interface SavedReportFile {
  meta: import('@shared/schemas/saved-report').ReportMeta;
  entries: import('@twin/billing-report').WireBillingEntry[];
}

/**
 * A small RAM disk of its own (tmpfs) in a new temporary folder, so "the disk is full" is the real thing; `remove`
 * unmounts and deletes it. Mounting needs root, as CI runs: refused, this throws rather than let a test pass untried.
 */
export async function smallDisk(megabytes: number): Promise<{ path: string; remove: () => Promise<void> }> {
  const root = await temporaryDir();
  const path = join(root.path, 'disk');
  await mkdir(path);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0700`, 'tmpfs', path], { stdio: 'ignore' });
  } catch {
    await root.remove();
    throw new Error('This test needs to mount a small tmpfs (run as root, as CI does).');
  }
  return {
    path,
    remove: async () => {
      execFileSync('umount', ['-l', path], { stdio: 'ignore' });
      await root.remove();
    },
  };
}

/** Fills the disk of `dir` with files of a megabyte until about a megabyte is left; `free` removes them. */
export async function fillDisk(dir: string): Promise<{ free: () => Promise<void> }> {
  const reserve = join(dir, 'filler');
  await writeFile(reserve, Buffer.alloc(1024 * 1024));
  let count = 0;
  for (; ; count++) {
    try {
      await writeFile(join(dir, `filler-${count}`), Buffer.alloc(1024 * 1024));
    } catch {
      break;
    }
  }
  await rm(reserve);
  return {
    free: async () => {
      for (let i = 0; i <= count; i++) await rm(join(dir, `filler-${i}`), { force: true });
    },
  };
}
