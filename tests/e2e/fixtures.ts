import { test as base } from '@playwright/test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemorySecretStore, silentLogger, systemClock } from '../../src/main/core';
import { startHarness, type Harness } from '../../src/main/harness/server';
import { createDemoStarter } from '../../src/main/twin/demo';
import type { Twin, TwinOptions } from '../../src/main/twin/server';

export interface BridgeHost {
  harness: Harness;
  dataDir: string;
  /** The demo twin's address (started on first use). */
  twinUrl(): Promise<string>;
  /** Stops the bridge (as closing the app would) and starts a new one on the same data folder and address. */
  restart(): Promise<Harness>;
  /** Saves a profile named `name` for `twin` (its seller id included) and makes it the active one; returns its id. */
  useProfileFor(twin: Twin, name: string): Promise<string>;
}

/** A fresh bridge per test: its own data folder, in-memory secrets, and a demo twin that answers quickly. */
export async function startBridge(twinOptions: TwinOptions = {}): Promise<BridgeHost & { stop(): Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'closebook-e2e-'));
  const demo = createDemoStarter({ reportReadyAfterMs: 2_000, reportReadyAfterPolls: 2, taskQueuedMs: 500, taskProcessingMs: 1_000, ...twinOptions });
  const secrets = new MemorySecretStore();
  const launch = (port?: number) =>
    startHarness({
      ...(port ? { port } : {}),
      staticDir: join(process.cwd(), 'out', 'renderer'),
      ports: { dataDir, secrets, fetch: (input, init) => fetch(input, init), clock: systemClock, log: silentLogger, startDemoService: demo.start, appVersion: '0.0.0-e2e' },
    });
  const host = {
    harness: await launch(),
    dataDir,
    twinUrl: async () => (await demo.start()).baseUrl,
    useProfileFor: async (twin: Twin, name: string) => {
      const { apiSecret, password, ...connection } = twin.credentials;
      const service = host.harness.service;
      const { id } = await service.handlers['profiles:save']({ fields: { name, baseUrl: twin.baseUrl, ...connection }, apiSecret, password });
      await service.handlers['profiles:set-active']({ profileId: id });
      return id;
    },
    restart: async () => {
      const port = Number(new URL(host.harness.url).port);
      await host.harness.close();
      host.harness = await launch(port);
      return host.harness;
    },
    stop: async () => {
      await host.harness.close();
      await demo.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return host;
}

export const test = base.extend<{ twinOptions: TwinOptions; bridge: BridgeHost }>({
  twinOptions: [{}, { option: true }],
  bridge: async ({ twinOptions }, use) => {
    const host = await startBridge(twinOptions);
    await use(host);
    await host.stop();
  },
});

export { expect } from '@playwright/test';
