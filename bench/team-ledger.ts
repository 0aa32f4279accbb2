import { join } from 'node:path';
import pg from 'pg';
import { startTestCluster } from '@testing/postgres';

/**
 * `npx tsx bench/team-ledger.ts`: the team ledger's decisions under a team's load, on a real PostgreSQL (a throwaway
 * cluster with TLS, as the tests start). 20 people sign in at once, each with a session of their own; over 24 months
 * each month's exceptions are reviewed in groups, the month prepared by one person and approved by another, all
 * sessions working at the same time. Prints the latency of each step (median and 95th percentile) beside the goal a
 * person would notice (a second). The months' lines (their sync) are not on the server yet, so they are not measured.
 */
const PEOPLE = 20;
const MONTHS = 24;
const EXCEPTIONS_PER_MONTH = 200;
const REVIEWS_PER_CALL = 100;
const PASSWORD = 'bench password';

const percentile = (values: number[], at: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * at))] as number;
};

async function main(): Promise<void> {
  const cluster = await startTestCluster();
  try {
    const installed = cluster.psql(cluster.owner.user, cluster.owner.password, [
      '-f',
      join(process.cwd(), 'resources', 'team-ledger', 'closebook-team-ledger.sql'),
    ]);
    if (installed.code !== 0) throw new Error(installed.stderr);
    const people = Array.from({ length: PEOPLE }, (_, index) => `person_${index + 1}`);
    const created = cluster.psql(cluster.owner.user, cluster.owner.password, [
      '-c',
      people.map((name) => `CREATE ROLE ${name} LOGIN PASSWORD '${PASSWORD}' IN ROLE closebook_preparer, closebook_approver;`).join('\n'),
    ]);
    if (created.code !== 0) throw new Error(created.stderr);

    const times: Record<'sign-in' | 'review' | 'prepare' | 'approve' | 'read state', number[]> = {
      'sign-in': [],
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
            const [year, number] = [2025 + Math.floor(month / 12), (month % 12) + 1];
            const last = new Date(Date.UTC(year, number, 0)).toISOString().slice(0, 10);
            const period = ['billing.example.com', 'r', `${year}-${String(number).padStart(2, '0')}-01`, last];
            const ids = Array.from({ length: EXCEPTIONS_PER_MONTH }, (_, index) => `rule|org-${index}|${month}`);
            for (let at = 0; at < ids.length; at += REVIEWS_PER_CALL) {
              const part = ids.slice(at, at + REVIEWS_PER_CALL);
              await timed('review', () =>
                client.query('SELECT closebook.review($1, $2, $3, $4, $5, $6, $7, $8, $9)', [
                  ...period,
                  part,
                  part.map((id) => `h-${id}`),
                  'accepted',
                  'Checked.',
                  'bench',
                ]),
              );
            }
            const set = JSON.stringify(ids.map((id) => ({ id, severity: 'medium', evidence_hash: `h-${id}` })));
            await timed('prepare', () =>
              client.query('SELECT closebook.prepare($1, $2, $3, $4, $5, 2, $6, $7, $8, $9)', [...period, 'c'.repeat(64), set, '{}', '[]', 'bench']),
            );
            const approver = sessions[(person + 1) % PEOPLE] as pg.Client;
            await timed('approve', () => approver.query('SELECT closebook.approve($1, $2, $3, $4, $5, $6, $7)', [...period, 'c'.repeat(64), set, 'bench']));
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
    console.log(`\n== the team ledger: ${PEOPLE} sessions at once, ${MONTHS} months, ${EXCEPTIONS_PER_MONTH} exceptions a month (PostgreSQL, TLS) ==`);
    for (const [step, values] of Object.entries(times)) {
      const p95 = percentile(values, 0.95);
      console.log(
        `${step.padEnd(12)} ${String(values.length).padStart(4)} × median ${percentile(values, 0.5).toFixed(0).padStart(4)} ms, p95 ${p95.toFixed(0).padStart(4)} ms   goal ≤ 1,000 ms ${p95 <= 1000 ? 'met' : 'MISSED'}`,
      );
    }
    console.log(`all ${MONTHS} months reviewed, prepared and approved in ${wall.toFixed(1)} s`);
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
