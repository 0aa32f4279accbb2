import { type BrowserContext, test as base } from '@playwright/test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger, systemClock } from '@core';
import { MemorySecretStore } from '@testing/memory-secret-store';
import { startHarness, type Harness } from '@harness/server';
import { createDemoStarter } from '@twin/demo';
import type { Twin, TwinOptions } from '@twin/server';

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

/**
 * A fresh bridge per test: its own data folder, in-memory secrets, and a demo twin that answers quickly. With a
 * browser context, each bridge's one-time link is opened in it (as the user would), so its pages have the session.
 */
export async function startBridge(twinOptions: TwinOptions = {}, context?: BrowserContext): Promise<BridgeHost & { stop(): Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'closebook-e2e-'));
  const demo = createDemoStarter({ reportReadyAfterMs: 2_000, reportReadyAfterPolls: 2, taskQueuedMs: 500, taskProcessingMs: 1_000, ...twinOptions });
  const secrets = new MemorySecretStore();
  const launch = async (port?: number) => {
    const harness = await startHarness({
      ...(port ? { port } : {}),
      staticDir: join(process.cwd(), 'out', 'renderer'),
      ports: {
        dataDir,
        secrets,
        fetch: (input, init) => fetch(input, init),
        clock: systemClock,
        log: silentLogger,
        startDemoService: demo.start,
        appVersion: '0.0.0-e2e',
      },
    });
    // The context's request shares its cookie jar: the session cookie the link sets is the page's.
    if (context && !(await context.request.get(harness.link, { maxRedirects: 0 })).headers()['set-cookie'])
      throw new Error('The bridge gave no session for its link.');
    return harness;
  };
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
  bridge: async ({ twinOptions, context }, use) => {
    const host = await startBridge(twinOptions, context);
    await use(host);
    await host.stop();
  },
});

export { expect } from '@playwright/test';
