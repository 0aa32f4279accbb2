import { DuckDBInstance } from '@duckdb/node-api';
import { median } from './median';

/** Fixed work for DuckDB on both threads (hashing five million keys, summing as many decimals): about 0.35 s on a quiet 2-core machine. */
const FIXED_WORK = 'SELECT count(DISTINCT (i * 7919) % 1000003) AS keys, sum((i % 1000)::DECIMAL(18, 4) * 1.5) AS total FROM range(5000000) t(i)';

export interface MachineSpeed {
  medianMs: number;
  minMs: number;
  maxMs: number;
}

/**
 * How fast the machine is now: FIXED_WORK done `runs` times by DuckDB in memory, with the ledger's two threads (ms,
 * median and spread). Printed beside the figures, so that a slow hour (another tenant on the host, as in one run of
 * 1 December whose first `reports compare` took twice its time) is told from slower code.
 */
export async function machineSpeed(runs = 5): Promise<MachineSpeed> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: '512MB' });
  const connection = await instance.connect();
  try {
    const times: number[] = [];
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      await connection.run(FIXED_WORK);
      times.push(performance.now() - started);
    }
    return { medianMs: Math.round(median(times)), minMs: Math.round(Math.min(...times)), maxMs: Math.round(Math.max(...times)) };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** The figure as the bench prints it: "352 ms (336–428)". */
export const speedText = (speed: MachineSpeed) => `${speed.medianMs} ms (${speed.minMs}–${speed.maxMs})`;
