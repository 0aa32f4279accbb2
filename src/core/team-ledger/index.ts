// The team ledger (PostgreSQL): its address policy and a signed-in session. The schema IT installs is
// resources/team-ledger/closebook-team-ledger.sql.
export { isLoopback, type TeamLedgerAddress, teamLedgerAddress } from './connection-policy';
export { type TeamStatus, teamStatus, withTeamSession } from './team-session';
