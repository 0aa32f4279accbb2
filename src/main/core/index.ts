/**
 * The core's front door: everything a host (Electron, the CLI, the browser test bridge, benchmarks and end-to-end
 * tests) may use. Hosts import from here only (a lint rule holds them to it); the feature folders behind it are
 * free to change shape.
 */
export { createService, type ProfilesApi, type Service } from './service';
export type { CloseApi } from './close/handlers';
export type { ConsumptionApi } from './consumption/handlers';
export type { ReportsApi } from './reports/handlers';
export { DEFAULT_ENV_PREFIX, type EphemeralProfileInput, type SecretSource } from './profiles/profiles';
export { dispatch } from './platform/dispatch';
export { type Clock, type DemoService, type DemoServiceStarter, type FetchLike, type Logger, type Ports, type DeliverFile, type SecretStore, silentLogger, systemClock } from './platform/ports';
export { MemorySecretStore } from './platform/memory-secret-store';
export { createFileLogger, createStderrLogger } from './platform/log';
export { defaultDataDir } from './platform/data-dir';
export { FILE_MIME_TYPES } from './platform/files';
export { SERVICE_POLL_FLOOR_MS } from './reports/report-job';
