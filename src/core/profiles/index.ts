/** Profiles and their secrets, and a service client per profile with its connection state. */
export { createProfiles, type ProfilesModule } from './handlers';
export type { Connections } from './connections';
export { DEFAULT_ENV_PREFIX, type EphemeralProfileInput, type Profiles, type SecretSource } from './profiles';
