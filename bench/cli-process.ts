import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { DEMO_CREDENTIALS } from '@twin/credentials';

/** The twin's report shape the benchmarks ask for: this many billing lines per organization. */
export const LINES_PER_ORGANIZATION = 100;
const ENTRY = join(process.cwd(), 'src', 'cli', 'index.ts');

export interface Run {
  ms: number;
  peakRssMb: number;
  stdout: string;
  stderr: string;
  status: number | null;
}

/**
 * One CLI command as its own process under /usr/bin/time: wall time and the process's peak RSS. Any exit but
 * `exitCodes` throws (null: none does); `stdout: false` discards what it prints (a comparison of a million lines
 * prints more than a buffer holds).
 */
export function cli(args: string[], dataDir: string, options: { exitCodes?: number[] | null; stdout?: boolean } = {}): Run {
  const exitCodes = options.exitCodes === undefined ? [0] : options.exitCodes;
  const started = performance.now();
  const result = spawnSync('/usr/bin/time', ['-v', process.execPath, '--import', 'tsx', ENTRY, ...args, '--data-dir', dataDir], {
    encoding: 'utf8',
    stdio: ['ignore', options.stdout === false ? 'ignore' : 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, CLOSEBOOK_API_SECRET: DEMO_CREDENTIALS.apiSecret, CLOSEBOOK_PASSWORD: DEMO_CREDENTIALS.password },
  });
  const ms = performance.now() - started;
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(result.stderr)?.[1];
  if (exitCodes && !exitCodes.includes(result.status ?? -1))
    throw new Error(`closebook ${args.join(' ')} failed (${result.status}): ${result.stderr.slice(-2000)}`);
  return { ms, peakRssMb: Number(rss) / 1024, stdout: result.stdout ?? '', stderr: result.stderr, status: result.status };
}
