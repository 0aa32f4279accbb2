import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { silentLogger, systemClock } from '@core';
import { MemorySecretStore } from '@testing/memory-secret-store';
import { startHarness } from '@harness/server';

export interface ViewerFigures {
  openMs: number;
  keystrokeMs: number;
  samples: number;
  domRows: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * The viewer as a person feels it: Debian's Chromium, through the browser bridge, on the data folder the CLI just
 * filled. Open = click "Open" until the first tree rows are painted; keystroke = one character typed into the text
 * filter until the line count and rows it changes are painted (two animation frames after the DOM settles).
 */
export async function measureViewerInChromium(dataDir: string): Promise<ViewerFigures> {
  const harness = await startHarness({
    staticDir: join(process.cwd(), 'out', 'renderer'),
    ports: {
      dataDir,
      secrets: new MemorySecretStore(),
      fetch: (input, init) => fetch(input, init),
      clock: systemClock,
      log: silentLogger,
      startDemoService: async () => Promise.reject(new Error('no demo in the benchmark')),
      appVersion: 'bench',
    },
  });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(harness.url);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Reports' }).click();
    const saved = page.getByTestId('saved-report').first(); // the data folder holds this one report
    await saved.waitFor();
    let started = Date.now();
    await saved.getByRole('button', { name: 'Open', exact: true }).click();
    const tree = page.getByRole('treegrid', { name: 'Billing report' });
    await tree.getByRole('row', { level: 1 }).first().waitFor();
    const openMs = Date.now() - started;

    const filter = page.getByRole('searchbox', { name: 'Search text' });
    const count = page.getByTestId('line-count');
    const samples: number[] = [];
    // Each text gives another line count than the one before, so "painted" is when the count changes.
    for (const text of ['stor', 'micro', 'azure', 'backup', 'dyn', 'plan', 'office', 'work', 'desk']) {
      const before = await count.textContent();
      started = Date.now();
      await filter.fill(text);
      const changed = await page
        .waitForFunction((previous) => document.querySelector('[data-testid="line-count"]')?.textContent !== previous, before, { timeout: 15_000 })
        .then(
          () => true,
          () => false,
        );
      if (!changed) continue; // same count by chance: no sample
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      samples.push(Date.now() - started);
    }
    const domRows = await page.locator('[role="treegrid"] [role="row"]').count();
    return { openMs, keystrokeMs: median(samples), samples: samples.length, domRows };
  } finally {
    await browser.close();
    await harness.close();
  }
}
