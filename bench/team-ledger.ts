import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startTeamLedgerCluster, type TestCluster } from '@testing/postgres';
import { buildCli, cli, fetchMonth, startBenchTwin } from './cli-process';

/**
 * `npx tsx bench/team-ledger.ts`: the team ledger under a team's load, on a real PostgreSQL (a throwaway cluster
 * with TLS, as the tests start).
 *
 * First one month of BENCH_LINES (100,000 unless set) travels between two workstations as a person sees it, each a
 * CLI process: A fetches it from the twin and shares it (`team share`: the shared-report file made from the ledger,
 * sent in chunks), B pulls it (`team pull`: received, ingested into B's ledger, its lines hashed and compared).
 *
 * Then 20 people sign in at once, each with a session of their own, and over 24 months of those lines: each month
 * is shared by one person (its file sent in chunks, in one transaction) and pulled by another (its chunks read), its
 * exceptions reviewed in groups, the month prepared by one person and approved by the next — all sessions working at
 * the same time. Prints each step's latency (median and 95th percentile) beside its goal.
 */
const LINES = Number(process.env.BENCH_LINES ?? 100_000);
const PEOPLE = 20;
const MONTHS = 24;
const EXCEPTIONS_PER_MONTH = 200;
const REVIEWS_PER_CALL = 100;
const PASSWORD = 'bench password';

const percentile = (values: number[], at: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * at))] as number;
};

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** One month shared by A and pulled by B through the CLI: the figures a person waits for, and the file's chunks. */
async function oneMonthBetweenWorkstations(cluster: TestCluster): Promise<{ chunks: Buffer[]; contentHash: string }> {
  buildCli();
  const [a, b] = [await mkdtemp(join(tmpdir(), 'closebook-team-a-')), await mkdtemp(join(tmpdir(), 'closebook-team-b-'))];
  const simulator = await startBenchTwin(LINES);
  try {
    const fetched = fetchMonth(simulator.baseUrl, a, '2026-10-01', '2026-10-31');
    console.log(`A fetched ${LINES.toLocaleString('en')} lines from the twin in ${(fetched.ms / 1000).toFixed(1)} s`);
    process.env.CLOSEBOOK_TEAM_PASSWORD = PASSWORD;
    const url = (role: string) =>
      `postgresql://${role}@127.0.0.1:${cluster.port}/postgres?sslmode=verify-full&sslrootcert=${encodeURIComponent(cluster.caFile)}`;
    cli(['team', 'connect', url('person_1')], a);
    cli(['team', 'connect', url('person_2')], b);
    const shared = cli(['team', 'share', fetched.reportId], a);
    const pulled = cli(['team', 'pull'], b);
    const goal = (ms: number) => (ms <= 60_000 ? 'met' : 'MISSED');
    // What the command said last (/usr/bin/time's own lines, indented, are left out).
    const said = (stderr: string) =>
      stderr
        .split('\n')
        .filter((line) => line.trim() && !line.startsWith('\t') && !line.startsWith('Command'))
        .at(-1) ?? '';
    console.log(`\n== one month of ${LINES.toLocaleString('en')} lines between two workstations (CLI processes, PostgreSQL over TLS) ==`);
    console.log(
      `share (file made from A's ledger, sent in chunks) ${(shared.ms / 1000).toFixed(1)} s, ${shared.peakRssMb.toFixed(0)} MB peak   goal ≤ 60 s ${goal(shared.ms)} — ${said(shared.stderr)}`,
    );
    console.log(
      `pull (received, ingested into B's ledger, hashed and compared) ${(pulled.ms / 1000).toFixed(1)} s, ${pulled.peakRssMb.toFixed(0)} MB peak   goal ≤ 60 s ${goal(pulled.ms)} — ${said(pulled.stderr)}`,
    );
    const client = new pg.Client({ connectionString: cluster.url('person_1', PASSWORD) });
    await client.connect();
    try {
      const rows = await client.query<{ content_hash: string; bytes: Buffer }>('SELECT content_hash, bytes FROM closebook.fetch_chunks ORDER BY chunk_no');
      return { chunks: rows.rows.map((row) => row.bytes), contentHash: rows.rows[0]?.content_hash ?? '' };
    } finally {
      await client.end();
    }
  } finally {
    simulator.process.kill('SIGTERM');
    await rm(a, { recursive: true, force: true });
    await rm(b, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const people = Array.from({ length: PEOPLE }, (_, index) => `person_${index + 1}`);
  const cluster = await startTeamLedgerCluster(Object.fromEntries(people.map((name) => [name, ['preparer', 'approver']])), PASSWORD);
  try {
    const lines = await oneMonthBetweenWorkstations(cluster);
    const bytes = lines.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    const times: Record<'sign-in' | 'share a month' | 'pull a month' | 'review' | 'prepare' | 'approve' | 'read state', number[]> = {
      'sign-in': [],
      'share a month': [],
      'pull a month': [],
      review: [],
      prepare: [],
      approve: [],
      'read state': [],
    };
    const timed = async <T>(step: keyof typeof times, work: () => Promise<T>): Promise<T> => {
      const started = performance.now();
      const result = await work();
      times[step].push(performance.now() - started);
      return result;
    };
    const sessions = await Promise.all(
      people.map((name) =>
        timed('sign-in', async () => {
          const client = new pg.Client({ connectionString: cluster.url(name, PASSWORD) });
          await client.connect();
          return client;
        }),
      ),
    );
    const started = performance.now();
    try {
      // Month m is prepared by person m % 20 and approved by the next one; every person works on their months at once.
      await Promise.all(
        sessions.map(async (client, person) => {
          for (let month = person; month < MONTHS; month += PEOPLE) {
            const [year, number] = [2024 + Math.floor(month / 12), (month % 12) + 1]; // months over: each is signed off
            const last = new Date(Date.UTC(year, number, 0)).toISOString().slice(0, 10);
            const period = ['billing.example.com', 'r', `${year}-${String(number).padStart(2, '0')}-01`, last];
            // The month's lines: the same file each month, under a content hash of its own (the server stores, never parses).
            const contentHash = sha256(`${lines.contentHash}|${month}`);
            await timed('share a month', async () => {
              await client.query('BEGIN');
              await client.query('SELECT closebook.begin_fetch($1, $2, $3, $4, $5, $6, $7, $8, now(), $9)', [
                ...period,
                contentHash,
                LINES,
                lines.chunks.length,
                bytes,
                'bench',
              ]);
              for (const [index, chunk] of lines.chunks.entries())
                await client.query('SELECT closebook.put_chunk($1, $2, $3, $4, $5, $6, $7)', [...period, contentHash, index, chunk]);
              await client.query('SELECT closebook.end_fetch($1, $2, $3, $4, $5, $6)', [...period, contentHash, 'bench']);
              await client.query('COMMIT');
            });
            const puller = sessions[(person + 2) % PEOPLE] as pg.Client;
            await timed('pull a month', async () => {
              for (let index = 0; index < lines.chunks.length; index++)
                await puller.query(
                  `SELECT c.bytes FROM closebook.fetch_chunks c JOIN closebook.months m USING (month_id)
                   WHERE m.host = $1 AND m.reseller_id = $2 AND m.period_start = $3 AND m.period_end = $4 AND c.content_hash = $5 AND c.chunk_no = $6`,
                  [...period, contentHash, index],
                );
            });
            const ids = Array.from({ length: EXCEPTIONS_PER_MONTH }, (_, index) => `rule|org-${index}|${month}`);
            for (let at = 0; at < ids.length; at += REVIEWS_PER_CALL) {
              const part = ids.slice(at, at + REVIEWS_PER_CALL);
              await timed('review', () =>
                client.query('SELECT closebook.review($1, $2, $3, $4, $5, $6, $7, $8, $9)', [
                  ...period,
                  part,
                  part.map((id) => `{"figures":"${id}"}`),
                  'accepted',
                  'Checked.',
                  'bench',
                ]),
              );
            }
            const set = JSON.stringify(ids.map((id) => ({ id, severity: 'medium', evidence_hash: sha256(`{"figures":"${id}"}`) })));
            await timed('prepare', () =>
              client.query('SELECT closebook.prepare($1, $2, $3, $4, $5, NULL, 2, $6, $7, $8)', [...period, contentHash, set, '{}', 'bench']),
            );
            const approver = sessions[(person + 1) % PEOPLE] as pg.Client;
            await timed('approve', () => approver.query('SELECT closebook.approve($1, $2, $3, $4, $5, $6, $7)', [...period, contentHash, set, 'bench']));
            await timed('read state', () =>
              client.query(
                `SELECT s.state, (SELECT count(*) FROM closebook.close_log l WHERE l.month_id = m.month_id) AS entries
                 FROM closebook.months m JOIN closebook.sign_offs s USING (month_id) WHERE m.period_start = $1 AND m.period_end = $2`,
                [period[2], period[3]],
              ),
            );
          }
        }),
      );
    } finally {
      await Promise.all(sessions.map((client) => client.end()));
    }
    const wall = (performance.now() - started) / 1000;
    console.log(
      `\n== the team ledger: ${PEOPLE} sessions at once, ${MONTHS} months of ${LINES.toLocaleString('en')} lines (${(bytes / 1048576).toFixed(1)} MB compressed, ${lines.chunks.length} chunks), ${EXCEPTIONS_PER_MONTH} exceptions a month (PostgreSQL, TLS) ==`,
    );
    for (const [step, values] of Object.entries(times)) {
      const p95 = percentile(values, 0.95);
      const goalMs = step.endsWith('a month') ? 10_000 : 1000;
      console.log(
        `${step.padEnd(14)} ${String(values.length).padStart(4)} × median ${percentile(values, 0.5).toFixed(0).padStart(5)} ms, p95 ${p95.toFixed(0).padStart(5)} ms   goal ≤ ${goalMs.toLocaleString('en')} ms ${p95 <= goalMs ? 'met' : 'MISSED'}`,
      );
    }
    console.log(`all ${MONTHS} months shared, pulled, reviewed, prepared and approved in ${wall.toFixed(1)} s`);
  } finally {
    cluster.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
