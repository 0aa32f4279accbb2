import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { channelNames, type EventPayload } from '@shared/contract';
import { AppError } from '@shared/errors';
import { startTwin, type Twin } from '@testing/test-support';
import { dispatch } from './runtime/dispatch';
import { silentLogger, type SecretStore } from './ports/ports';
import { createService } from './service';
import { testPorts } from '@testing/test-support';
import { MemorySecretStore } from '@testing/memory-secret-store';

const cleanups = cleanupsAfterEach();

/** A service profile's fields, without its secrets, at an address no test calls. */
const profileFields = (name: string) => ({
  name,
  baseUrl: 'https://a.example.com',
  clientId: 'c',
  username: 'u',
  resellerId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  sellerId: '',
});

async function setup(overrides: Parameters<typeof testPorts>[0] = {}) {
  const env = await testPorts(overrides);
  cleanups.push(env.cleanup);
  return { ...env, service: createService(env.ports) };
}

async function twinProfile(service: ReturnType<typeof createService>, twin: Twin, password = twin.credentials.password) {
  const c = twin.credentials;
  return service.handlers['profiles:save']({
    fields: { name: 'Production', baseUrl: twin.baseUrl, clientId: c.clientId, username: c.username, resellerId: c.resellerId, sellerId: c.sellerId },
    apiSecret: c.apiSecret,
    password,
  });
}

describe('profiles', () => {
  it('keeps secrets in the secret store only: the profile file never holds them, the renderer sees only flags', async () => {
    const { service, ports, secrets } = await setup();
    const twin = await startTwin();
    cleanups.push(() => twin.close());
    const view = await twinProfile(service, twin);
    expect(view).toMatchObject({ hasApiSecret: true, hasPassword: true });
    expect(JSON.stringify(view)).not.toContain(twin.credentials.apiSecret);
    const file = await readFile(join(ports.dataDir, 'profiles.json'), 'utf8');
    expect(file).not.toContain(twin.credentials.apiSecret);
    expect(file).not.toContain(twin.credentials.password);
    expect(JSON.parse((await secrets.get(view.id)) ?? '{}')).toEqual({ apiSecret: twin.credentials.apiSecret, password: twin.credentials.password });
  });

  it('needs both secrets for a new profile, and keeps the stored ones when an edit leaves them out', async () => {
    const { service, secrets } = await setup();
    const fields = {
      name: 'P',
      baseUrl: 'https://billing.example.com',
      clientId: 'c',
      username: 'u',
      resellerId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      sellerId: '',
    };
    await expect(service.handlers['profiles:save']({ fields, apiSecret: 's' })).rejects.toMatchObject({
      code: 'validation',
      fields: { password: 'is required' },
    });
    const saved = await service.handlers['profiles:save']({ fields, apiSecret: 's', password: 'p' });
    await service.handlers['profiles:save']({ id: saved.id, fields: { ...fields, username: 'u2' }, password: 'p2' });
    expect(JSON.parse((await secrets.get(saved.id)) ?? '{}')).toEqual({ apiSecret: 's', password: 'p2' });
    expect((await service.handlers['profiles:list']({})).profiles[0]?.username).toBe('u2');
  });

  it('refuses a second profile with the same name', async () => {
    const { service } = await setup();
    const fields = profileFields('Same');
    await service.handlers['profiles:save']({ fields, apiSecret: 's', password: 'p' });
    await expect(service.handlers['profiles:save']({ fields: { ...fields, name: 'same' }, apiSecret: 's', password: 'p' })).rejects.toMatchObject({
      fields: { name: expect.any(String) },
    });
  });

  it('refuses an http:// address for a remote service, and a saved one is refused when it is used, not lost', async () => {
    const { service, ports } = await setup();
    const fields = {
      name: 'Clear',
      baseUrl: 'http://billing.example.com',
      clientId: 'c',
      username: 'u',
      resellerId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      sellerId: '',
    };
    const refused = await dispatch(service, 'profiles:save', { fields, apiSecret: 's', password: 'p' }, silentLogger);
    expect(refused).toMatchObject({ ok: false, error: { code: 'validation', fields: { 'fields.baseUrl': expect.stringMatching(/https:\/\//) } } });
    // A profile saved before the rule: it still lists (to edit or delete it) but never connects in clear.
    const saved = await service.handlers['profiles:save']({ fields: { ...fields, baseUrl: 'https://billing.example.com' }, apiSecret: 's', password: 'p' });
    const file = join(ports.dataDir, 'profiles.json');
    await writeFile(file, (await readFile(file, 'utf8')).replace('https://billing.example.com', 'http://billing.example.com'));
    const reread = createService(ports);
    expect((await reread.handlers['profiles:list']({})).profiles.map((profile) => profile.baseUrl)).toEqual(['http://billing.example.com']);
    await expect(reread.handlers['organizations:list']({ profileId: saved.id })).rejects.toMatchObject({
      code: 'validation',
      message: expect.stringMatching(/Edit the profile/),
    });
  });

  it('mends an unreadable keychain entry when both secrets are entered again, as its message says', async () => {
    const { service, secrets } = await setup();
    const fields = profileFields('P');
    const saved = await service.handlers['profiles:save']({ fields, apiSecret: 's', password: 'p' });
    await secrets.set(saved.id, 'not the JSON Closebook wrote');
    await expect(service.handlers['profiles:save']({ id: saved.id, fields, password: 'p2' })).rejects.toMatchObject({
      code: 'keychain-unavailable',
      message: expect.stringMatching(/Enter the API secret and password again in Settings/),
    });
    await service.handlers['profiles:save']({ id: saved.id, fields, apiSecret: 's2', password: 'p2' });
    expect(JSON.parse((await secrets.get(saved.id)) ?? '{}')).toEqual({ apiSecret: 's2', password: 'p2' });
  });

  it('moves a profile to environment secrets only once its keychain entry is gone', async () => {
    const secrets = new MemorySecretStore();
    let locked = false;
    const lockable: SecretStore = {
      get: (account) => secrets.get(account),
      set: (account, secret) => secrets.set(account, secret),
      delete: async (account) => {
        if (locked) throw new AppError('keychain-unavailable', 'The keyring is locked');
        await secrets.delete(account);
      },
    };
    const { service } = await setup({ secrets: lockable });
    const fields = profileFields('P');
    const saved = await service.handlers['profiles:save']({ fields, apiSecret: 's', password: 'p' });
    locked = true;
    const toEnvironment = () => service.handlers['profiles:save']({ id: saved.id, fields: { ...fields, secretsFromEnv: { prefix: 'ACME' } } });
    await expect(toEnvironment()).rejects.toMatchObject({
      code: 'keychain-unavailable',
      message: expect.stringMatching(/locked.*Unlock the keychain and save again/),
    });
    expect((await service.handlers['profiles:list']({})).profiles[0]).not.toHaveProperty('secretsFromEnv');
    expect(secrets.size).toBe(1);
    locked = false;
    await toEnvironment();
    expect(secrets.size).toBe(0);
  });

  it('deletes the secrets with the profile', async () => {
    const { service, secrets } = await setup();
    const fields = profileFields('Gone');
    const saved = await service.handlers['profiles:save']({ fields, apiSecret: 's', password: 'p' });
    const state = await service.handlers['profiles:delete']({ profileId: saved.id });
    expect(state.profiles).toHaveLength(0);
    expect(secrets.size).toBe(0);
  });

  it('saves nothing when the keychain is not reachable, and says so', async () => {
    const broken: SecretStore = {
      get: async () => {
        throw new AppError('keychain-unavailable', 'No OS keychain is available');
      },
      set: async () => {
        throw new AppError('keychain-unavailable', 'No OS keychain is available');
      },
      delete: async () => {},
    };
    const { service } = await setup({ secrets: broken });
    const fields = profileFields('P');
    await expect(service.handlers['profiles:save']({ fields, apiSecret: 's', password: 'p' })).rejects.toMatchObject({ code: 'keychain-unavailable' });
    expect((await service.handlers['profiles:list']({})).profiles).toHaveLength(0);
    expect((await service.handlers['app:info']({})).keychainAvailable).toBe(false);
  });

  it('reports a damaged profile file with its name and leaves it untouched', async () => {
    const { service, ports } = await setup();
    const path = join(ports.dataDir, 'profiles.json');
    await writeFile(path, '{"version":1,"profiles":[{"name":');
    await expect(service.handlers['profiles:list']({})).rejects.toMatchObject({
      code: 'storage',
      message: expect.stringContaining('profiles.json is damaged'),
    });
    const fields = profileFields('P');
    await expect(service.handlers['profiles:save']({ fields, apiSecret: 's', password: 'p' })).rejects.toMatchObject({ code: 'storage' });
    expect(await readFile(path, 'utf8')).toBe('{"version":1,"profiles":[{"name":');
  });

  it('tests a connection: token plus organization count, and reports the profile online', async () => {
    const { service } = await setup();
    const twin = await startTwin({ organizations: 9 });
    cleanups.push(() => twin.close());
    const view = await twinProfile(service, twin);
    const states: string[] = [];
    service.events.subscribe((event, payload) => {
      if (event !== 'profiles:test-progress') states.push(`${event}:${'state' in payload ? payload.state : ''}`);
    });
    await expect(service.handlers['profiles:test']({ profileId: view.id })).resolves.toMatchObject({ organizationCount: 9 });
    // Signing in and listing are two calls, each reported.
    expect(states).toEqual(['connection:state:online', 'connection:state:online']);
  });

  it('tells each step of a connection test, and each retry with its attempt, when and why', async () => {
    const { service } = await setup();
    const twin = await startTwin({ organizations: 4 });
    cleanups.push(() => twin.close());
    const view = await twinProfile(service, twin);
    twin.faults.add({ kind: 'status', status: 503, path: 'connect/token' });
    twin.faults.add({ kind: 'status', status: 502, path: 'Organizations' });
    const steps: EventPayload<'profiles:test-progress'>[] = [];
    service.events.subscribe((event, payload) => {
      if (event === 'profiles:test-progress') steps.push(payload as EventPayload<'profiles:test-progress'>);
    });
    await expect(service.handlers['profiles:test']({ profileId: view.id })).resolves.toMatchObject({ organizationCount: 4 });
    expect(steps.map((step) => `${step.step}${step.retry ? ' (retry)' : ''}`)).toEqual(['signing-in', 'signing-in (retry)', 'listing', 'listing (retry)']);
    expect(steps.every((step) => step.profileId === view.id && step.startedAt === steps[0]?.startedAt)).toBe(true);
    const [tokenRetry, listRetry] = steps.filter((step) => step.retry).map((step) => step.retry);
    expect(tokenRetry).toMatchObject({ attempt: 2, attempts: 4, reason: expect.stringContaining('503') });
    expect(listRetry).toMatchObject({ attempt: 2, attempts: 4, reason: expect.stringContaining('502') });
    expect(Date.parse(tokenRetry?.at ?? '')).toBeGreaterThan(Date.parse(steps[0]?.startedAt ?? ''));
  });

  it('reports refused credentials and an unreachable service in plain words', async () => {
    const { service } = await setup();
    const twin = await startTwin();
    const wrong = await twinProfile(service, twin, 'wrong-password');
    await expect(service.handlers['profiles:test']({ profileId: wrong.id })).rejects.toMatchObject({
      code: 'auth',
      message: expect.stringContaining('refused the credentials'),
    });
    await twin.close();
    const states: string[] = [];
    service.events.subscribe((event, payload) => {
      if (event === 'connection:state') states.push((payload as EventPayload<'connection:state'>).state);
    });
    await service.handlers['profiles:save']({ id: wrong.id, fields: { ...wrong, name: wrong.name }, password: twin.credentials.password });
    await expect(service.handlers['profiles:test']({ profileId: wrong.id })).rejects.toMatchObject({
      code: 'network',
      message: expect.stringContaining('Cannot reach the service'),
    });
    // Each of the four attempts (three retried) tells the indicator, so it says "Offline" while the test still retries.
    expect(states).toEqual(['offline', 'offline', 'offline', 'offline']);
  });

  it('starts demo mode: a Demo profile on the twin, in use, whose connection test works with no keychain entry', async () => {
    const { service, secrets } = await setup();
    expect((await service.handlers['app:info']({})).firstRun).toBe(true);
    const demo = await service.handlers['demo:start']({});
    expect(demo).toMatchObject({ name: 'Demo', kind: 'demo', hasApiSecret: true });
    expect((await service.handlers['profiles:list']({})).activeProfileId).toBe(demo.id);
    expect(secrets.size).toBe(0);
    await expect(service.handlers['profiles:test']({ profileId: demo.id })).resolves.toMatchObject({ organizationCount: 60 });
    await service.handlers['demo:start']({});
    expect((await service.handlers['profiles:list']({})).profiles).toHaveLength(1);
  });
});

describe('a connection given for one run (ephemeral profile)', () => {
  it('reads its secrets from the environment at each use, stores nothing, and keeps a stable id', async () => {
    const twin = await startTwin();
    cleanups.push(() => twin.close());
    const c = twin.credentials;
    const environment: Record<string, string | undefined> = { ACME_API_SECRET: c.apiSecret, ACME_PASSWORD: c.password };
    const { service, ports, secrets } = await setup({ environment });
    const fields = { baseUrl: twin.baseUrl, clientId: c.clientId, username: c.username, resellerId: c.resellerId, sellerId: c.sellerId };
    const profileId = service.profiles.useEphemeral(fields, { kind: 'environment', prefix: 'ACME' });
    expect(service.profiles.useEphemeral(fields, { kind: 'environment', prefix: 'ACME' })).toBe(profileId);
    expect((await service.handlers['organizations:list']({ profileId })).length).toBeGreaterThan(0);
    expect(secrets.size).toBe(0);
    expect((await service.handlers['profiles:list']({})).profiles).toEqual([]);
    await expect(readFile(join(ports.dataDir, 'profiles.json'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });

    environment.ACME_PASSWORD = 'changed'; // read at use, not remembered
    await expect(service.handlers['profiles:test']({ profileId })).rejects.toMatchObject({ code: 'auth' });
  });

  it('is never given a name order it cannot keep: setting one is refused, not reported done', async () => {
    const twin = await startTwin();
    cleanups.push(() => twin.close());
    const c = twin.credentials;
    const { service, ports } = await setup({ environment: { ACME_API_SECRET: c.apiSecret, ACME_PASSWORD: c.password } });
    const fields = { baseUrl: twin.baseUrl, clientId: c.clientId, username: c.username, resellerId: c.resellerId, sellerId: c.sellerId };
    const profileId = service.profiles.useEphemeral(fields, { kind: 'environment', prefix: 'ACME' });
    await expect(service.handlers['profiles:set-name-order']({ profileId, nameOrder: 'sv' })).rejects.toMatchObject({ code: 'not-found' });
    await expect(readFile(join(ports.dataDir, 'profiles.json'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    // A saved profile keeps it, and says so.
    const saved = await twinProfile(service, twin);
    const state = await service.handlers['profiles:set-name-order']({ profileId: saved.id, nameOrder: 'sv' });
    expect(state.profiles.find((profile) => profile.id === saved.id)).toMatchObject({ nameOrder: 'sv', namesSortedAs: 'sv' });
  });

  it('refuses at once when the environment lacks its secrets, naming the variables', async () => {
    const { service } = await setup({ environment: {} });
    const fields = { baseUrl: 'https://billing.example.com', clientId: 'c', username: 'u', resellerId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', sellerId: '' };
    expect(() => service.profiles.useEphemeral(fields, { kind: 'environment', prefix: 'ACME' })).toThrow(/ACME_API_SECRET and ACME_PASSWORD/);
  });
});

describe('dispatch', () => {
  it('has a handler for every contract channel', async () => {
    const { service } = await setup();
    expect(Object.keys(service.handlers).sort()).toEqual([...channelNames].sort());
  });

  it('refuses an unknown channel and malformed input, naming the field', async () => {
    const { service } = await setup();
    expect(await dispatch(service, 'shell:exec', {}, silentLogger)).toMatchObject({ ok: false, error: { code: 'validation' } });
    const reply = await dispatch(service, 'organizations:list', { profileId: 'not-a-uuid' }, silentLogger);
    expect(reply).toMatchObject({ ok: false, error: { code: 'validation', fields: { profileId: expect.any(String) } } });
  });

  it('returns service errors as values and hides the detail of unexpected ones', async () => {
    const { service } = await setup();
    service.handlers['profiles:list'] = async () => {
      throw new Error('secret detail https://internal');
    };
    const reply = await dispatch(service, 'profiles:list', {}, silentLogger);
    expect(reply).toEqual({ ok: false, error: { code: 'internal', message: expect.not.stringContaining('secret detail') } });
  });

  it('checks outputs against the contract too', async () => {
    const { service } = await setup();
    service.handlers['profiles:list'] = async () => ({ profiles: 'nope' }) as never;
    expect(await dispatch(service, 'profiles:list', {}, silentLogger)).toMatchObject({ ok: false, error: { code: 'internal' } });
  });
});
