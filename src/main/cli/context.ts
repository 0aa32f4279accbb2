import { createHash } from 'node:crypto';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { z } from 'zod';
import { AppError, type ErrorCode } from '../../shared/errors';
import { type Profile, ProfileFields } from '../../shared/schemas/profile';
import { ServiceClient } from '../core/platform/service-client';
import { defaultDataDir } from '../core/platform/data-dir';
import { createStderrLogger } from '../core/platform/log';
import { systemClock } from '../core/platform/ports';
import { createService, type Service } from '../core/service';
import { KeytarSecretStore } from '../keychain';
import { createDemoStarter } from '../twin/demo';

/** Exit codes: 0 done; 1 usage or validation; 2 authentication, network or service (see README). */
export const EXIT = { ok: 0, usage: 1, service: 2 } as const;

export class UsageError extends Error {}

export function exitCodeFor(code: ErrorCode): number {
  return code === 'validation' ? EXIT.usage : EXIT.service;
}

export interface CliContext {
  service: Service;
  dataDir: string;
  close(): Promise<void>;
}

export function createCliContext(dataDir: string | undefined): CliContext {
  const demo = createDemoStarter();
  const directory = dataDir ?? defaultDataDir();
  const service = createService({
    dataDir: directory,
    secrets: new KeytarSecretStore(),
    fetch: (input, init) => fetch(input, init),
    clock: systemClock,
    log: createStderrLogger(),
    startDemoService: demo.start,
    appVersion: process.env.npm_package_version ?? '0.0.0',
    host: 'cli',
  });
  return {
    service,
    dataDir: directory,
    close: async () => {
      await service.dispose();
      await demo.stop();
    },
  };
}

export interface ConnectionFlags {
  profile?: string | undefined;
  'base-url'?: string | undefined;
  'client-id'?: string | undefined;
  username?: string | undefined;
  'reseller-id'?: string | undefined;
  'seller-id'?: string | undefined;
}

export const CONNECTION_OPTIONS = {
  profile: { type: 'string' },
  'base-url': { type: 'string' },
  'client-id': { type: 'string' },
  username: { type: 'string' },
  'reseller-id': { type: 'string' },
  'seller-id': { type: 'string' },
} as const;

/** Secrets come only from the environment, never from flags (flags end up in shell history and process lists). */
export function secretsFromEnvironment(env: NodeJS.ProcessEnv = process.env): { apiSecret: string; password: string } {
  const apiSecret = env.CLOSEBOOK_API_SECRET;
  const password = env.CLOSEBOOK_PASSWORD;
  if (!apiSecret || !password) {
    throw new UsageError('Set CLOSEBOOK_API_SECRET and CLOSEBOOK_PASSWORD in the environment (secrets are never taken as flags).');
  }
  return { apiSecret, password };
}

/** The client for `--profile NAME`, or for the inline --base-url … flags with secrets from the environment. */
export async function resolveClient(context: CliContext, flags: ConnectionFlags): Promise<{ client: ServiceClient; profileId?: string }> {
  if (flags.profile) {
    const profile = await context.service.profiles.findByName(flags.profile);
    if (!profile) throw new UsageError(`No profile named "${flags.profile}". See: closebook profiles list`);
    return { client: await context.service.clientFor(profile), profileId: profile.id };
  }
  if (!flags['base-url']) throw new UsageError('Say which service to use: --profile NAME, or --base-url URL --client-id ID --username NAME --reseller-id GUID [--seller-id GUID].');
  const parsed = ProfileFields.safeParse({
    name: 'inline',
    baseUrl: flags['base-url'],
    clientId: flags['client-id'],
    username: flags.username,
    resellerId: flags['reseller-id'],
    sellerId: flags['seller-id'] ?? '',
  });
  if (!parsed.success) throw new UsageError(describeFlagErrors(parsed.error));
  const secrets = secretsFromEnvironment();
  const { name: _name, ...fields } = parsed.data;
  const client = new ServiceClient({ ...fields, readSecrets: async () => secrets }, { fetch: (input, init) => fetch(input, init), clock: systemClock });
  return { client };
}

const FLAG_NAMES: Record<string, string> = { baseUrl: '--base-url', clientId: '--client-id', username: '--username', resellerId: '--reseller-id', sellerId: '--seller-id', name: '--name' };

export function describeFlagErrors(error: z.ZodError): string {
  return error.issues.map((issue) => `${FLAG_NAMES[String(issue.path[0])] ?? String(issue.path[0])} ${issue.message}`).join('; ');
}

export function fail(error: unknown): number {
  if (error instanceof UsageError) {
    process.stderr.write(`closebook: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof AppError) {
    process.stderr.write(`closebook: ${error.message}\n`);
    return exitCodeFor(error.code);
  }
  process.stderr.write(`closebook: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT.service;
}

const COMMON = { 'data-dir': { type: 'string' }, json: { type: 'boolean', default: false } } as const;

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O) {
  const config = { args, options: { ...COMMON, ...options }, allowPositionals: true as const, strict: true as const };
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

export async function withContext<T>(dataDir: string | undefined, run: (context: CliContext) => Promise<T>): Promise<T> {
  const context = createCliContext(dataDir);
  try {
    return await run(context);
  } finally {
    await context.close();
  }
}


/** A stable id for an inline (flag-given) connection, so `report resume` with the same flags finds its jobs. */
function inlineProfileId(client: ServiceClient): string {
  const { baseUrl, clientId, username, resellerId } = client.connection;
  const hex = createHash('sha256').update([baseUrl, clientId, username, resellerId].join('\n')).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The profile a workflow runs under: a saved one (`--profile`), or a stand-in for the inline flags whose id is stable,
 * so `report resume` and the consumption history find the same requests when given the same flags again.
 */
export async function resolveProfile(context: CliContext, flags: ConnectionFlags): Promise<{ profile: Profile; client: ServiceClient }> {
  const resolved = await resolveClient(context, flags);
  if (resolved.profileId) return { profile: await context.service.profiles.get(resolved.profileId), client: resolved.client };
  const { connection } = resolved.client;
  return {
    client: resolved.client,
    profile: {
      id: inlineProfileId(resolved.client),
      name: `${connection.username} (command line)`,
      kind: 'service',
      createdAt: '',
      updatedAt: '',
      baseUrl: connection.baseUrl,
      clientId: connection.clientId,
      username: connection.username,
      resellerId: connection.resellerId,
      sellerId: connection.sellerId,
    },
  };
}
