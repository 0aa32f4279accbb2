import { counted } from '@shared/counted';
import { type ConnectionTestProgress, describeConnectionTest } from '@shared/connection-test-progress';
import { channels } from '@shared/contract';
import { type OrganizationInput, type OrganizationSummary } from '@shared/schemas/organization';
import type { ProfileView } from '@shared/schemas/profile';
import { startTwin } from '@twin/server';
import { readOrganizationFile } from './organization-file';
import { DEFAULT_ENV_PREFIX } from '@core';
import { CONNECTION_OPTIONS, describeFlagErrors, EXIT, parse, resolveProfileId, secretsFromEnvironment, UsageError, withContext } from './context';

/** `simulator`: the service twin on loopback until killed; base URL first on stdout, demo credentials on stderr. */
export async function simulatorCommand(args: string[]): Promise<number> {
  const { values } = parse(args, {
    port: { type: 'string', default: '0' },
    organizations: { type: 'string', default: '60' },
    seed: { type: 'string', default: '42' },
    'lines-per-organization': { type: 'string', default: '10' },
    'report-ready-seconds': { type: 'string', default: '5' },
    'token-ttl-seconds': { type: 'string', default: '3600' },
    'no-planted-changes': { type: 'boolean', default: false },
  });
  const number = (name: string, value: unknown) => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 0) throw new UsageError(`--${name} must be a whole number`);
    return parsed;
  };
  const twin = await startTwin({
    port: number('port', values.port),
    organizations: number('organizations', values.organizations),
    seed: number('seed', values.seed),
    linesPerOrganization: number('lines-per-organization', values['lines-per-organization']),
    reportReadyAfterMs: number('report-ready-seconds', values['report-ready-seconds']) * 1000,
    tokenTtlSeconds: number('token-ttl-seconds', values['token-ttl-seconds']),
    plant: !values['no-planted-changes'],
  });
  process.stdout.write(`${twin.baseUrl}\n`);
  const c = twin.credentials;
  process.stderr.write(
    [
      'Closebook service twin (synthetic data). Demo credentials:',
      `  client id    ${c.clientId}`,
      `  API secret   ${c.apiSecret}`,
      `  username     ${c.username}`,
      `  password     ${c.password}`,
      `  reseller id  ${c.resellerId}`,
      `  seller id    ${c.sellerId}`,
      `Fault injection: POST ${twin.baseUrl}/__twin/faults with header x-twin-control: ${twin.controlToken}`,
      `Restate a month: POST ${twin.baseUrl}/__twin/restate {"period":"YYYY-MM"} with the same header`,
      values['no-planted-changes']
        ? 'Months differ only in usage (no planted changes).'
        : 'Each month has planted changes against the month before (turn off with --no-planted-changes).',
      'Stop with Ctrl-C.',
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    const stop = () => void twin.close().then(resolve);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return EXIT.ok;
}

/** Where a profile's secrets are, in words for `profiles list`. */
function secretsWhere(profile: ProfileView): string {
  if (profile.kind === 'demo') return 'public demo credentials';
  if (profile.secretsFromEnv) return `secrets from the environment (${profile.secretsFromEnv.prefix}_API_SECRET, ${profile.secretsFromEnv.prefix}_PASSWORD)`;
  return 'secrets in the OS keychain';
}

/** `profiles list|add|test|remove`. */
export async function profilesCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parse(rest, {
    name: { type: 'string' },
    'base-url': { type: 'string' },
    'client-id': { type: 'string' },
    username: { type: 'string' },
    'reseller-id': { type: 'string' },
    'seller-id': { type: 'string' },
    'secrets-from-env': { type: 'boolean', default: false },
    'env-prefix': { type: 'string' },
  });
  return withContext(values['data-dir'], async (context) => {
    const { profiles } = context.service;
    if (action === 'list') {
      const state = await context.call('profiles:list', {});
      if (values.json) process.stdout.write(`${JSON.stringify(state.profiles, null, 2)}\n`);
      else if (state.profiles.length === 0) process.stderr.write(`No profiles in ${context.dataDir}.\n`);
      else
        for (const profile of state.profiles)
          process.stdout.write(`${profile.name}\t${profile.kind === 'demo' ? '(demo)' : profile.baseUrl}\t${profile.username}\t${secretsWhere(profile)}\n`);
      return EXIT.ok;
    }
    if (action === 'add') {
      const fields = {
        name: values.name,
        baseUrl: values['base-url'],
        clientId: values['client-id'],
        username: values.username,
        resellerId: values['reseller-id'],
        sellerId: values['seller-id'] ?? '',
        ...(values['secrets-from-env'] ? { secretsFromEnv: { prefix: values['env-prefix'] ?? DEFAULT_ENV_PREFIX } } : {}),
      };
      if (values['env-prefix'] && !values['secrets-from-env']) throw new UsageError('--env-prefix goes with --secrets-from-env.');
      const parsed = channels['profiles:save'].input.shape.fields.safeParse(fields);
      if (!parsed.success) throw new UsageError(describeFlagErrors(parsed.error));
      if (parsed.data.secretsFromEnv) {
        // Nothing to store: the secrets are read from the environment each time the profile is used.
        const saved = await context.call('profiles:save', { fields: parsed.data });
        process.stdout.write(`${saved.id}\n`);
        const { prefix } = parsed.data.secretsFromEnv;
        process.stderr.write(
          `Profile "${saved.name}" saved; its secrets are read from ${prefix}_API_SECRET and ${prefix}_PASSWORD each time it is used, and never stored.\n`,
        );
        return EXIT.ok;
      }
      const secrets = secretsFromEnvironment();
      const saved = await context.call('profiles:save', { fields: parsed.data, ...secrets });
      process.stdout.write(`${saved.id}\n`);
      process.stderr.write(`Profile "${saved.name}" saved; its secrets are in the OS keychain.\n`);
      return EXIT.ok;
    }
    if (action === 'remove') {
      const name = positionals[0] ?? values.name;
      if (!name) throw new UsageError('Usage: profiles remove NAME');
      const profile = await profiles.findByName(name);
      if (!profile) throw new UsageError(`No profile named "${name}".`);
      await context.call('profiles:delete', { profileId: profile.id });
      process.stderr.write(`Profile "${profile.name}" and its secrets removed.\n`);
      return EXIT.ok;
    }
    if (action === 'test') {
      const name = positionals[0] ?? values.name;
      if (!name) throw new UsageError('Usage: profiles test NAME');
      const profile = await profiles.findByName(name);
      if (!profile) throw new UsageError(`No profile named "${name}".`);
      // Each step as it happens, as Settings shows it; the count on stdout for scripts.
      const unsubscribe = context.service.events.subscribe((event, payload) => {
        if (event === 'profiles:test-progress') process.stderr.write(`${describeConnectionTest(payload as ConnectionTestProgress, Date.now())}\n`);
      });
      try {
        const result = await context.call('profiles:test', { profileId: profile.id });
        process.stdout.write(`Connected: ${counted(result.organizationCount, 'organization')} (${Math.round(result.elapsedMs)} ms).\n`);
      } finally {
        unsubscribe();
      }
      return EXIT.ok;
    }
    throw new UsageError(
      'Usage: profiles list [--json] | profiles add --name N --base-url URL --client-id ID --username U --reseller-id GUID [--seller-id GUID] | profiles test NAME | profiles remove NAME',
    );
  });
}

function organizationTable(organizations: OrganizationSummary[]): string {
  const rows = organizations.map((organization) => [organization.name, organization.customerNumber ?? '', organization.countryCode ?? '', organization.orgId]);
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => (row[column] as string).length), 4));
  return rows.map((row) => row.map((cell, column) => (column < 3 ? cell.padEnd(widths[column] as number) : cell)).join('  ')).join('\n');
}

/** `orgs list [--json]`, `orgs create --file org.json`. */
export async function organizationsCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  const { values } = parse(rest, { ...CONNECTION_OPTIONS, file: { type: 'string' } });
  if (action !== 'list' && action !== 'create')
    throw new UsageError('Usage: orgs list [--json] | orgs create --file org.json (with --profile NAME or --base-url …)');
  let organization: OrganizationInput | undefined;
  if (action === 'create') {
    if (!values.file) throw new UsageError('orgs create needs --file org.json (the fields of spec §2.1).');
    organization = await readOrganizationFile(values.file);
  }
  return withContext(values['data-dir'], async (context) => {
    const profileId = await resolveProfileId(context, values);
    if (organization) {
      const number = organization.customerNumber;
      if (number) {
        // The service decides, but a finance user wants to know before a second customer gets the same number.
        const taken = (await context.call('organizations:list', { profileId })).find(
          (existing) => existing.customerNumber?.toLowerCase() === number.toLowerCase(),
        );
        if (taken) process.stderr.write(`Warning: customer number ${number} is already used by "${taken.name}" (${taken.orgId}); the service may refuse it.\n`);
      }
      const created = await context.call('organizations:create', { profileId, organization });
      if (values.json) process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
      else if (created.orgId) process.stdout.write(`${created.orgId}\n`);
      process.stderr.write(
        created.orgId ? `Created "${created.name}".\n` : `Created "${created.name}"; the service's answer did not give its id: organizations list shows it.\n`,
      );
      return EXIT.ok;
    }
    const organizations = await context.call('organizations:list', { profileId });
    if (values.json) process.stdout.write(`${JSON.stringify(organizations, null, 2)}\n`);
    else process.stdout.write(`${organizationTable(organizations)}\n`);
    process.stderr.write(`${counted(organizations.length, 'organization')}.\n`);
    return EXIT.ok;
  });
}
