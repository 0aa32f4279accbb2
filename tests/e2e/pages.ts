import type { Locator, Page } from '@playwright/test';

/** Page model of the shell and the Profiles and Organizations screens. */
export class ClosebookPage {
  constructor(readonly page: Page) {}

  nav(name: 'Reports' | 'Consumption' | 'Organizations' | 'Profiles'): Locator {
    return this.page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name });
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
