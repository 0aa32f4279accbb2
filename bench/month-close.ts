import { existsSync } from 'node:fs';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { buildCli, cli, fetchMonth, startBenchTwin } from './cli-process';

/**
 * `npx tsx bench/month-close.ts [DIR]`: closing a month at BENCH_LINES billing lines (1,000,000 unless set) — two
 * consecutive twin months (October and November, with the twin's planted changes), then `reports check` and
 * `reports compare` (first with nothing kept, then reading what the first kept) and the xlsx export of November (with
 * its Changes and Checks sheets), each as its own CLI process
 * under /usr/bin/time (wall time, peak RSS). The months are fetched into DIR once and kept, so runs before and after
 * a change measure the same ledger.
 */
const LINES = Number(process.env.BENCH_LINES ?? 1_000_000);
const dataDir = process.argv[2] ?? join(tmpdir(), `closebook-close-bench-${LINES}`);
const MONTHS = [
  ['2026-10-01', '2026-10-31'],
  ['2026-11-01', '2026-11-30'],
] as const;

async function fetchMonths() {
  await mkdir(dataDir, { recursive: true });
  const simulator = await startBenchTwin(LINES);
  try {
    for (const [from, to] of MONTHS) {
      const fetched = fetchMonth(simulator.baseUrl, dataDir, from, to);
      console.log(`fetched ${from} into ${dataDir} in ${(fetched.ms / 1000).toFixed(1)} s`);
    }
  } finally {
    simulator.process.kill('SIGTERM');
  }
}

/** The ledger as fetched, before any step kept a comparison or checks in it (the content hashes are taken at fetch). */
const ledgerFile = join(dataDir, 'ledger', 'closebook.duckdb');
const asFetched = join(dataDir, 'ledger-as-fetched.duckdb');

/** Puts the ledger back as it was fetched, so the next step makes the comparison and the checks afresh. */
async function forgetKept() {
  await rm(`${ledgerFile}.wal`, { force: true });
  await copyFile(asFetched, ledgerFile);
}

/** One step as its own CLI process: its figures and what it said last, or that it failed and why (a miss is printed, not hidden). */
function step(label: string, args: string[], exitCodes: number[] = [0]) {
  const run = cli(args, dataDir, { exitCodes: null, stdout: false });
  const figures = `${(run.ms / 1000).toFixed(1)} s, ${run.peakRssMb.toFixed(0)} MB peak`;
  const said = run.stderr.split('\n').find((line) => line.trim() && !line.startsWith('\t')) ?? '';
  console.log(`${label}: ${exitCodes.includes(run.status ?? -1) ? figures : `FAILED (exit ${run.status}) after ${figures}`} — ${said}`);
}

async function main() {
  buildCli();
  if (!existsSync(join(dataDir, 'ledger'))) {
    await fetchMonths();
    await copyFile(ledgerFile, asFetched);
  }
  if (!existsSync(asFetched)) throw new Error(`${dataDir} was fetched by an earlier bench and has no copy as fetched: remove it to fetch again.`);
  const listed = JSON.parse(cli(['reports', 'list', '--json'], dataDir).stdout) as { meta: { id: string; period: { startDate: string } } }[];
  const november = listed.find((listing) => listing.meta.period.startDate === MONTHS[1][0])?.meta.id as string;
  await forgetKept();
  // As the app closes a fetched month ahead: its checks first, then its comparison. Exit 4: the month has open
  // exceptions (the twin plants some).
  step('reports check, first (finds the changes its rules look at; keeps no comparison)', ['reports', 'check', november], [0, 4]);
  step('reports check, kept', ['reports', 'check', november], [0, 4]);
  step('reports compare, first (November against October, every change listed)', ['reports', 'compare', november]);
  step('reports compare, kept', ['reports', 'compare', november]);
  step('xlsx export of November (Changes and Checks kept)', ['reports', 'export', november, '--out', join(dataDir, 'november.xlsx')]);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
