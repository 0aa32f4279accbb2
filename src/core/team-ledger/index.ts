/** The team ledger (PostgreSQL, opt-in): the address policy, sign-in, and the month close and months kept there. */
export { type TeamLedgerAddress, teamLedgerAddress } from './connection-policy';
export { type TeamStatus, teamStatus } from './team-session';
export { createTeamLedger, TEAM_LEDGER_FILE, TEAM_PASSWORD_VARIABLE, type TeamApi, type TeamLedgerModule } from './team-ledger';
