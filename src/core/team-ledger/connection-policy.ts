import { isIP } from 'node:net';
import { AppError } from '@shared/errors';

/** How Closebook reaches a team ledger: where, as whom, and how the server is checked. The password is the keychain's. */
export interface TeamLedgerAddress {
  host: string;
  port: number;
  database: string;
  user: string;
  /** verify-full off this machine (TLS, the certificate checked against the CA and the host name); loopback may go without. */
  tls: 'verify-full' | 'none';
  /** A CA file to check the server's certificate against (otherwise the system's). */
  caFile: string | null;
}

const LOOPBACK_NAMES = new Set(['localhost', 'ip6-localhost', 'ip6-loopback']);

/** Is `host` this machine (127.0.0.0/8, ::1, localhost)? Only there may a connection go without TLS. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (LOOPBACK_NAMES.has(bare)) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
  return false;
}

const refuse = (message: string) => new AppError('validation', message, { url: message });

/**
 * Reads a team ledger's address (`postgresql://USER@HOST[:PORT]/DATABASE[?sslmode=…&sslrootcert=…]`) under the policy:
 * off this machine the server's certificate is always checked (`verify-full`, the default); an address that asks
 * for less is refused, as is one carrying a password (it belongs in the keychain, not in a URL that ends up in files
 * and shell history).
 */
export function teamLedgerAddress(text: string): TeamLedgerAddress {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw refuse('That is not a team ledger address: write it as postgresql://USER@HOST/DATABASE.');
  }
  if (url.protocol !== 'postgresql:' && url.protocol !== 'postgres:') throw refuse('A team ledger address starts with postgresql://.');
  if (url.password) throw refuse('Leave the password out of the address: Closebook asks for it and keeps it in the keychain.');
  const user = decodeURIComponent(url.username);
  if (!user) throw refuse('Name your database role in the address: postgresql://YOUR-ROLE@HOST/DATABASE.');
  const host = url.hostname;
  if (!host) throw refuse('Name the database server in the address: postgresql://USER@HOST/DATABASE.');
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!database || database.includes('/')) throw refuse('Name the database in the address: postgresql://USER@HOST/DATABASE.');
  const port = url.port ? Number(url.port) : 5432;
  const mode = url.searchParams.get('sslmode') ?? (isLoopback(host) ? 'disable' : 'verify-full');
  const loopback = isLoopback(host);
  if (mode !== 'verify-full' && !(loopback && mode === 'disable'))
    throw refuse(
      loopback
        ? `sslmode=${mode} is not used: on this machine a team ledger is reached with sslmode=verify-full, or without TLS (sslmode=disable).`
        : `A team ledger on another machine is reached only with TLS and its certificate checked (sslmode=verify-full), never ${mode}: remove sslmode from the address, or ask IT for the server's CA certificate (sslrootcert=FILE).`,
    );
  for (const name of url.searchParams.keys())
    if (name !== 'sslmode' && name !== 'sslrootcert') throw refuse(`The address may say sslmode and sslrootcert, not ${name}.`);
  return { host, port, database, user, tls: mode === 'verify-full' ? 'verify-full' : 'none', caFile: url.searchParams.get('sslrootcert') };
}
