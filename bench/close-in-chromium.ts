import { clickAndWait, onBridgePage, typeAndWait } from './bridge-page';

/** What is searched among the changes: a word of one of the twin's products, in a share of them. */
const SEARCHED = 'storage';
/** The pause between two characters typed (a brisk typist). */
const TYPING_PAUSE_MS = 80;

/** Closing a month in the app, as a person waits for it (ms, click → answer painted, timed in the page). */
export interface CloseFigures {
  /** *Close the month* clicked → its open exceptions painted (the checks). */
  checksMs: number;
  /** *Compare with last month* clicked (right after) → the bridges and the first changes painted, with their count (the comparison). */
  compareMs: number;
  /** The count of changes, as the screen says it. */
  changes: string;
  /** *Effect on sales* clicked → every change sorted by it (in the ledger) and the top rows painted. */
  sortMs: number;
  /** A word typed in the changes' search a character at a time → from its last keystroke until the changes holding it are counted and painted. */
  searchMs: number;
  /** The count the search shows, as the screen says it. */
  found: string;
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
    const sort = await clickAndWait(page, {
      selector: '[role="grid"][aria-label="Changes"] [role="columnheader"] button',
      text: 'Effect on sales',
      done: '[role="grid"][aria-label="Changes"] [role="columnheader"][aria-sort="descending"]',
      answered: 'Effect on sales',
    });
    const search = await typeAndWait(page, {
      input: 'input[aria-label="Search changes"]',
      text: SEARCHED,
      done: '[data-testid="change-count"]',
      pauseMs: TYPING_PAUSE_MS,
    });
    return { checksMs: checks.ms, compareMs: compare.ms, changes: compare.text, sortMs: sort.ms, searchMs: search.ms, found: search.text };
  });
}
