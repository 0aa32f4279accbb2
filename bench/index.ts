import { readFile } from 'node:fs/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { buildReportModel, buildTree, filterLines, sortTree, totalsByCurrency } from '../src/shared/report-model';
import { BillingEntry } from '../src/shared/schemas/billing-report';
import { createService } from '../src/main/core';
import { temporaryDir, testPorts } from '../src/main/testing/test-support';
import { buildBillingReport } from '../src/main/twin/billing-report';
import { generateOrganizations } from '../src/main/twin/dataset';
import type { SavedReport } from '../src/shared/schemas/saved-report';

/**
 * `npm run bench`: one twin month of 2,000 organizations and ~100,000 billing lines, and the figures the app's
 * speed and memory goals are judged by. Figures, not pass/fail: they are printed, and the goals beside them.
 */
const ORGANIZATIONS = Number(process.env.BENCH_ORGANIZATIONS ?? 2000);
const LINES_PER_ORGANIZATION = Number(process.env.BENCH_LINES_PER_ORGANIZATION ?? 50);

// A full garbage collection before each timed run, so one run does not pay for the last one's garbage.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

function time<T>(run: () => T): { ms: number; value: T } {
  const start = performance.now();
  const value = run();
  return { ms: performance.now() - start, value };
}

async function timeAsync<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await run();
  return { ms: performance.now() - start, value };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Runs one export in a fresh process (see export-worker.ts) and returns its time and peak memory. */
function exportInChild(dataDir: string, id: string, mode: 'full' | 'plain'): { ms: number; peakRssMb: number } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'export-worker.ts'), dataDir, id, mode], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`export worker failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1) as string) as { ms: number; peakRssMb: number };
}

async function main() {
  const dir = await temporaryDir('closebook-bench-');
  try {
    const organizations = generateOrganizations({ seed: 2026, organizations: ORGANIZATIONS, linesPerOrganization: LINES_PER_ORGANIZATION });
    const entries = BillingEntry.array().parse(buildBillingReport(organizations, '2026-10-01', '2026-10-31', { seed: 2026 }));
    const model = buildReportModel(entries);
    const report: SavedReport = {
      meta: {
        id: '00000000-0000-4000-8000-000000000001', schemaVersion: 1, name: 'Benchmark month', profileId: 'bench', profileName: 'Bench', host: 'twin', period: { startDate: '2026-10-01', endDate: '2026-10-31' },
        fetchedAt: new Date().toISOString(), counts: { billingEntries: entries.length, organizations: model.organizationCount, services: 0, subscriptions: 0, lines: model.lines.length }, totals: [],
      },
      entries,
    };
    const { ports, cleanup } = await testPorts({ dataDir: dir.path });
    const service = createService(ports);
    const { id } = await service.handlers['reports:import']({ fileName: 'bench.json', content: JSON.stringify(report) });
    const file = join(dir.path, 'reports', `${id}.report.json`);
    const bytes = (await readFile(file)).length;

    // 1. Loading a saved report: bare JSON.parse vs read + zod validation (median of 5).
    // Both sides read the file from disk; the difference is zod validation and building the typed report.
    const parseTimes: number[] = [];
    const loadTimes: number[] = [];
    for (let run = 0; run < 5; run++) {
      collectGarbage();
      parseTimes.push((await timeAsync(async () => JSON.parse(await readFile(file, 'utf8')) as unknown)).ms);
      collectGarbage();
      loadTimes.push((await timeAsync(() => service.handlers['reports:open']({ reportId: id }))).ms);
    }
    const parseMs = median(parseTimes);
    const loadMs = median(loadTimes);

    // 2. Excel export: the full workbook vs the plain streaming writer, each in a fresh process that loads the
    //    saved report as `reports export` does; median of 5, peak memory is the process's maximum resident size.
    const runs = { plain: [] as { ms: number; peakRssMb: number }[], full: [] as { ms: number; peakRssMb: number }[] };
    for (let run = 0; run < 5; run++) {
      runs.plain.push(exportInChild(dir.path, id, 'plain'));
      runs.full.push(exportInChild(dir.path, id, 'full'));
    }
    const plainMs = median(runs.plain.map((r) => r.ms));
    const fullMs = median(runs.full.map((r) => r.ms));
    const fullPeak = Math.max(...runs.full.map((r) => r.peakRssMb));
    const plainPeak = Math.max(...runs.plain.map((r) => r.peakRssMb));

    // 3. One filter of the viewer's model: filter, tree, sort and per-currency totals (median of 9).
    const group = model.groups[0] as string;
    const filterTimes = Array.from({ length: 9 }, () =>
      time(() => {
        const lines = filterLines(model, { group, text: 'microsoft' });
        sortTree(buildTree(lines), { key: 'sales', direction: 'desc' });
        return totalsByCurrency(lines);
      }).ms,
    );
    const filterMs = median(filterTimes);

    const figures = {
      organizations: model.organizationCount,
      billingLines: model.lines.length,
      currencies: model.currencies.length,
      savedFileMb: +(bytes / 1024 / 1024).toFixed(1),
      load: { jsonParseMs: +parseMs.toFixed(1), loadAndValidateMs: +loadMs.toFixed(1), ratio: +(loadMs / parseMs).toFixed(2), goal: '≤ 2.0×' },
      export: { plainStreamingMs: +plainMs.toFixed(0), fullWorkbookMs: +fullMs.toFixed(0), ratio: +(fullMs / plainMs).toFixed(2), goal: '≤ 1.5×', peakRssMb: +fullPeak.toFixed(0), plainPeakRssMb: +plainPeak.toFixed(0), memoryGoal: '≤ 500 MB' },
      filter: { ms: +filterMs.toFixed(1), goal: '≤ 50 ms', linesShown: filterLines(model, { group, text: 'microsoft' }).length },
    };
    console.log(`Closebook benchmark — ${figures.organizations} organizations, ${figures.billingLines} billing lines, ${figures.currencies} currency groups, saved file ${figures.savedFileMb} MB`);
    console.log(`load a saved report   JSON.parse ${figures.load.jsonParseMs} ms, load + validate ${figures.load.loadAndValidateMs} ms → ${figures.load.ratio}× (goal ${figures.load.goal})`);
    console.log(`Excel export          plain streaming ${figures.export.plainStreamingMs} ms, full workbook ${figures.export.fullWorkbookMs} ms → ${figures.export.ratio}× (goal ${figures.export.goal}); peak RSS ${figures.export.peakRssMb} MB (plain writer ${figures.export.plainPeakRssMb} MB; goal ${figures.export.memoryGoal})`);
    console.log(`viewer filter         ${figures.filter.ms} ms for ${figures.filter.linesShown} lines (goal ${figures.filter.goal})`);
    console.log(JSON.stringify(figures));
    await cleanup();
  } finally {
    await dir.remove();
  }
}

void main();
