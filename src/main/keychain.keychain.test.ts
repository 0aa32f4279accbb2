import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import keytar from 'keytar';
import { afterEach, describe, expect, it } from 'vitest';
import { createService } from '@core';
import { testPorts } from '@testing/test-support';
import { KeytarSecretStore } from './keychain';

// Runs against a real Secret Service (gnome-keyring in a private D-Bus session: scripts/with-keyring.sh).
const service = `Closebook-test-${randomUUID()}`;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
  for (const credential of await keytar.findCredentials(service)) await keytar.deletePassword(service, credential.account);
});

describe('KeytarSecretStore on the OS keychain', () => {
  it('sets, gets, lists and deletes a secret', async () => {
    const store = new KeytarSecretStore(service);
    expect(await store.get('profile-a')).toBeNull();
    await store.set('profile-a', 's3cret');
    expect(await store.get('profile-a')).toBe('s3cret');
    expect(await keytar.getPassword(service, 'profile-a')).toBe('s3cret');
    expect(await store.accounts()).toEqual(['profile-a']);
    await store.delete('profile-a');
    expect(await store.get('profile-a')).toBeNull();
  });

  it("keeps a profile's secrets in the keychain under account = profile id, never in the profile file", async () => {
    const env = await testPorts({ secrets: new KeytarSecretStore(service) });
    cleanups.push(env.cleanup);
    const app = createService(env.ports);
    const saved = await app.handlers['profiles:save']({
      fields: {
        name: 'Keychain',
        baseUrl: 'https://billing.example.com',
        clientId: 'c',
        username: 'u',
        resellerId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
        sellerId: '',
      },
      apiSecret: 'api-secret-in-keychain',
      password: 'password-in-keychain',
    });
    expect(JSON.parse((await keytar.getPassword(service, saved.id)) ?? '{}')).toEqual({
      apiSecret: 'api-secret-in-keychain',
      password: 'password-in-keychain',
    });
    const file = await readFile(join(env.ports.dataDir, 'profiles.json'), 'utf8');
    expect(file).not.toMatch(/in-keychain/);
    expect((await app.handlers['profiles:list']({})).profiles[0]).toMatchObject({ hasApiSecret: true, hasPassword: true });
    await app.handlers['profiles:delete']({ profileId: saved.id });
    expect(await keytar.getPassword(service, saved.id)).toBeNull();
  });

  it('says clearly that no keychain is available when there is no D-Bus session, and stores nothing', () => {
    const script = `
      const { KeytarSecretStore } = require(${JSON.stringify(join(process.cwd(), 'src/main/keychain.ts'))});
      new KeytarSecretStore('Closebook-no-bus').set('a', 'b').then(
        () => { console.log('STORED'); process.exit(0); },
        (e) => { console.log(e.code + ': ' + e.message); process.exit(0); });`;
    const result = spawnSync(join(process.cwd(), 'node_modules/.bin/tsx'), ['--eval', script], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' },
      timeout: 60_000,
    });
    expect(result.stdout).toMatch(/^keychain-unavailable: No OS keychain is available/);
    expect(result.stdout).not.toContain('STORED');
  });
});
