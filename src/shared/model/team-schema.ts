/** The schema files (resources/team-ledger) that bring a team ledger from version 1 up to 2, 2 up to 3 …: the last is this Closebook's. */
const SCHEMA_UPGRADES = ['closebook-team-ledger-invoices.sql', 'closebook-team-ledger-audit.sql', 'closebook-team-ledger-period-end.sql'];

/** The team ledger schema's version this Closebook is made for. */
export const TEAM_SCHEMA_VERSION = SCHEMA_UPGRADES.length + 1;

/** The files IT runs, in order, to bring a team ledger at `version` up to this Closebook's (none when it is there). */
export const schemaUpgrades = (version: number): string[] => SCHEMA_UPGRADES.slice(Math.max(0, version - 1));

/** What a team ledger older than this Closebook's schema lacks, and what IT runs, in words; null when it is current. */
export function schemaBehind(version: number): string | null {
  const upgrades = schemaUpgrades(version);
  return upgrades.length
    ? `older than this Closebook's ${TEAM_SCHEMA_VERSION}: until IT runs ${upgrades.join(', then ')} (resources/team-ledger, as the database's owner), the rules added since are the workstations' alone`
    : null;
}
