import type { Locator, Page } from '@playwright/test';

type Name = string | RegExp;

/** Page model of Close the month (inside a viewer): header, tabs, exceptions, comparison, thresholds, sign-off. */
export class ClosePage {
  /** The exceptions table. */
  readonly exceptions: Locator;
  /** Draft, Signed off by …, Superseded … */
  readonly state: Locator;
  /** What is open, by severity. */
  readonly openCounts: Locator;
  /** The month's changes (grid "Changes"). */
  readonly changes: Locator;
  readonly changeCount: Locator;
  readonly changeSearch: Locator;
  /** The kinds of change (All, New, Lost …). */
  readonly kinds: Locator;
  /** The exceptions' review-state filter (Open, Accepted, All …). */
  readonly reviewState: Locator;
  readonly thresholds: Locator;
  readonly restatement: Locator;
  readonly trends: Locator;
  readonly rates: Locator;
  readonly topMovers: Locator;
  /** What the trends are of: everything, an organization, a service or a group. */
  readonly trendOf: Locator;

  constructor(
    readonly page: Page,
    readonly root: Locator,
  ) {
    this.exceptions = root.getByRole('table', { name: 'Exceptions' });
    this.state = root.getByTestId('close-state');
    this.openCounts = root.getByTestId('open-counts');
    this.changes = root.getByRole('grid', { name: 'Changes', exact: true });
    this.changeCount = root.getByTestId('change-count');
    this.changeSearch = root.getByRole('searchbox', { name: 'Search changes' });
    this.kinds = root.getByRole('group', { name: 'Kind of change' });
    this.reviewState = root.getByRole('group', { name: 'Review state' });
    this.thresholds = root.getByRole('form', { name: 'Check thresholds' });
    this.restatement = root.getByTestId('restatement');
    this.trends = root.getByRole('region', { name: 'Trends' });
    this.rates = root.getByRole('region', { name: 'Reference currency' });
    this.topMovers = this.trends.getByRole('region', { name: 'Top movers' });
    this.trendOf = this.trends.getByRole('combobox', { name: 'Trend of' });
  }

  /** Trends of one customer, service or group: picked by its key from the searchable list after `search` narrows it. */
  async trendOfOne(kind: 'organization' | 'service' | 'group', search: string, key: string): Promise<void> {
    const noun = kind === 'organization' ? 'customer' : kind;
    await this.trendOf.selectOption(kind);
    await this.trends.getByRole('searchbox', { name: `Search ${noun}s` }).fill(search);
    await this.trends.getByRole('combobox', { name: `Choose ${noun}` }).selectOption(key);
  }

  /** What the reference-currency panel says is wrong, or what it did. */
  ratesMessage(role: 'alert' | 'status'): Locator {
    return this.rates.getByRole(role);
  }

  /** The body rows of a trend figure's table (one per month, oldest first). */
  trendRows(figure: Locator): Locator {
    return figure.getByRole('table').locator('tbody tr');
  }

  /** A button of the screen, or of a part of it (`within`: the restatement, a row …). */
  button(name: Name, { exact, within = this.root }: { exact?: boolean; within?: Locator } = {}): Locator {
    return within.getByRole('button', { name, ...(exact === undefined ? {} : { exact }) });
  }

  /** A heading by its name (any heading without one), of the screen or of a part of it. */
  heading(name: Name | undefined, within: Locator = this.root): Locator {
    return within.getByRole('heading', name === undefined ? {} : { name });
  }

  async openTab(name: 'Compare with last month' | 'Trends' | 'Reference currency' | 'Thresholds' | 'Exceptions' | 'Checklist' | 'Invoices'): Promise<void> {
    // The Exceptions tab says how many are open ("Exceptions (12 open)").
    await this.root.getByRole('tab', { name: name === 'Exceptions' ? /^Exceptions/ : name }).click();
  }

  /** The exception rows (of the review state shown), or the one of an exception (by its id: its words on screen are in the user's locale). */
  exceptionRows(exceptionId?: string): Locator {
    const rows = this.exceptions.getByTestId('exception-row');
    return exceptionId === undefined ? rows : this.exceptions.locator(`[data-testid=exception-row][data-exception-id="${exceptionId}"]`);
  }

  /** A button in the exceptions table ("Accept", "Reopen"), or in one row or group of it ("Show in report", "Resolve"). */
  exceptionButton(name: Name, { exact, within = this.exceptions }: { exact?: boolean; within?: Locator } = {}): Locator {
    return this.button(name, { within, ...(exact === undefined ? {} : { exact }) });
  }

  /** The group of exceptions of one rule. */
  exceptionGroup(rule: string): Locator {
    return this.exceptions.locator(`[data-testid=exception-group][data-rule=${rule}]`);
  }

  /** The month compared with ("Compare October 2026 with"). */
  compareWith(month: string): Locator {
    return this.root.getByRole('combobox', { name: `Compare ${month} with` });
  }

  /** A bridge table of the change in sales per currency (within `within`: the screen, or the restatement). */
  bridge(within: Locator = this.root): Locator {
    return within.getByRole('table', { name: 'Change in sales per currency' });
  }

  /** The bridge row of one currency key and its cells. */
  bridgeRow(table: Locator, currencyKey: string): { row: Locator; cells: Locator } {
    const row = table.getByTestId('bridge-row').filter({ has: this.page.getByRole('rowheader', { name: currencyKey, exact: true }) });
    return { row, cells: row.getByRole('cell') };
  }

  /** A kind-of-change button, by its label and count ("New 3"). */
  kind(label: RegExp): Locator {
    return this.kinds.getByRole('button', { name: label });
  }

  /** A change column's header. */
  changeHeader(name: string): Locator {
    return this.changes.getByRole('columnheader', { name });
  }

  /** A column header's sort button. */
  sortButton(header: Locator): Locator {
    return header.getByRole('button');
  }

  async saveThresholds(): Promise<void> {
    await this.button('Save thresholds', { within: this.thresholds }).click();
  }

  /** What the thresholds form says is wrong, or that it saved. */
  thresholdsMessage(role: 'alert' | 'status'): Locator {
    return this.thresholds.getByRole(role);
  }

  /** A review-state filter button, by its label and count. */
  reviewFilter(label: RegExp): Locator {
    return this.reviewState.getByRole('button', { name: label });
  }
}
