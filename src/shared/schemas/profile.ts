import { z } from 'zod';
import { Guid, PlainName } from './common';
import { NameOrder } from '../model/name-order';

/** A host name on this machine (the built-in twin, a local test service): the only place plain http is allowed. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/**
 * Base URL of a service: https (plain http only on this machine: the client secret, password and token would
 * otherwise travel in clear), no user name or password in it (the only way a secret could reach profiles.json),
 * no query or fragment; stored without a trailing slash.
 */
export const BaseUrl = z
  .string()
  .trim()
  .max(2000, 'must be at most 2000 characters')
  .refine((value) => parseUrl(value) !== null, 'must be a URL like https://billing.example.com')
  .refine((value) => {
    const url = parseUrl(value);
    return !url || url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  }, 'must start with https:// (plain http:// only for a service on this machine)')
  .refine((value) => !parseUrl(value)?.username && !parseUrl(value)?.password, 'must not contain a user name or password (enter them in their own fields)')
  .refine((value) => !parseUrl(value)?.search && !parseUrl(value)?.hash, 'must not have a query or fragment')
  .transform((value) => value.replace(/\/+$/, ''));

function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/** The start of the two environment variable names a profile's secrets are read from: `ACME` → `ACME_API_SECRET`. */
export const EnvPrefix = z
  .string()
  .trim()
  .regex(/^[A-Z][A-Z0-9_]{0,39}$/, 'must be capital letters, digits and _ (like CLOSEBOOK or ACME)');

/** What the user edits. Secrets are not part of it: they go to the keychain separately. */
export const ProfileFields = z.object({
  name: PlainName(80),
  baseUrl: BaseUrl,
  clientId: z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters'),
  username: z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters'),
  resellerId: Guid,
  /** Needed only for consumption; a Broker that is not a Seller leaves it empty. */
  sellerId: z.union([Guid, z.literal('')]).default(''),
  /**
   * Set for a profile whose API secret and password are read from `PREFIX_API_SECRET` and `PREFIX_PASSWORD` each
   * time it is used and never stored — for a machine with no keychain (a scheduled month-end job).
   */
  secretsFromEnv: z.object({ prefix: EnvPrefix }).optional(),
  /**
   * How this profile's months sort names (shared/model/name-order). A profile saved before it had one sorts by the
   * language of the computer Closebook runs on; the form fills in the user's language for a new one.
   */
  nameOrder: NameOrder.optional(),
});
export type ProfileFields = z.infer<typeof ProfileFields>;

export const Profile = ProfileFields.extend({
  /**
   * As saved. A profile saved before the https rule still loads (and can be edited or deleted); it is refused when it
   * is used to connect (see Profiles.connection).
   */
  baseUrl: z.string().max(2000),
  /** As saved: a name saved before names were kept plain still loads. */
  name: z.string().trim().min(1).max(80),
  id: z.string().uuid(),
  /** 'demo' profiles point at the built-in service twin, whose address is chosen when it starts. */
  kind: z.enum(['service', 'demo']).default('service'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Profile = z.infer<typeof Profile>;

/** A profile as the renderer sees it: whether each secret is set, never the secret. */
export const ProfileView = Profile.extend({
  hasApiSecret: z.boolean(),
  hasPassword: z.boolean(),
  /** The order its months sort names in: its own, or the language of the computer Closebook runs on. */
  namesSortedAs: NameOrder,
});
export type ProfileView = z.infer<typeof ProfileView>;

/**
 * Saving a profile. A secret left undefined keeps the stored one; a string replaces it.
 * Secrets travel one way only: typed in a form, handed to the main process, written to the keychain.
 */
export const SaveProfileInput = z.object({
  id: z.string().uuid().optional(),
  fields: ProfileFields,
  apiSecret: z.string().min(1, 'is required').max(4096).optional(),
  password: z.string().min(1, 'is required').max(4096).optional(),
});
export type SaveProfileInput = z.infer<typeof SaveProfileInput>;

export const ProfilesState = z.object({
  profiles: z.array(ProfileView),
  activeProfileId: z.string().nullable(),
});
export type ProfilesState = z.infer<typeof ProfilesState>;

export const ConnectionTestResult = z.object({
  organizationCount: z.number().int().nonnegative(),
  elapsedMs: z.number().nonnegative(),
});
export type ConnectionTestResult = z.infer<typeof ConnectionTestResult>;
