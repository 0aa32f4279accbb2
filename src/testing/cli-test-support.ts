import { type ChildProcess, spawn } from 'node:child_process';
import { runCli as runCommand } from '@cli/index';
import { afterAll, beforeAll } from 'vitest';
import { DEMO_CREDENTIALS } from '@twin/credentials';
import { CLI, inlineConnection, startSimulator } from './simulator';
import { temporaryDir } from './test-support';

export { inlineConnection, startSimulator } from './simulator';

const cliEnvironment = (dataDir: string, env: Record<string, string>) => ({
  PATH: process.env.PATH ?? '',
  HOME: dataDir,
  CLOSEBOOK_API_SECRET: DEMO_CREDENTIALS.apiSecret,
  CLOSEBOOK_PASSWORD: DEMO_CREDENTIALS.password,
  ...env,
});

/**
 * Runs one CLI command to its end inside this test process — the `runCli` the bundle's entry calls — with its
 * standard output and error captured and only the environment a spawned command would have (PATH, HOME, the demo
 * secrets, `env`). The command's own work (service, ledger, files, team ledger) is as in a process of its own; what
 * is saved is Node's start and the loading of every package at each command (about 0.45 s: a CLI test file ran in
 * 29 s against 47 s spawned). The process itself — the bundle, exit codes, a closed pipe, two processes at one
 * ledger — is what runCliProcess and the bundle's own tests (start-up, standard-output) are for. A test file runs
 * its tests one at a time, so nothing else in this process sees the environment or the streams while swapped.
 */
export async function runCli(args: string[], dataDir: string, env: Record<string, string> = {}) {
  const kept = { ...process.env };
  const environment = cliEnvironment(dataDir, env);
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, environment);
  let stdout = '';
  let stderr = '';
  const restoreOut = captureWrites(process.stdout, (text) => (stdout += text));
  const restoreErr = captureWrites(process.stderr, (text) => (stderr += text));
  try {
    const code = await runCommand([...args, '--data-dir', dataDir]);
    return { code, stdout, stderr };
  } finally {
    restoreOut();
    restoreErr();
    for (const key of Object.keys(process.env)) delete process.env[key];
    Object.assign(process.env, kept);
  }
}

/** Sends what is written to `stream` to `append` instead, until the returned function is called. */
function captureWrites(stream: NodeJS.WriteStream, append: (text: string) => void): () => void {
  const write = stream.write;
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    (rest.find((item) => typeof item === 'function') as (() => void) | undefined)?.();
    return true;
  }) as typeof stream.write;
  return () => {
    stream.write = write;
  };
}

/** Runs one CLI command as a process of its own, from the compiled bundle: for two processes at one ledger, a kill, a proxy. */
export function runCliProcess(
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

/** `report fetch` of one period from the simulator at `baseUrl`, asking every second; `extra` flags before the connection's. */
export function reportFetch(baseUrl: string, from: string, to: string, ...extra: string[]): string[] {
  return ['report', 'fetch', '--from', from, '--to', to, '--poll-interval', '1', ...extra, ...inlineConnection(baseUrl)];
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
