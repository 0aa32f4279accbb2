import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_CREDENTIALS } from '@twin/credentials';
import { inlineConnection, runCli, useSimulator } from '@testing/cli-test-support';

const simulator = useSimulator(['--organizations', '15']);
const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, simulator.dataDir, env);
const inline = () => inlineConnection(simulator.baseUrl);

describe('closebook CLI', () => {
  it('simulator prints the base URL as its first stdout line', () => {
    expect(simulator.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('orgs list --json lists the twin organizations with the demo credentials', async () => {
    const result = await cli(['orgs', 'list', '--json', ...inline()]);
    expect(result.code).toBe(0);
    const organizations = JSON.parse(result.stdout) as { orgId: string; customerNumber: string }[];
    expect(organizations).toHaveLength(15);
    expect(organizations[0]?.customerNumber).toBe('C-10001');
  });

  it('exits 2 with a one-line message when the password is wrong', async () => {
    const result = await cli(['orgs', 'list', ...inline()], { CLOSEBOOK_PASSWORD: 'wrong' });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/refused the credentials/);
  });

  it('exits 1 for usage errors: no service, bad flags, secrets missing from the environment', async () => {
    expect((await cli(['orgs', 'list'])).code).toBe(1);
    const badGuid = await cli(['orgs', 'list', '--base-url', simulator.baseUrl, '--client-id', 'c', '--username', 'u', '--reseller-id', 'not-a-guid']);
    expect([badGuid.code, badGuid.stderr]).toEqual([1, expect.stringContaining('--reseller-id must be a GUID')]);
    const noSecrets = await cli(['orgs', 'list', ...inline()], { CLOSEBOOK_PASSWORD: '' });
    expect([noSecrets.code, noSecrets.stderr]).toEqual([1, expect.stringContaining('CLOSEBOOK_PASSWORD')]);
    expect((await cli(['nonsense'])).code).toBe(1);
  });

  it('orgs create validates the file (exit 1) and creates a valid one (exit 0)', async () => {
    const bad = join(simulator.dataDir, 'bad-org.json');
    await writeFile(bad, JSON.stringify({ name: 'Bad AB', contact: { email: 'not-an-email' }, address: { countryCode: 'SE' } }));
    const refused = await cli(['orgs', 'create', '--file', bad, ...inline()]);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining('contact.email')]);
    const good = join(simulator.dataDir, 'org.json');
    await writeFile(
      good,
      JSON.stringify({ name: 'Cli Made AB', customerNumber: 'C-CLI-1', contact: { email: 'it@cli.example' }, address: { countryCode: 'se' } }),
    );
    const created = await cli(['orgs', 'create', '--file', good, ...inline()]);
    expect(created.code).toBe(0);
    expect(created.stdout.trim()).toMatch(/^[0-9a-f-]{36}$/);
    expect((await cli(['orgs', 'list', '--json', ...inline()])).stdout).toContain('Cli Made AB');
  });

  it('orgs create takes examples/org.json as the README writes it, and the shape orgs list --json prints, reporting every problem at once', async () => {
    const example = await cli(['orgs', 'create', '--file', 'examples/org.json', ...inline()]);
    expect([example.code, example.stderr]).toEqual([0, expect.stringContaining('Created "Nordlys Analytics AS"')]);

    const listed = (JSON.parse((await cli(['orgs', 'list', '--json', ...inline()])).stdout) as Record<string, unknown>[]).find(
      (organization) => organization.name === 'Nordlys Analytics AS',
    );
    expect(listed).toBeDefined();
    const copy = join(simulator.dataDir, 'listed-org.json');
    // Copied from the list as it is: its orgId is refused, and its customer number is reported as taken.
    await writeFile(copy, JSON.stringify([{ ...listed, name: 'Nordlys Analytics Sverige AB', contactEmail: 'not-an-email', countryCode: 'Sverige' }]));
    const refused = await cli(['orgs', 'create', '--file', copy, ...inline()]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/3 problems/);
    expect(refused.stderr).toMatch(/orgId: this is an existing organization's id/);
    expect(refused.stderr).toMatch(/contact\.email: /);
    expect(refused.stderr).toMatch(/address\.countryCode: /);

    const { orgId: _orgId, ...withoutId } = listed as Record<string, unknown>;
    await writeFile(copy, JSON.stringify({ ...withoutId, name: 'Nordlys Analytics Sverige AB', countryCode: 'SE' }));
    const created = await cli(['orgs', 'create', '--file', copy, ...inline()]);
    expect(created.stderr).toContain('customer number C-20001 is already used by "Nordlys Analytics AS"');
  }, 60_000);

  it('consumption validate accepts examples/consumption.csv as the README writes it', async () => {
    const result = await cli(['consumption', 'validate', '--file', 'examples/consumption.csv']);
    expect([result.code, result.stderr]).toEqual([0, expect.stringContaining('4 records are valid')]);
  });

  it('with no keychain, a profile with --secrets-from-env reads its secrets from the environment at each use and lists organizations', async () => {
    // The CLI runs here with no D-Bus session, so there is no keychain: a keychain profile cannot be saved.
    const connection = [
      '--base-url',
      simulator.baseUrl,
      '--client-id',
      DEMO_CREDENTIALS.clientId,
      '--username',
      DEMO_CREDENTIALS.username,
      '--reseller-id',
      DEMO_CREDENTIALS.resellerId,
    ];
    const keychain = await cli(['profiles', 'add', '--name', 'Keychain', ...connection]);
    expect(keychain.code).toBe(2);
    const noSecrets = { CLOSEBOOK_API_SECRET: '', CLOSEBOOK_PASSWORD: '' };
    const added = await cli(['profiles', 'add', '--name', 'Nightly', ...connection, '--secrets-from-env', '--env-prefix', 'ACME'], noSecrets);
    expect([added.code, added.stderr]).toEqual([
      0,
      expect.stringContaining('read from ACME_API_SECRET and ACME_PASSWORD each time it is used, and never stored'),
    ]);
    expect((await cli(['profiles', 'list'], noSecrets)).stdout).toMatch(/Nightly\t.*\tsecrets from the environment \(ACME_API_SECRET, ACME_PASSWORD\)/);

    const listed = await cli(['orgs', 'list', '--json', '--profile', 'Nightly'], {
      ...noSecrets,
      ACME_API_SECRET: DEMO_CREDENTIALS.apiSecret,
      ACME_PASSWORD: DEMO_CREDENTIALS.password,
    });
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout || '[]') as unknown[]).length).toBeGreaterThanOrEqual(15); // the twin's, and those other tests created
    const tested = await cli(['profiles', 'test', 'Nightly'], {
      ...noSecrets,
      ACME_API_SECRET: DEMO_CREDENTIALS.apiSecret,
      ACME_PASSWORD: DEMO_CREDENTIALS.password,
    });
    expect([tested.code, tested.stdout]).toEqual([0, expect.stringMatching(/^Connected: \d+ organizations \(\d+ ms\)\.\n$/)]);
    expect(tested.stderr).toMatch(/^Signing in \(0 s\)\nSigned in — getting the organization list \(\d+ s\)\n/);
    const missing = await cli(['orgs', 'list', '--profile', 'Nightly'], { ...noSecrets, ACME_API_SECRET: DEMO_CREDENTIALS.apiSecret });
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining('ACME_PASSWORD is not set')]);
    expect((await cli(['profiles', 'add', '--name', 'Bad', ...connection, '--secrets-from-env', '--env-prefix', 'acme-1'], noSecrets)).stderr).toContain(
      'capital letters',
    );
  }, 60_000);

  it('exits 2 when the service cannot be reached', async () => {
    const result = await cli([
      'orgs',
      'list',
      '--base-url',
      'http://127.0.0.1:9',
      '--client-id',
      'c',
      '--username',
      'u',
      '--reseller-id',
      DEMO_CREDENTIALS.resellerId,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Cannot reach the service/);
  }, 30_000);
});
