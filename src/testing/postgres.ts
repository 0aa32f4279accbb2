import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** Debian's PostgreSQL binaries (the `postgresql` package): the newest version installed. */
function binaries(): string {
  const root = '/usr/lib/postgresql';
  const versions = readdirSync(root)
    .map(Number)
    .filter((version) => Number.isFinite(version))
    .sort((a, b) => b - a);
  if (!versions.length) throw new Error("PostgreSQL is not installed: run scripts/setup.sh (it installs Debian's postgresql).");
  return join(root, String(versions[0]), 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface TestCluster {
  host: '127.0.0.1';
  port: number;
  /** The CA that signed the server's certificate (for sslmode=verify-full). */
  caFile: string;
  owner: { user: string; password: string };
  /** A connection URL for `user`, TLS with the server certificate checked. */
  url(user: string, password: string, database?: string): string;
  /** Runs psql as `user` against the cluster (TLS, verify-full); returns its exit code and output. */
  psql(user: string, password: string, args: string[]): { code: number | null; stdout: string; stderr: string };
  /** Stops the server only (its files stay, the CA too): the team ledger is gone from the network, as in an outage. */
  halt(): void;
  /** Stops the server and removes its folder. */
  stop(): void;
}

/**
 * A throwaway PostgreSQL cluster for one test file: initdb into a temporary folder, TLS with a certificate made by
 * openssl for 127.0.0.1 and signed by a CA of its own, scram-sha-256, listening on loopback at a free port. The
 * server refuses to run as root, so under root (CI) it runs as the `postgres` user the package creates.
 */
export async function startTestCluster(): Promise<TestCluster> {
  const bin = binaries();
  const dir = mkdtempSync(join(tmpdir(), 'closebook-pg-'));
  const data = join(dir, 'data');
  const asRoot = userInfo().uid === 0;
  const run = (command: string, args: string[]) => {
    const result = asRoot
      ? spawnSync('runuser', ['-u', 'postgres', '--', command, ...args], { encoding: 'utf8' })
      : spawnSync(command, args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
  };
  const owner = { user: 'closebook_owner', password: `pw-${process.pid}-${Date.now()}` };

  // Certificates: a CA, and the server's for 127.0.0.1 and localhost, signed by it.
  const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=Closebook test CA']);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1']);
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl([
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.crt',
    '-days',
    '2',
    '-extfile',
    'san.ext',
  ]);
  writeFileSync(join(dir, 'pwfile'), `${owner.password}\n`);
  chmodSync(join(dir, 'server.key'), 0o600);
  if (asRoot) {
    const { uid, gid } = (() => {
      const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
      return { uid: id('-u'), gid: id('-g') };
    })();
    for (const name of ['', 'server.key', 'server.crt', 'pwfile']) chownSync(join(dir, name), uid, gid);
  }

  run(join(bin, 'initdb'), ['-D', data, '-A', 'scram-sha-256', '-U', owner.user, `--pwfile=${join(dir, 'pwfile')}`, '--no-instructions']);
  writeFileSync(
    join(data, 'pg_hba.conf'),
    ['# TLS only, passwords only: as a team ledger is reached', 'hostssl all all 127.0.0.1/32 scram-sha-256', 'local all all scram-sha-256', ''].join('\n'),
  );
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c ssl=on',
    `-c ssl_cert_file=${join(dir, 'server.crt')}`,
    `-c ssl_key_file=${join(dir, 'server.key')}`,
  ];
  run(join(bin, 'pg_ctl'), ['-D', data, '-o', options.join(' '), '-l', join(dir, 'log'), '-w', 'start']);

  const caFile = join(dir, 'ca.crt');
  const url = (user: string, password: string, database = 'postgres') =>
    `postgresql://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}?sslmode=verify-full&sslrootcert=${encodeURIComponent(caFile)}`;
  let stopped = false;
  let halted = false;
  return {
    host: '127.0.0.1',
    port,
    caFile,
    owner,
    url,
    psql: (user, password, args) => {
      const result = spawnSync(join(bin, 'psql'), ['-X', '-v', 'ON_ERROR_STOP=1', url(user, password), ...args], { encoding: 'utf8' });
      return { code: result.status, stdout: result.stdout, stderr: result.stderr };
    },
    halt: () => {
      if (halted) return;
      halted = true;
      run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
    stop: () => {
      if (stopped) return;
      stopped = true;
      try {
        if (!halted) run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
      } finally {
        halted = true;
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** The schema script IT runs once on the team ledger. */
export const TEAM_LEDGER_SCHEMA = join(process.cwd(), 'resources', 'team-ledger', 'closebook-team-ledger.sql');

/**
 * A throwaway cluster with Closebook's schema installed by its owner (as IT would) and a login role for each person,
 * a member of the Closebook group roles named (`preparer`, `approver`, `auditor`), all with `password`.
 */
export async function startTeamLedgerCluster(people: Record<string, ('preparer' | 'approver' | 'auditor')[]>, password: string): Promise<TestCluster> {
  const cluster = await startTestCluster();
  const { owner } = cluster;
  const installed = cluster.psql(owner.user, owner.password, ['-f', TEAM_LEDGER_SCHEMA]);
  if (installed.code !== 0) throw new Error(`the schema script failed: ${installed.stderr}`);
  const sql = Object.entries(people)
    .map(
      ([name, roles]) => `CREATE ROLE ${name} LOGIN PASSWORD '${password.replace(/'/g, "''")}' IN ROLE ${roles.map((role) => `closebook_${role}`).join(', ')};`,
    )
    .join('\n');
  const created = cluster.psql(owner.user, owner.password, ['-c', sql]);
  if (created.code !== 0) throw new Error(created.stderr);
  return cluster;
}
