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

  field(form: Locator, label: string): Locator {
    return form.getByRole('textbox', { name: label, exact: true });
  }
}
