import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll } from 'vitest';
import { temporaryDir } from './test-support';
import { DEMO_CREDENTIALS } from '../twin/credentials';

// The CLI is run as users run it: `npm run --silent cli -- …` is `tsx src/main/cli/index.ts …`.
const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const ENTRY = join(process.cwd(), 'src', 'main', 'cli', 'index.ts');

/** Starts `simulator` and resolves with the base URL it prints first. */
export async function startSimulator(args: string[] = []): Promise<{ baseUrl: string; process: ChildProcess }> {
  const child = spawn(TSX, [ENTRY, 'simulator', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  return { baseUrl: firstLine.trim(), process: child };
}

/** Runs one CLI command to its end with the demo secrets in the environment (overridable). */
export function runCli(args: string[], dataDir: string, env: Record<string, string> = {}) {
  const result = spawnSync(TSX, [ENTRY, ...args, '--data-dir', dataDir], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: dataDir, CLOSEBOOK_API_SECRET: DEMO_CREDENTIALS.apiSecret, CLOSEBOOK_PASSWORD: DEMO_CREDENTIALS.password, ...env },
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

export function inlineConnection(baseUrl: string): string[] {
  return ['--base-url', baseUrl, '--client-id', DEMO_CREDENTIALS.clientId, '--username', DEMO_CREDENTIALS.username, '--reseller-id', DEMO_CREDENTIALS.resellerId, '--seller-id', DEMO_CREDENTIALS.sellerId];
}

/** A simulator and a data folder for one test file: started before its tests, stopped and removed after. */
export function useSimulator(args: string[]) {
  const state = { baseUrl: '', process: undefined as ChildProcess | undefined, dataDir: '' };
  let remove: () => Promise<void> = async () => {};
  beforeAll(async () => {
    const dir = await temporaryDir();
    state.dataDir = dir.path;
    remove = dir.remove;
    const started = await startSimulator(args);
    state.baseUrl = started.baseUrl;
    state.process = started.process;
  }, 60_000);
  afterAll(async () => {
    state.process?.kill('SIGTERM');
    await remove();
  });
  return state;
}
