import { expect, type Locator, type Page } from '@playwright/test';
import { ViewerPage } from './viewer-page';

/** The window sizes every screen is looked at in: a desktop, and the smallest Closebook is laid out for. */
export const WIDE = { width: 1440, height: 900 };
export const NARROW = { width: 1024, height: 700 };
export const SCREEN_SIZES = [WIDE, NARROW];

/**
 * The placeholders on screen that their empty field cuts: each field given its placeholder as its value for a moment
 * (no input event, so the app sees nothing), and its text wider than the room the field gives it — a search field's
 * clear button takes its place at the end, filled or not. A placeholder says what to type; cut, it says part of it.
 */
export async function cutPlaceholders(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const cut: string[] = [];
    for (const field of document.querySelectorAll<HTMLInputElement>('input[placeholder]:placeholder-shown')) {
      const box = field.getBoundingClientRect();
      if (!box.width || box.right > window.innerWidth || box.bottom > window.innerHeight) continue;
      field.value = field.placeholder;
      const over = field.scrollWidth - field.clientWidth;
      field.value = '';
      if (over > 0) cut.push(`${field.placeholder} (${over} px too narrow)`);
    }
    return cut;
  });
}

/** Page model of the shell and the Settings (profiles) and Organizations screens. */
export class ClosebookPage {
  constructor(readonly page: Page) {}

  /** The main navigation. */
  get navigation(): Locator {
    return this.page.getByRole('navigation', { name: 'Main' });
  }

  nav(name: 'Reports' | 'Consumption' | 'Organizations' | 'Settings'): Locator {
    return this.navigation.getByRole('button', { name });
  }

  /** A button anywhere on the page, by its name (a string matches a part of it). */
  button(name: string | RegExp): Locator {
    return this.page.getByRole('button', { name });
  }

  /** The link from the request form to the open report (shown once focused). */
  get skipToReport(): Locator {
    return this.page.getByRole('link', { name: 'Skip to the open report' });
  }

  /** With a report open in a narrow window the list of reports steps aside: shows it again if so. */
  async showReportList(): Promise<void> {
    const showList = this.button('Show the list of reports');
    if (await showList.isVisible()) await showList.click();
  }

  async open(url: string): Promise<void> {
    await this.page.goto(url);
  }

  async startDemo(): Promise<void> {
    await this.page.getByRole('button', { name: 'Try the demo service' }).first().click();
    await this.page.getByRole('table', { name: 'Profiles' }).getByText('Demo', { exact: true }).waitFor();
  }

  /** Requests last month on the Reports screen and waits until it is saved (the twin's size sets how long). */
  async requestReport(timeout: number): Promise<void> {
    await this.nav('Reports').click();
    await this.page.getByRole('button', { name: 'Request report' }).click();
    await this.page.getByTestId('saved-report').first().waitFor({ timeout });
  }

  field(form: Locator, label: string): Locator {
    return form.getByRole('textbox', { name: label, exact: true });
  }
}

/** The Reports screen's request form and saved list, for tests that need more than last month. */
export class ReportsPage {
  constructor(readonly page: Page) {}

  /** Requests the calendar month `month` ('YYYY-MM'); the request then runs on its own. */
  async requestMonth(month: string): Promise<void> {
    const form = this.page.getByRole('form', { name: 'Request billing report' });
    await form.getByLabel('Month', { exact: true }).fill(month);
    await form.getByRole('button', { name: 'Request report' }).click();
    await expect(form.getByRole('button', { name: 'Request report' })).toBeEnabled();
  }

  /** Waits until the saved list holds `count` reports. */
  async waitForSaved(count: number, timeout: number): Promise<void> {
    await expect(this.page.getByTestId('saved-report')).toHaveCount(count, { timeout });
  }

  /** The fold of a month's earlier fetches in the saved list ("1 earlier fetch of 2026-10-01 – 2026-10-31"). */
  earlierFetches(period: string): Locator {
    return this.page.getByRole('region', { name: 'Saved reports' }).locator('summary').filter({ hasText: period });
  }

  /** Opens the newest saved report of a period ('YYYY-MM-DD – YYYY-MM-DD' as the list shows it), or the `nth` newest, and returns the viewer. */
  async openNewest(period: string, nth = 0): Promise<ViewerPage> {
    // The list is newest first; a month's earlier fetches are folded away under its newest.
    const fetch = this.page.getByTestId('saved-report').filter({ hasText: period }).nth(nth);
    if (nth > 0 && !(await fetch.isVisible())) await this.earlierFetches(period).click();
    const viewer = await ViewerPage.open(this.page, fetch);
    await viewer.title.waitFor();
    return viewer;
  }
}
