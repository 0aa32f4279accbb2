import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import keytar from 'keytar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService } from '@core';
import { startTeamLedgerCluster, type TestCluster } from '@testing/postgres';
import { testPorts } from '@testing/test-support';
import { KeytarSecretStore } from './keychain';

// The team ledger's password in a real OS keychain (gnome-keyring: scripts/with-keyring.sh), on a real PostgreSQL.
const service = `Closebook-test-${randomUUID()}`;
const PASSWORD = 'a team ledger password';
let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTeamLedgerCluster({ anna: ['preparer'], bertil: ['approver'] }, PASSWORD);
}, 120_000);

afterAll(async () => {
  cluster?.stop();
  for (const credential of await keytar.findCredentials(service)) await keytar.deletePassword(service, credential.account);
});

describe('the team ledger on the OS keychain', () => {
  it('keeps the password in the keychain at connect, signs in with it on the next start, and forgets it at disconnect', async () => {
    const env = await testPorts({ secrets: new KeytarSecretStore(service) });
    try {
      const url = `postgresql://anna@127.0.0.1:${cluster.port}/postgres?sslmode=verify-full&sslrootcert=${encodeURIComponent(cluster.caFile)}`;
      const first = createService(env.ports);
      const connected = await first.team.connect(url, PASSWORD);
      expect(connected).toMatchObject({ user: 'anna', roles: ['closebook_preparer'], passwordKept: true });
      const account = `team-ledger:anna@127.0.0.1:${cluster.port}/postgres`;
      expect(await keytar.getPassword(service, account)).toBe(PASSWORD);
      // The data folder keeps the address only.
      const kept = await readFile(join(env.ports.dataDir, 'team-ledger.json'), 'utf8');
      expect(kept).not.toContain(PASSWORD);
      await first.dispose();

      // The next start: no password given anywhere but the keychain.
      const next = createService(env.ports);
      expect(await next.team.status()).toMatchObject({ user: 'anna', roles: ['closebook_preparer'] });

      // Connected as someone else, the password kept before goes with the address it was for.
      await next.team.connect(url.replace('anna@', 'bertil@'), PASSWORD);
      const bertils = `team-ledger:bertil@127.0.0.1:${cluster.port}/postgres`;
      expect(await keytar.getPassword(service, account)).toBeNull();
      expect(await keytar.getPassword(service, bertils)).toBe(PASSWORD);
      expect(await next.team.disconnect()).toBe(true);
      expect(await keytar.getPassword(service, bertils)).toBeNull();
      expect((await keytar.findCredentials(service)).map((credential) => credential.account)).toEqual([]);
      expect(await next.team.status()).toBeNull();
      await next.dispose();
    } finally {
      await env.cleanup();
    }
  });
});
