import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { DEMO_CREDENTIALS } from '@twin/credentials';
import { CLI, inlineConnection, startSimulator } from '@testing/simulator';
import { median } from './median';

/** The twin's report shape the benchmarks ask for: this many billing lines per organization. */
export const LINES_PER_ORGANIZATION = 100;

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
  const result = spawnSync('/usr/bin/time', ['-v', ...CLI, ...args, '--data-dir', dataDir], {
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

/** Compiles the CLI (out/cli/closebook.cjs) as `npm run build` does: the benchmark runs what users run. */
export function buildCli(): void {
  const build = spawnSync(process.execPath, [join(process.cwd(), 'scripts', 'build-cli.mjs')], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`The CLI did not compile: ${build.stderr}`);
}

/** The median wall time of `runs` runs of a process, in ms. */
function medianMs(command: readonly string[], runs: number): number {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const result = spawnSync(command[0] as string, command.slice(1), { stdio: 'ignore' });
    times.push(performance.now() - started);
    if (result.status !== 0) throw new Error(`${command.join(' ')} failed (${result.status})`);
  }
  return median(times);
}

/** The CLI's start-up: a command that does nothing (`help`), and its floor, a bare Node process, medians of `runs`. */
export function startUp(runs = 21): { helpMs: number; nodeMs: number } {
  return { helpMs: medianMs([...CLI, 'help'], runs), nodeMs: medianMs([process.execPath, '-e', '0'], runs) };
}

/** The service twin a benchmark fetches from: about `lines` billing lines a month, reports ready after a second. */
export function startBenchTwin(lines: number): ReturnType<typeof startSimulator> {
  const organizations = Math.round(lines / LINES_PER_ORGANIZATION);
  return startSimulator(['--organizations', String(organizations), '--lines-per-organization', String(LINES_PER_ORGANIZATION), '--report-ready-seconds', '1']);
}

/** `report fetch` of one month from the twin at `baseUrl` into `dataDir`: the run, and the saved report's id (its last line). */
export function fetchMonth(baseUrl: string, dataDir: string, from: string, to: string): Run & { reportId: string } {
  const run = cli(['report', 'fetch', '--from', from, '--to', to, '--poll-interval', '1', ...inlineConnection(baseUrl)], dataDir);
  return { ...run, reportId: run.stdout.trim().split('\n').at(-1) as string };
}
