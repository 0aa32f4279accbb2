import { type ChildProcess, spawnSync } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { DEMO_CREDENTIALS } from '../twin/credentials';
import { ENTRY, startSimulator, TSX } from './simulator';
import { temporaryDir } from './test-support';

export { inlineConnection, startSimulator } from './simulator';

/** Runs one CLI command to its end with the demo secrets in the environment (overridable). */
export function runCli(args: string[], dataDir: string, env: Record<string, string> = {}) {
  const result = spawnSync(TSX, [ENTRY, ...args, '--data-dir', dataDir], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: dataDir, CLOSEBOOK_API_SECRET: DEMO_CREDENTIALS.apiSecret, CLOSEBOOK_PASSWORD: DEMO_CREDENTIALS.password, ...env },
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
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
