import { z } from 'zod';
import { Guid } from './common';

/** Base URL of a service: http(s), no query or fragment; stored without a trailing slash. */
export const BaseUrl = z
  .string()
  .trim()
  .refine((value) => parseUrl(value) !== null, 'must be a URL like https://billing.example.com')
  .refine((value) => /^https?:$/.test(parseUrl(value)?.protocol ?? 'http:'), 'must start with https:// (or http:// for a local service)')
  .refine((value) => !parseUrl(value)?.search && !parseUrl(value)?.hash, 'must not have a query or fragment')
  .transform((value) => value.replace(/\/+$/, ''));

function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/** What the user edits. Secrets are not part of it: they go to the keychain separately. */
export const ProfileFields = z.object({
  name: z.string().trim().min(1, 'is required').max(80, 'must be at most 80 characters'),
  baseUrl: BaseUrl,
  clientId: z.string().trim().min(1, 'is required'),
  username: z.string().trim().min(1, 'is required'),
  resellerId: Guid,
  /** Needed only for consumption; a Broker that is not a Seller leaves it empty. */
  sellerId: z.union([Guid, z.literal('')]).default(''),
});
export type ProfileFields = z.infer<typeof ProfileFields>;

export const Profile = ProfileFields.extend({
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
