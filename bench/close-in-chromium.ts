import type { Page } from '@playwright/test';
import { type AfterPaint, onBridgePage } from './bridge-page';

/** Closing a month in the app, as a person waits for it (ms, click → answer painted, timed in the page). */
export interface CloseFigures {
  /** *Close the month* clicked → its open exceptions painted (the checks). */
  checksMs: number;
  /** *Compare with last month* clicked (right after) → the count of changes painted (the comparison). */
  compareMs: number;
  /** The count of changes shown, as the screen says it. */
  changes: string;
}

/** What a click is on (the first element of `selector` whose trimmed text is `text`) and what answers it (the first of `done` whose text matches `answered`). */
interface ClickAndAnswer {
  selector: string;
  text: string;
  done: string;
  answered: string;
}

/**
 * Clicks as a person does (a click event) and resolves with the ms until the answer is painted, and the answer's
 * text. A wait of over two minutes is a failure.
 */
function clickAndWait(page: Page, step: ClickAndAnswer): Promise<{ ms: number; text: string }> {
  // No named functions in here: the bench's TypeScript loader would name them with a helper the page lacks.
  return page.evaluate(async ({ selector, text, done, answered }) => {
    const target = [...document.querySelectorAll<HTMLElement>(selector)].find((candidate) => candidate.textContent?.trim() === text);
    if (!target) throw new Error(`Nothing to click: no ${selector} reads "${text}".`);
    const pattern = new RegExp(answered);
    const started = performance.now();
    target.click();
    const shown = await new Promise<HTMLElement>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`No ${done} reading /${answered}/ within two minutes of "${text}".`)), 120_000);
      new MutationObserver((_, observer) => {
        const element = [...document.querySelectorAll<HTMLElement>(done)].find((candidate) => pattern.test(candidate.textContent ?? ''));
        if (!element) return;
        observer.disconnect();
        clearTimeout(timer);
        resolve(element);
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    });
    await (window as unknown as AfterPaint).afterPaint();
    return { ms: performance.now() - started, text: shown.textContent?.trim() ?? '' };
  }, step);
}

/**
 * The Close screen of the saved month named `month` (its list entry holds that text), as a person opens it: the
 * month opened, *Close the month* clicked until its open exceptions are painted, then *Compare with last month*
 * until the count of its changes is. Whatever the ledger keeps for that month (checks, a comparison) is used, as the
 * app uses it: on a ledger that keeps none, this is the month's first close.
 */
export async function measureCloseInChromium(dataDir: string, month: string): Promise<CloseFigures> {
  return onBridgePage(dataDir, async (page) => {
    await page.getByTestId('saved-report').filter({ hasText: month }).getByRole('button', { name: 'Open', exact: true }).click();
    await page.getByRole('treegrid', { name: 'Billing report' }).getByRole('row', { level: 1 }).first().waitFor({ timeout: 120_000 });
    const checks = await clickAndWait(page, {
      selector: '[role="group"][aria-label="View"] button',
      text: 'Close the month',
      done: '[data-testid="open-counts"]',
      answered: '\\S',
    });
    const compare = await clickAndWait(page, {
      selector: '[role="tab"]',
      text: 'Compare with last month',
      done: '[data-testid="change-count"]',
      answered: '\\d changes?$',
    });
    return { checksMs: checks.ms, compareMs: compare.ms, changes: compare.text };
  });
}
