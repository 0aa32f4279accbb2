import { teamLedgerAddress, teamStatus } from '@core';
import { EXIT, parse, UsageError } from './context';

/** The team ledger password comes only from the environment (never a flag: flags end up in shell history). */
export const TEAM_PASSWORD_VARIABLE = 'CLOSEBOOK_TEAM_PASSWORD';

/**
 * `team status --url postgresql://ROLE@HOST/DATABASE`: signs in to the team ledger (TLS with the certificate checked
 * off this machine; the password from CLOSEBOOK_TEAM_PASSWORD) and says who you are there, your Closebook roles,
 * the server's version and whether IT has set the schema up.
 */
export async function teamCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parse(rest, { url: { type: 'string' } });
  if (action !== 'status' || positionals.length || !values.url) throw new UsageError('Usage: team status --url postgresql://YOUR-ROLE@HOST/DATABASE');
  const password = process.env[TEAM_PASSWORD_VARIABLE];
  if (!password) throw new UsageError(`Set ${TEAM_PASSWORD_VARIABLE} in the environment (a password is never taken as a flag).`);
  const address = teamLedgerAddress(values.url);
  const status = await teamStatus(address, password);
  const roles = status.roles.length ? status.roles.map((role) => role.replace(/^closebook_/, '')).join(', ') : "none of Closebook's (ask IT to grant one)";
  const schema =
    status.schemaVersion === null ? 'not set up (IT runs resources/team-ledger/closebook-team-ledger.sql once)' : `version ${status.schemaVersion}`;
  process.stdout.write(
    `${
      values.json
        ? JSON.stringify({ ...status, host: address.host, port: address.port, database: address.database, tls: address.tls })
        : [
            `You are ${status.user} on ${address.host}:${address.port}/${address.database} (PostgreSQL ${status.server}, ${address.tls === 'verify-full' ? 'TLS, certificate checked' : 'no TLS: this machine only'}).`,
            `Your roles: ${roles}.`,
            `Closebook's schema: ${schema}.`,
          ].join('\n')
    }\n`,
  );
  return EXIT.ok;
}
