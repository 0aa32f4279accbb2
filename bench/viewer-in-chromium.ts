import type { Page } from '@playwright/test';
import { type AfterPaint, clickAndWait, onBridgePage } from './bridge-page';
import { median } from './median';

/**
 * Where a keystroke's time goes, each phase the median over the keystrokes (ms): `request`, from the input event until
 * the window's request leaves (the keystroke's own render); `answer`, the request through the bridge, made in the
 * main process and back (Resource Timing); `render`, until the answer's line count is in the page; `paint`, until the
 * frame after it is painted.
 */
export interface KeystrokePhases {
  request: number;
  answer: number;
  render: number;
  paint: number;
}

export interface ViewerFigures {
  openMs: number;
  keystrokeMs: number;
  phases: KeystrokePhases;
  samples: number;
  /** Each keystroke, in the order typed (ms). */
  keystrokes: number[];
  /** A call that does next to nothing (`app:info`) through the browser bridge and back, in the page (median of 20, ms). */
  bridgeMs: number;
  domRows: number;
}

/** What the benchmark types: 20 keystrokes, from the first letter of a word (the broadest filter) to the whole word. */
const KEYSTROKE_WORDS = ['micro', 'azure', 'backup', 'desk'];
/** The text in the filter after each of the 20 keystrokes, in the order typed. */
export const KEYSTROKE_TEXTS = KEYSTROKE_WORDS.flatMap((word) => [...word].map((_, index) => word.slice(0, index + 1)));

/**
 * Sets the search text as typing does (an input event) and resolves with the ms until its answer is painted, and
 * that time's phases (KeystrokePhases; null when the answer came without a request: the text asked before).
 */
function typeAndWait(page: Page, text: string): Promise<{ ms: number; phases: KeystrokePhases | null }> {
  return page.evaluate(async (typed) => {
    const input = document.querySelector<HTMLInputElement>('input[aria-label="Search text"]');
    const count = document.querySelector<HTMLElement>('[data-testid="line-count"]');
    if (!input || !count) throw new Error('The viewer has no text filter or line count.');
    performance.clearResourceTimings();
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
    const shown = performance.now();
    await (window as unknown as AfterPaint).afterPaint();
    const painted = performance.now();
    const asked = performance
      .getEntriesByType('resource')
      .filter((entry) => entry.name.includes('/bridge/invoke/reports%3Awindow'))
      .at(-1) as PerformanceResourceTiming | undefined;
    const phases = asked
      ? { request: asked.startTime - started, answer: asked.responseEnd - asked.startTime, render: shown - asked.responseEnd, paint: painted - shown }
      : null;
    return { ms: painted - started, phases };
  }, text);
}

/**
 * Clicks the first saved month's Open button as a person does (a click event) and resolves with the ms until its
 * first tree rows are painted — timed inside the page, as a keystroke is: Playwright's own click waits for the
 * button to be stable and its waits poll, which added up to a tenth of a second that no one sees.
 */
async function openAndWait(page: Page): Promise<number> {
  const opened = await clickAndWait(page, {
    selector: '[data-testid="saved-report"] button',
    text: 'Open',
    done: '[role="treegrid"][aria-label="Billing report"] [role="row"][aria-level="1"]',
    answered: '',
    timeoutMs: 30_000,
  });
  return opened.ms;
}

/**
 * One call through the browser bridge that does next to nothing (`app:info`), from the page and back: what every
 * keystroke's request costs beside the answer's own making (Electron's IPC, which the desktop app uses, costs less).
 */
function bridgeRoundTrip(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const started = performance.now();
    const response = await fetch('/bridge/invoke/app:info', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    if (!response.ok) throw new Error(`The bridge answered ${response.status}.`);
    await response.json();
    return performance.now() - started;
  });
}

/**
 * The viewer as a person feels it: Debian's Chromium, through the browser bridge, on the data folder the CLI just
 * filled. Open = click "Open" until the first tree rows are painted; keystroke = one character typed into the text
 * filter until the rows and line count that answer it are painted. Both are timed inside the page, from the event to
 * the frame after the answer is painted.
 */
export async function measureViewerInChromium(dataDir: string): Promise<ViewerFigures> {
  return onBridgePage(dataDir, async (page) => {
    const openMs = await openAndWait(page);
    await page.getByRole('treegrid', { name: 'Billing report' }).getByRole('row', { level: 1 }).first().waitFor(); // the same rows, as Playwright sees them

    // Keystrokes as a person types them — word after word, a character at a time, each answered before the next —
    // timed inside the page: from the input event to the frame after the line count says it answers that text.
    const typed: Awaited<ReturnType<typeof typeAndWait>>[] = [];
    for (const word of KEYSTROKE_WORDS) {
      for (let length = 1; length <= word.length; length++) typed.push(await typeAndWait(page, word.slice(0, length)));
      await typeAndWait(page, ''); // cleared between words (not counted)
    }
    const samples = typed.map((keystroke) => keystroke.ms);
    const timed = typed.flatMap((keystroke) => keystroke.phases ?? []);
    if (!timed.length) throw new Error("No keystroke's request to the main process was seen in the page's Resource Timing.");
    const phaseMedian = (phase: keyof KeystrokePhases) => median(timed.map((keystroke) => keystroke[phase]));
    const phases = { request: phaseMedian('request'), answer: phaseMedian('answer'), render: phaseMedian('render'), paint: phaseMedian('paint') };
    const domRows = await page.locator('[role="treegrid"] [role="row"]').count();
    const trips: number[] = [];
    for (let trip = 0; trip < 20; trip++) trips.push(await bridgeRoundTrip(page));
    return {
      openMs,
      keystrokeMs: median(samples),
      phases,
      samples: samples.length,
      keystrokes: samples.map(Math.round),
      domRows,
      bridgeMs: median(trips),
    };
  });
}
