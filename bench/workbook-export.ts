import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createService } from '@core';
import { testPorts } from '@testing/test-support';
import { buildCli, cli, fetchMonth, startBenchTwin } from './cli-process';

/**
 * `npx tsx bench/workbook-export.ts [DIR]`: the xlsx export and the invoicing query alone, at BENCH_LINES billing
 * lines (1,000,000 unless set), without the rest of `npm run bench`. The month is fetched from the twin into DIR
 * once and kept, so runs before and after a change measure the same ledger; the export runs as its own CLI process
 * under /usr/bin/time (wall time, peak RSS).
 */
const LINES = Number(process.env.BENCH_LINES ?? 1_000_000);
const dataDir = process.argv[2] ?? join(tmpdir(), `closebook-bench-${LINES}`);

async function main() {
  buildCli();
  if (!existsSync(join(dataDir, 'ledger'))) {
    await mkdir(dataDir, { recursive: true });
    const simulator = await startBenchTwin(LINES);
    try {
      const fetched = fetchMonth(simulator.baseUrl, dataDir, '2026-10-01', '2026-10-31');
      console.log(`fetched into ${dataDir} in ${(fetched.ms / 1000).toFixed(1)} s`);
    } finally {
      simulator.process.kill('SIGTERM');
    }
  }
  const reportId = (JSON.parse(cli(['reports', 'list', '--json'], dataDir).stdout) as { meta: { id: string } }[])[0]?.meta.id as string;

  const { ports, cleanup } = await testPorts({ dataDir });
  const service = createService(ports);
  try {
    for (const filter of [{}, { text: 'micro' }]) {
      const started = performance.now();
      const { rows } = await service.handlers['reports:invoicing']({ reportId, filter });
      console.log(`invoicing query ${JSON.stringify(filter)}: ${(performance.now() - started).toFixed(0)} ms, ${rows.length} rows`);
    }
  } finally {
    await service.dispose();
    await cleanup();
  }

  const xlsx = cli(['reports', 'export', reportId, '--out', join(dataDir, 'month.xlsx')], dataDir);
  console.log(`xlsx export (CLI process): ${(xlsx.ms / 1000).toFixed(1)} s, ${xlsx.peakRssMb.toFixed(0)} MB peak`);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
