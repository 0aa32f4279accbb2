/**
 * The core's front door: everything a host (Electron, the CLI, the browser test bridge, benchmarks and end-to-end
 * tests) may use. Hosts import from here only (a lint rule holds them to it); the feature folders behind it are
 * free to change shape.
 */
export { createService, type ProfilesApi, type Service } from './service';
export type { CloseApi } from './close';
export type { ConsumptionApi } from './consumption';
export {
  fileLines,
  LEVEL_NUMBERS_SQL,
  type LevelNumbers,
  lineFilter,
  PARQUET_OPTIONS,
  type ReportsApi,
  SERVICE_POLL_FLOOR_MS,
  topRowsQuery,
  wordMatchesQuery,
} from './reports';
export { LedgerBits, type LedgerValue } from './ledger/ledger';
export { DEFAULT_ENV_PREFIX, type EphemeralProfileInput, type SecretSource } from './profiles';
export { dispatch } from './runtime/dispatch';
export {
  type Clock,
  type DemoService,
  type DemoServiceStarter,
  type FetchLike,
  type Logger,
  type Ports,
  type DeliverFile,
  type SecretStore,
  silentLogger,
  systemClock,
} from './ports/ports';
export { createFileLogger, createStderrLogger } from './ports/log';
export { defaultDataDir } from './ports/data-dir';
export { FILE_MIME_TYPES } from './storage/files';
export { TEAM_PASSWORD_VARIABLE, type TeamApi, teamLedgerAddress, type TeamStatus, teamStatus } from './team-ledger';
