import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createStderrLogger, systemClock } from '@core';
import { MemorySecretStore } from '@testing/memory-secret-store';
import { KeytarSecretStore } from '@main/keychain';
import { createDemoStarter } from '@twin/demo';
import { startHarness } from './server';
import { BUILT_RENDERER_DIR } from './static-dir';

/**
 * Runs the renderer in a browser against the real service code: `npm run harness -- [--port N] [--data-dir DIR]
 * [--keychain]`. Without --keychain secrets stay in memory (tests); the data folder defaults to a new temporary one,
 * removed when the harness stops — so `npm run demo` opens on the first start (*Try the demo service*) every time
 * and leaves nothing behind. It prints a one-time link: the browser that opens it gets this run's session.
 */
async function main() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      'data-dir': { type: 'string' },
      'static-dir': { type: 'string', default: BUILT_RENDERER_DIR },
      keychain: { type: 'boolean', default: false },
    },
  });
  const demo = createDemoStarter();
  const temporary = values['data-dir'] ? null : mkdtempSync(join(tmpdir(), 'closebook-harness-'));
  const harness = await startHarness({
    port: Number(values.port),
    staticDir: values['static-dir'] as string,
    ports: {
      dataDir: values['data-dir'] ?? (temporary as string),
      secrets: values.keychain ? new KeytarSecretStore() : new MemorySecretStore(),
      fetch: (input, init) => fetch(input, init),
      clock: systemClock,
      log: createStderrLogger('closebook-harness'),
      startDemoService: demo.start,
      appVersion: process.env.npm_package_version ?? '0.0.0',
    },
  });
  // The one-time link (its first line is all scripts/demo.mjs reads): opening it is how a browser gets in.
  process.stdout.write(`${harness.link}\n`);
  const stop = async () => {
    await harness.close();
    await demo.stop();
    if (temporary) rmSync(temporary, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

void main();
