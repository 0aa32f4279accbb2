import { createHash, randomUUID } from 'node:crypto';
import { AppError } from '@shared/errors';
import { errorMessage } from '@shared/error-message';
import type { Profile, ProfileFields, ProfilesState, ProfileView, SaveProfileInput } from '@shared/schemas/profile';
import { BaseUrl } from '@shared/schemas/profile';
import type { Connection } from '../service-api/service-client';
import type { Ports } from '../ports/ports';
import { type ProfileSecrets, readProfileSecrets, writeProfileSecrets } from './profile-secrets';
import { ProfileStore } from './profile-store';
import { type NameOrder, nameOrderOfLocale } from '@shared/model/name-order';

export const DEMO_PROFILE_NAME = 'Demo';

const PROFILE_GONE = 'That profile no longer exists. Pick another one in Settings.';

/**
 * Where a profile's two secrets come from: the OS keychain (saved profiles), or environment variables read at each
 * use and never stored (`PREFIX_API_SECRET`, `PREFIX_PASSWORD`; for headless runs with no keychain).
 */
export type SecretSource = { kind: 'keychain' } | { kind: 'environment'; prefix: string };

export const DEFAULT_ENV_PREFIX = 'CLOSEBOOK';

/** A connection given in full for one run (the CLI's flags): never saved, but usable wherever a profile id is. */
export type EphemeralProfileInput = Omit<ProfileFields, 'name'>;

/** Profiles in a file, their secrets in the keychain; the two are kept in step here and nowhere else. */
export class Profiles {
  private readonly store: ProfileStore;
  private readonly ephemeral = new Map<string, { profile: Profile; secrets: SecretSource }>();

  constructor(private readonly ports: Ports) {
    this.store = new ProfileStore(ports.dataDir);
  }

  async state(): Promise<ProfilesState> {
    const file = await this.store.read();
    const profiles = await Promise.all(file.profiles.map((profile) => this.view(profile)));
    return { profiles, activeProfileId: file.activeProfileId };
  }

  async get(profileId: string): Promise<Profile> {
    const ephemeral = this.ephemeral.get(profileId);
    if (ephemeral) return ephemeral.profile;
    const file = await this.store.read();
    const profile = file.profiles.find((candidate) => candidate.id === profileId);
    if (!profile) throw new AppError('not-found', PROFILE_GONE);
    return profile;
  }

  /**
   * The order a profile's months sort names in: its own, else the language of the computer Closebook runs on (a
   * profile saved before it had one, or one no longer there).
   */
  async nameOrder(profileId: string): Promise<NameOrder> {
    const profile = await this.get(profileId).catch(() => undefined);
    return profile?.nameOrder ?? machineNameOrder();
  }

  async findByName(name: string): Promise<Profile | undefined> {
    const file = await this.store.read();
    const wanted = name.trim().toLowerCase();
    return file.profiles.find((profile) => profile.name.toLowerCase() === wanted);
  }

  /**
   * Registers a connection given in full for this run. Its id is derived from the connection, so the same flags
   * next time find the same report requests and consumption history. The secrets are checked now and read at use.
   */
  useEphemeral(fields: EphemeralProfileInput, secrets: SecretSource): Profile {
    const hex = createHash('sha256').update([fields.baseUrl, fields.clientId, fields.username, fields.resellerId].join('\n')).digest('hex');
    const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
    const profile: Profile = { ...fields, name: `${fields.username} (command line)`, id, kind: 'service', createdAt: '', updatedAt: '' };
    if (secrets.kind === 'environment') this.secretsFromEnvironment(secrets.prefix);
    this.ephemeral.set(id, { profile, secrets });
    return profile;
  }

  private secretsFromEnvironment(prefix: string): { apiSecret: string; password: string } {
    const { apiSecret, password } = this.environmentSecrets(prefix);
    if (!apiSecret || !password) {
      const missing = [!apiSecret && `${prefix}_API_SECRET`, !password && `${prefix}_PASSWORD`].filter(Boolean).join(' and ');
      throw new AppError(
        'auth',
        `This profile reads its secrets from the environment, and ${missing} ${missing.includes(' and ') ? 'are' : 'is'} not set. Set them where Closebook is started (secrets are never taken as flags or stored) and try again.`,
      );
    }
    return { apiSecret, password };
  }

  private environmentSecrets(prefix: string): { apiSecret?: string; password?: string } {
    const env = this.ports.environment ?? {};
    return { apiSecret: env[`${prefix}_API_SECRET`] || undefined, password: env[`${prefix}_PASSWORD`] || undefined };
  }

  private secretSource(profile: Profile): SecretSource {
    const ephemeral = this.ephemeral.get(profile.id)?.secrets;
    if (ephemeral) return ephemeral;
    return profile.secretsFromEnv ? { kind: 'environment', prefix: profile.secretsFromEnv.prefix } : { kind: 'keychain' };
  }

  async save(input: SaveProfileInput, kind: Profile['kind'] = 'service'): Promise<ProfileView> {
    const file = await this.store.read();
    const existing = input.id ? file.profiles.find((profile) => profile.id === input.id) : undefined;
    if (input.id && !existing) throw new AppError('not-found', 'That profile no longer exists.');
    const clash = file.profiles.find((profile) => profile.name.toLowerCase() === input.fields.name.toLowerCase() && profile.id !== input.id);
    if (clash) throw new AppError('validation', `A profile named "${clash.name}" already exists.`, { name: 'is already used by another profile' });

    const id = existing?.id ?? randomUUID();
    const profileKind = existing?.kind ?? kind;
    if (profileKind === 'service' && !input.fields.secretsFromEnv) await this.saveSecrets(id, input, !existing || Boolean(existing.secretsFromEnv));
    // Moving a profile to the environment leaves no copy of its secrets behind in the keychain: if they cannot be
    // removed, the profile stays as it was (once on the environment, nothing would remove them later).
    if (profileKind === 'service' && input.fields.secretsFromEnv && existing && !existing.secretsFromEnv)
      await this.ports.secrets.delete(id).catch((error: unknown) => {
        throw new AppError(
          'keychain-unavailable',
          `Closebook could not remove this profile's secrets from the keychain (${errorMessage(error)}), so the profile still takes them from there. Unlock the keychain and save again.`,
        );
      });

    const now = new Date(this.ports.clock.now()).toISOString();
    const profile: Profile = { ...input.fields, id, kind: profileKind, createdAt: existing?.createdAt ?? now, updatedAt: now };
    await this.store.update((current) => {
      const index = current.profiles.findIndex((candidate) => candidate.id === id);
      if (index >= 0) current.profiles[index] = profile;
      else current.profiles.push(profile);
      current.activeProfileId ??= id;
    });
    return this.view(profile);
  }

  /** Secrets are written before the profile, so a keychain failure leaves nothing half-saved. */
  private async saveSecrets(id: string, input: SaveProfileInput, isNew: boolean): Promise<void> {
    if (isNew && (!input.apiSecret || !input.password)) {
      const fields: Record<string, string> = {};
      if (!input.apiSecret) fields.apiSecret = 'is required';
      if (!input.password) fields.password = 'is required';
      throw new AppError('validation', 'A new profile needs its API secret and password.', fields);
    }
    if (input.apiSecret === undefined && input.password === undefined) return;
    // Both given replace the entry whole, unread: a damaged one is mended the way its message says, by entering them.
    const both = input.apiSecret !== undefined && input.password !== undefined;
    const current = isNew || both ? {} : await readProfileSecrets(this.ports.secrets, id);
    await writeProfileSecrets(this.ports.secrets, id, {
      ...current,
      ...(input.apiSecret !== undefined ? { apiSecret: input.apiSecret } : {}),
      ...(input.password !== undefined ? { password: input.password } : {}),
    });
  }

  /** Removes the secrets first: a profile whose secrets could not be removed stays listed, so nothing is orphaned. */
  async delete(profileId: string): Promise<ProfilesState> {
    const profile = await this.get(profileId);
    if (profile.kind === 'service' && !profile.secretsFromEnv) await this.ports.secrets.delete(profileId);
    await this.store.update((file) => {
      file.profiles = file.profiles.filter((candidate) => candidate.id !== profileId);
      if (file.activeProfileId === profileId) file.activeProfileId = file.profiles[0]?.id ?? null;
    });
    return this.state();
  }

  /** Sets how a profile's months sort names; a demo profile too (it has nothing else to edit). */
  async setNameOrder(profileId: string, nameOrder: NameOrder): Promise<ProfilesState> {
    const now = new Date(this.ports.clock.now()).toISOString();
    await this.store.update((file) => {
      // A saved profile only (one given on the command line is never saved): otherwise nothing would be, silently.
      const profile = file.profiles.find((candidate) => candidate.id === profileId);
      if (!profile) throw new AppError('not-found', PROFILE_GONE);
      Object.assign(profile, { nameOrder, updatedAt: now });
    });
    return this.state();
  }

  async setActive(profileId: string): Promise<ProfilesState> {
    await this.get(profileId);
    await this.store.update((file) => {
      file.activeProfileId = profileId;
    });
    return this.state();
  }

  /** The connection for a profile; a demo profile is pointed at the twin, started on first use. */
  async connection(profile: Profile): Promise<Connection> {
    if (profile.kind === 'demo') {
      const demo = await this.ports.startDemoService();
      return {
        baseUrl: demo.baseUrl,
        clientId: demo.credentials.clientId,
        username: demo.credentials.username,
        resellerId: demo.credentials.resellerId,
        sellerId: demo.credentials.sellerId,
        readSecrets: async () => ({ apiSecret: demo.credentials.apiSecret, password: demo.credentials.password }),
      };
    }
    const address = BaseUrl.safeParse(profile.baseUrl);
    if (!address.success) {
      throw new AppError(
        'validation',
        `The profile "${profile.name}" cannot connect: its service address ${address.error.issues[0]?.message ?? 'is not valid'}. Edit the profile.`,
        {
          baseUrl: address.error.issues[0]?.message ?? 'is not valid',
        },
      );
    }
    const source = this.secretSource(profile);
    return {
      baseUrl: profile.baseUrl,
      clientId: profile.clientId,
      username: profile.username,
      resellerId: profile.resellerId,
      sellerId: profile.sellerId,
      readSecrets: async () => {
        if (source.kind === 'environment') return this.secretsFromEnvironment(source.prefix);
        const secrets = await readProfileSecrets(this.ports.secrets, profile.id);
        if (!secrets.apiSecret || !secrets.password) {
          throw new AppError('auth', `The API secret or password of profile "${profile.name}" is not set. Enter them in Settings.`);
        }
        return { apiSecret: secrets.apiSecret, password: secrets.password };
      },
    };
  }

  /** Creates (or refreshes) the Demo profile for the twin now running. */
  async ensureDemoProfile(): Promise<ProfileView> {
    const demo = await this.ports.startDemoService();
    const existing = (await this.store.read()).profiles.find((profile) => profile.kind === 'demo');
    const fields = {
      name: existing?.name ?? DEMO_PROFILE_NAME,
      baseUrl: demo.baseUrl,
      clientId: demo.credentials.clientId,
      username: demo.credentials.username,
      resellerId: demo.credentials.resellerId,
      sellerId: demo.credentials.sellerId,
    };
    const view = await this.save(existing ? { id: existing.id, fields } : { fields }, 'demo');
    await this.setActive(view.id);
    return view;
  }

  private async view(profile: Profile): Promise<ProfileView> {
    const shown = { ...profile, namesSortedAs: profile.nameOrder ?? machineNameOrder() };
    if (profile.kind === 'demo') return { ...shown, hasApiSecret: true, hasPassword: true };
    if (profile.secretsFromEnv) {
      const secrets = this.environmentSecrets(profile.secretsFromEnv.prefix);
      return { ...shown, hasApiSecret: Boolean(secrets.apiSecret), hasPassword: Boolean(secrets.password) };
    }
    // A keychain that cannot be read must not hide the profile list; the profile just shows its secrets as missing.
    const secrets = await readProfileSecrets(this.ports.secrets, profile.id).catch(() => ({}) as ProfileSecrets);
    return { ...shown, hasApiSecret: Boolean(secrets.apiSecret), hasPassword: Boolean(secrets.password) };
  }
}

/** The name order of the language of the computer Closebook runs on: a profile's until it has its own. */
function machineNameOrder(): NameOrder {
  return nameOrderOfLocale(new Intl.DateTimeFormat().resolvedOptions().locale);
}
