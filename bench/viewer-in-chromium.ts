import { join } from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { silentLogger, systemClock } from '@core';
import { MemorySecretStore } from '@testing/memory-secret-store';
import { startHarness } from '@harness/server';

export interface ViewerFigures {
  openMs: number;
  keystrokeMs: number;
  samples: number;
  /** Each keystroke, in the order typed (ms). */
  keystrokes: number[];
  domRows: number;
}

/** What the benchmark types: 20 keystrokes, from the first letter of a word (the broadest filter) to the whole word. */
const KEYSTROKE_WORDS = ['micro', 'azure', 'backup', 'desk'];

/** Sets the search text as typing does (an input event) and resolves with the ms until its answer is painted. */
function typeAndWait(page: Page, text: string): Promise<number> {
  return page.evaluate(async (typed) => {
    const input = document.querySelector<HTMLInputElement>('input[aria-label="Search text"]');
    const count = document.querySelector<HTMLElement>('[data-testid="line-count"]');
    if (!input || !count) throw new Error('The viewer has no text filter or line count.');
    const started = performance.now();
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set?.call(input, typed);
    input.dispatchEvent(new Event('input', { bubbles: true }));
    // No named functions in here: the bench's TypeScript loader would name them with a helper the page lacks.
    await new Promise<void>((resolve, reject) => {
      if (count.dataset.forText === typed) return resolve();
      const timer = setTimeout(() => reject(new Error(`No answer for "${typed}" within 30 s.`)), 30_000);
      new MutationObserver((_, observer) => {
        if (count.dataset.forText !== typed) return;
        observer.disconnect();
        clearTimeout(timer);
        resolve();
      }).observe(count, { attributes: true });
    });
    // The frame that shows it: after the next animation frame, once the browser has painted (a message runs after it).
    await new Promise<void>((resolve) =>
      requestAnimationFrame(() => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => resolve();
        channel.port2.postMessage(null);
      }),
    );
    return performance.now() - started;
  }, text);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * The viewer as a person feels it: Debian's Chromium, through the browser bridge, on the data folder the CLI just
 * filled. Open = click "Open" until the first tree rows are painted; keystroke = one character typed into the text
 * filter until the rows and line count that answer it are painted.
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
    await page.goto(harness.link); // the bridge's one-time link: it answers only the browser that opened it
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Reports' }).click();
    const saved = page.getByTestId('saved-report').first(); // the data folder holds this one report
    await saved.waitFor();
    const started = Date.now();
    await saved.getByRole('button', { name: 'Open', exact: true }).click();
    const tree = page.getByRole('treegrid', { name: 'Billing report' });
    await tree.getByRole('row', { level: 1 }).first().waitFor();
    const openMs = Date.now() - started;

    // Keystrokes as a person types them — word after word, a character at a time, each answered before the next —
    // timed inside the page: from the input event to the frame after the line count says it answers that text.
    const samples: number[] = [];
    for (const word of KEYSTROKE_WORDS) {
      for (let length = 1; length <= word.length; length++) samples.push(await typeAndWait(page, word.slice(0, length)));
      await typeAndWait(page, ''); // cleared between words (not counted)
    }
    const domRows = await page.locator('[role="treegrid"] [role="row"]').count();
    return { openMs, keystrokeMs: median(samples), samples: samples.length, keystrokes: samples.map(Math.round), domRows };
  } finally {
    await browser.close();
    await harness.close();
  }
}
