import { randomUUID } from 'node:crypto';
import { AppError } from '../../../shared/errors';
import type { Profile, ProfilesState, ProfileView, SaveProfileInput } from '../../../shared/schemas/profile';
import type { Connection } from '../platform/service-client';
import type { Ports } from '../platform/ports';
import { type ProfileSecrets, readProfileSecrets, writeProfileSecrets } from './profile-secrets';
import { ProfileStore } from './profile-store';

export const DEMO_PROFILE_NAME = 'Demo';

/** Profiles in a file, their secrets in the keychain; the two are kept in step here and nowhere else. */
export class Profiles {
  private readonly store: ProfileStore;

  constructor(private readonly ports: Ports) {
    this.store = new ProfileStore(ports.dataDir);
  }

  async state(): Promise<ProfilesState> {
    const file = await this.store.read();
    const profiles = await Promise.all(file.profiles.map((profile) => this.view(profile)));
    return { profiles, activeProfileId: file.activeProfileId };
  }

  async get(profileId: string): Promise<Profile> {
    const file = await this.store.read();
    const profile = file.profiles.find((candidate) => candidate.id === profileId);
    if (!profile) throw new AppError('not-found', 'That profile no longer exists. Pick another one in Profiles.');
    return profile;
  }

  async findByName(name: string): Promise<Profile | undefined> {
    const file = await this.store.read();
    const wanted = name.trim().toLowerCase();
    return file.profiles.find((profile) => profile.name.toLowerCase() === wanted);
  }

  async save(input: SaveProfileInput, kind: Profile['kind'] = 'service'): Promise<ProfileView> {
    const file = await this.store.read();
    const existing = input.id ? file.profiles.find((profile) => profile.id === input.id) : undefined;
    if (input.id && !existing) throw new AppError('not-found', 'That profile no longer exists.');
    const clash = file.profiles.find((profile) => profile.name.toLowerCase() === input.fields.name.toLowerCase() && profile.id !== input.id);
    if (clash) throw new AppError('validation', `A profile named "${clash.name}" already exists.`, { name: 'is already used by another profile' });

    const id = existing?.id ?? randomUUID();
    const profileKind = existing?.kind ?? kind;
    if (profileKind === 'service') await this.saveSecrets(id, input, !existing);

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
    const current = isNew ? {} : await readProfileSecrets(this.ports.secrets, id);
    await writeProfileSecrets(this.ports.secrets, id, {
      ...current,
      ...(input.apiSecret !== undefined ? { apiSecret: input.apiSecret } : {}),
      ...(input.password !== undefined ? { password: input.password } : {}),
    });
  }

  /** Removes the secrets first: a profile whose secrets could not be removed stays listed, so nothing is orphaned. */
  async delete(profileId: string): Promise<ProfilesState> {
    const profile = await this.get(profileId);
    if (profile.kind === 'service') await this.ports.secrets.delete(profileId);
    await this.store.update((file) => {
      file.profiles = file.profiles.filter((candidate) => candidate.id !== profileId);
      if (file.activeProfileId === profileId) file.activeProfileId = file.profiles[0]?.id ?? null;
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
    return {
      baseUrl: profile.baseUrl,
      clientId: profile.clientId,
      username: profile.username,
      resellerId: profile.resellerId,
      sellerId: profile.sellerId,
      readSecrets: async () => {
        const secrets = await readProfileSecrets(this.ports.secrets, profile.id);
        if (!secrets.apiSecret || !secrets.password) {
          throw new AppError('auth', `The API secret or password of profile "${profile.name}" is not set. Enter them in Profiles.`);
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
    if (profile.kind === 'demo') return { ...profile, hasApiSecret: true, hasPassword: true };
    // A keychain that cannot be read must not hide the profile list; the profile just shows its secrets as missing.
    const secrets = await readProfileSecrets(this.ports.secrets, profile.id).catch(() => ({}) as ProfileSecrets);
    return { ...profile, hasApiSecret: Boolean(secrets.apiSecret), hasPassword: Boolean(secrets.password) };
  }
}
