import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { DEMO_CREDENTIALS } from '@twin/credentials';
import { CLI, startSimulator } from './simulator';
import { temporaryDir } from './test-support';

export { inlineConnection, startSimulator } from './simulator';

const cliEnvironment = (dataDir: string, env: Record<string, string>) => ({
  PATH: process.env.PATH ?? '',
  HOME: dataDir,
  CLOSEBOOK_API_SECRET: DEMO_CREDENTIALS.apiSecret,
  CLOSEBOOK_PASSWORD: DEMO_CREDENTIALS.password,
  ...env,
});

/** Runs one CLI command to its end with the demo secrets in the environment (overridable). */
export function runCli(args: string[], dataDir: string, env: Record<string, string> = {}) {
  const result = spawnSync(CLI[0], [CLI[1], ...args, '--data-dir', dataDir], { encoding: 'utf8', env: cliEnvironment(dataDir, env), timeout: 120_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** runCli without blocking this process: for a test that serves the CLI something itself (a proxy, a fake service). */
export function runCliAsync(
  args: string[],
  dataDir: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLI[0], [CLI[1], ...args, '--data-dir', dataDir], { env: cliEnvironment(dataDir, env), timeout: 120_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
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
