import { counted } from '@shared/counted';
import type { TeamFetch } from '@shared/schemas/team-ledger';
import { schemaBehind } from '@shared/model/team-schema';
import { TEAM_PASSWORD_VARIABLE, teamLedgerAddress, teamStatus, type TeamStatus } from '@core';
import { EXIT, parse, UsageError, withContext } from './context';
import { endedBefore } from '@shared/model/period-end';

const USAGE =
  'Usage: team connect postgresql://YOUR-ROLE@HOST/DATABASE | status [--url URL] | months [--json] | share REPORT-ID | pull [--period YYYY-MM] | move-in | disconnect';

/** The password for this run: only from the environment (never a flag: flags end up in shell history). */
function passwordFromEnvironment(): string {
  const password = process.env[TEAM_PASSWORD_VARIABLE];
  if (!password) throw new UsageError(`Set ${TEAM_PASSWORD_VARIABLE} in the environment (a password is never taken as a flag).`);
  return password;
}

export function statusLines(status: TeamStatus, address: ReturnType<typeof teamLedgerAddress>): string {
  const roles = status.roles.length ? status.roles.map((role) => role.replace(/^closebook_/, '')).join(', ') : "none of Closebook's (ask IT to grant one)";
  const schema =
    status.schemaVersion !== null
      ? [`version ${status.schemaVersion}`, schemaBehind(status.schemaVersion)].filter(Boolean).join(', ')
      : status.roles.length
        ? 'not set up (IT runs resources/team-ledger/closebook-team-ledger.sql once)'
        : 'not readable without a Closebook role';
  return [
    `You are ${status.user} on ${address.host}:${address.port}/${address.database} (PostgreSQL ${status.server}, ${address.tls === 'verify-full' ? 'TLS, certificate checked' : 'no TLS: this machine only'}).`,
    `Your roles: ${roles}.`,
    `Closebook's schema: ${schema}.`,
  ].join('\n');
}

const statusJson = (status: TeamStatus, address: ReturnType<typeof teamLedgerAddress>) =>
  JSON.stringify({ ...status, host: address.host, port: address.port, database: address.database, tls: address.tls });

function fetchLine(fetch: TeamFetch): string {
  const state = fetch.state === 'draft' ? 'Draft' : fetch.state === 'prepared' ? 'Prepared' : 'Approved';
  const here = fetch.localReportId ? `here as ${fetch.localReportId}` : 'not on this workstation (team pull)';
  const partial = endedBefore(fetch.endDate, fetch.fetchedAt) ? '' : ' (partial)';
  return `${fetch.startDate}…${fetch.endDate}${partial}  ${state.padEnd(8)} ${counted(fetch.lines, 'line')}, shared by ${fetch.storedBy} from ${fetch.workstation} at ${fetch.storedAt}${fetch.signed ? ' (signed)' : ''}; ${here}  ${fetch.contentHash.slice(0, 12)}…`;
}

/**
 * `team connect URL` (password from CLOSEBOOK_TEAM_PASSWORD, then kept in the keychain), `team status [--url URL]`,
 * `team months`, `team share ID`, `team pull [--period YYYY-MM]`, `team move-in`, `team disconnect`. While a team ledger is
 * connected, `reports accept|prepare|approve|reopen|log` act on it: the database decides, as the signed-in role.
 */
export async function teamCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parse(rest, { url: { type: 'string' }, period: { type: 'string' } });
  if (action === 'status' && values.url) {
    // A check of an address before connecting: nothing is kept.
    if (positionals.length) throw new UsageError(USAGE);
    const address = teamLedgerAddress(values.url);
    const status = await teamStatus(address, passwordFromEnvironment());
    process.stdout.write(`${values.json ? statusJson(status, address) : statusLines(status, address)}\n`);
    return EXIT.ok;
  }
  return withContext(values['data-dir'], async (context) => {
    const team = context.service.team;
    if (action === 'connect') {
      const [url] = positionals;
      if (!url || positionals.length !== 1) throw new UsageError(USAGE);
      const connected = await team.connect(url, passwordFromEnvironment());
      process.stdout.write(`${values.json ? statusJson(connected, connected.address) : statusLines(connected, connected.address)}\n`);
      process.stderr.write(
        connected.passwordKept
          ? 'Connected: the month close now goes through the team ledger; the password is in the OS keychain.\n'
          : `Connected: the month close now goes through the team ledger. No OS keychain answered, so the password was not kept: set ${TEAM_PASSWORD_VARIABLE} for each command.\n`,
      );
      return EXIT.ok;
    }
    if (positionals.length > (action === 'share' ? 1 : 0)) throw new UsageError(USAGE);
    if (action === 'disconnect') {
      const had = await team.disconnect();
      process.stderr.write(had ? 'Disconnected: the month close is kept on this workstation again.\n' : 'No team ledger was connected.\n');
      return EXIT.ok;
    }
    if (action === 'status') {
      const status = await team.status();
      if (!status) {
        process.stdout.write(values.json ? 'null\n' : 'No team ledger is connected: the month close is kept on this workstation.\n');
        return EXIT.ok;
      }
      process.stdout.write(`${values.json ? statusJson(status, status.address) : statusLines(status, status.address)}\n`);
      return EXIT.ok;
    }
    if (action === 'months') {
      const months = await team.months();
      process.stdout.write(
        values.json
          ? `${JSON.stringify(months, null, 2)}\n`
          : months.map((fetch) => `${fetchLine(fetch)}\n`).join('') || 'No month is on the team ledger yet.\n',
      );
      return EXIT.ok;
    }
    if (action === 'share') {
      const [reportId] = positionals;
      if (!reportId) throw new UsageError(USAGE);
      const shared = await team.share(reportId);
      process.stderr.write(
        shared.shared
          ? `Shared ${counted(shared.lines, 'line')} (${shared.bytes} bytes compressed) with the team ledger.\n`
          : 'The team ledger has these lines already.\n',
      );
      return EXIT.ok;
    }
    if (action === 'pull') {
      if (values.period !== undefined && !/^\d{4}-\d{2}$/.test(values.period)) throw new UsageError('--period is a month: YYYY-MM');
      const { pulled, present } = await team.pull(values.period);
      for (const { fetch, reportId } of pulled) {
        process.stdout.write(`${reportId}\n`);
        process.stderr.write(`Pulled ${fetchLine({ ...fetch, localReportId: reportId })}\n`);
      }
      process.stderr.write(`${pulled.length} pulled, ${present.length} already here.\n`);
      return EXIT.ok;
    }
    if (action === 'move-in') {
      const moved = await team.moveIn();
      if (values.json) process.stdout.write(`${JSON.stringify(moved, null, 2)}\n`);
      else for (const line of moved.left) process.stdout.write(`left: ${line}\n`);
      process.stderr.write(
        `Fetches: ${moved.fetchesMoved} moved, ${moved.fetchesThere} there already. Reviews: ${moved.reviewsMoved} moved, ${moved.reviewsThere} there already. ${moved.left.length} left (above). Nothing was prepared or approved by the move.\n`,
      );
      return EXIT.ok;
    }
    throw new UsageError(USAGE);
  });
}
