import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { z } from 'zod';
import { AppError } from '@shared/errors';
import { ProfileFields } from '@shared/schemas/profile';
import { cliFetch } from './proxy';
import type { ChannelInput, ChannelName, ChannelOutput } from '@shared/contract';
import { createService, createStderrLogger, DEFAULT_ENV_PREFIX, defaultDataDir, dispatch, type Ports, type Service, systemClock } from '@core';
import { KeytarSecretStore } from '@main/keychain';
import { createDemoStarter } from '@twin/demo';
import { UsageError } from './exit';
import { errorMessage } from '@shared/error-message';

export { EXIT, exitCodeFor, fail, UsageError } from './exit';

export interface CliContext {
  service: Service;
  dataDir: string;
  /**
   * Calls a contract channel as every host does: through dispatch, so the contract's schema checks the input and
   * the output; a refusal is thrown as the AppError it carries (its code decides the exit code).
   */
  call<C extends ChannelName>(channel: C, input: ChannelInput<C>): Promise<ChannelOutput<C>>;
  close(): Promise<void>;
}

export function createCliContext(dataDir: string | undefined, pollIntervals?: Ports['pollIntervals']): CliContext {
  const demo = createDemoStarter();
  const directory = dataDir ?? defaultDataDir();
  const log = createStderrLogger();
  const service = createService({
    dataDir: directory,
    secrets: new KeytarSecretStore(),
    fetch: cliFetch(),
    clock: systemClock,
    log,
    startDemoService: demo.start,
    appVersion: process.env.npm_package_version ?? '0.0.0',
    host: 'cli',
    environment: process.env,
    ...(pollIntervals ? { pollIntervals } : {}),
  });
  // The first command after an upgrade moves the reports saved by earlier versions into the ledger: say so.
  service.events.subscribe((event, payload) => {
    if (event === 'reports:migration' && 'done' in payload) process.stderr.write(`Moving saved reports into the ledger: ${payload.done} of ${payload.total}\n`);
  });
  return {
    service,
    dataDir: directory,
    call: async (channel, input) => {
      const reply = await dispatch(service, channel, input, log);
      if (!reply.ok) throw new AppError(reply.error.code, reply.error.message, reply.error.fields);
      return reply.data as never;
    },
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
  const names = { apiSecret: `${DEFAULT_ENV_PREFIX}_API_SECRET`, password: `${DEFAULT_ENV_PREFIX}_PASSWORD` };
  const apiSecret = env[names.apiSecret];
  const password = env[names.password];
  if (!apiSecret || !password) {
    throw new UsageError(`Set ${names.apiSecret} and ${names.password} in the environment (secrets are never taken as flags).`);
  }
  return { apiSecret, password };
}

/**
 * The profile a service command runs under: a saved one (`--profile NAME`), or the inline --base-url … flags as a
 * profile for this run only, with its secrets read from the environment (never from flags).
 */
export async function resolveProfileId(context: CliContext, flags: ConnectionFlags): Promise<string> {
  if (flags.profile) {
    const profile = await context.service.profiles.findByName(flags.profile);
    if (!profile) throw new UsageError(`No profile named "${flags.profile}". See: closebook profiles list`);
    return profile.id;
  }
  if (!flags['base-url'])
    throw new UsageError('Say which service to use: --profile NAME, or --base-url URL --client-id ID --username NAME --reseller-id GUID [--seller-id GUID].');
  const parsed = ProfileFields.safeParse({
    name: 'inline',
    baseUrl: flags['base-url'],
    clientId: flags['client-id'],
    username: flags.username,
    resellerId: flags['reseller-id'],
    sellerId: flags['seller-id'] ?? '',
  });
  if (!parsed.success) throw new UsageError(describeFlagErrors(parsed.error));
  const { name: _name, ...fields } = parsed.data;
  try {
    return context.service.profiles.useEphemeral(fields, { kind: 'environment', prefix: DEFAULT_ENV_PREFIX });
  } catch (error) {
    throw error instanceof AppError ? new UsageError(error.message) : error;
  }
}

const FLAG_NAMES: Record<string, string> = {
  baseUrl: '--base-url',
  clientId: '--client-id',
  username: '--username',
  resellerId: '--reseller-id',
  sellerId: '--seller-id',
  name: '--name',
};

export function describeFlagErrors(error: z.ZodError): string {
  return error.issues.map((issue) => `${FLAG_NAMES[String(issue.path[0])] ?? String(issue.path[0])} ${issue.message}`).join('; ');
}

const COMMON = { 'data-dir': { type: 'string' }, json: { type: 'boolean', default: false } } as const;

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O) {
  const config = { args, options: { ...COMMON, ...options }, allowPositionals: true as const, strict: true as const };
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}

export async function withContext<T>(
  dataDir: string | undefined,
  run: (context: CliContext) => Promise<T>,
  pollIntervals?: Ports['pollIntervals'],
): Promise<T> {
  const context = createCliContext(dataDir, pollIntervals);
  try {
    return await run(context);
  } finally {
    await context.close();
  }
}
