import { z } from 'zod';
import { AppError } from '@shared/errors';
import type { SecretStore } from '../ports/ports';

/**
 * A profile's two secrets live in one keychain entry (service "Closebook", account = profile id) as a small JSON
 * object, because keytar keeps one password per service and account.
 */
export const ProfileSecrets = z.object({
  apiSecret: z.string().optional(),
  password: z.string().optional(),
});
export type ProfileSecrets = z.infer<typeof ProfileSecrets>;

export async function readProfileSecrets(store: SecretStore, profileId: string): Promise<ProfileSecrets> {
  const raw = await store.get(profileId);
  if (raw === null) return {};
  try {
    return ProfileSecrets.parse(JSON.parse(raw));
  } catch {
    // Never echo the entry: it holds secrets.
    throw new AppError('keychain-unavailable', 'The keychain entry for this profile is unreadable. Enter the API secret and password again in Settings.');
  }
}

export async function writeProfileSecrets(store: SecretStore, profileId: string, secrets: ProfileSecrets): Promise<void> {
  if (!secrets.apiSecret && !secrets.password) {
    await store.delete(profileId);
    return;
  }
  await store.set(profileId, JSON.stringify(secrets));
}
