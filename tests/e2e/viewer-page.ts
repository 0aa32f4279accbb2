import { expect, type Locator, type Page } from '@playwright/test';
import { ClosePage } from './close-page';

type Name = string | RegExp;

/**
 * Page model of an open report: the viewer (region "Report …"), its tree, filters and totals, and the Invoicing
 * view. Names are matched as the raw locators matched them: a string as a substring unless `exact`.
 */
export class ViewerPage {
  /** The report tree (treegrid "Billing report"). */
  readonly tree: Locator;
  /** The filter bar (search "Report filters"). */
  readonly filters: Locator;
  /** "Totals per currency". */
  readonly totals: Locator;
  /** "1,234 of 5,678 billing lines". */
  readonly lineCount: Locator;
  /** The Invoicing view's grid ("Amounts to invoice"). */
  readonly invoicing: Locator;
  /** The Invoicing view's amounts to invoice per currency. */
  readonly invoiceTotals: Locator;
  /** What a printout adds below the viewer (print only: hidden on screen, and outside the viewer). */
  readonly printable: Locator;
  /** The result of Workbooks per group. */
  readonly packs: Locator;
  /** The report's name (its heading). */
  readonly title: Locator;

  constructor(
    readonly page: Page,
    readonly root: Locator = page.getByRole('region', { name: /^Report / }),
  ) {
    this.tree = root.getByRole('treegrid', { name: 'Billing report' });
    this.filters = root.getByRole('search', { name: 'Report filters' });
    this.totals = root.getByRole('table', { name: 'Totals per currency' });
    this.lineCount = root.getByTestId('line-count');
    this.invoicing = root.getByRole('grid', { name: 'Amounts to invoice' });
    this.invoiceTotals = root.getByRole('table', { name: 'Amounts to invoice per currency' });
    this.printable = page.getByTestId('printable-report');
    this.packs = root.getByRole('region', { name: 'Workbooks per group' });
    this.title = root.getByRole('heading', { level: 2 });
  }

  /** Clicks Open on a saved report (the one in the list, unless one is given) and returns its viewer, not waiting for rows. */
  static async open(page: Page, saved: Locator = page.getByTestId('saved-report')): Promise<ViewerPage> {
    await saved.getByRole('button', { name: 'Open', exact: true }).click();
    return new ViewerPage(page);
  }

  /** As open, then waits until the tree shows its first organization rows. */
  static async openWithRows(page: Page, saved?: Locator): Promise<ViewerPage> {
    const viewer = await ViewerPage.open(page, saved);
    await expect(viewer.rows(1).first()).toBeVisible();
    return viewer;
  }

  button(name: Name, options: { exact?: boolean } = {}): Locator {
    return this.root.getByRole('button', { name, ...options });
  }

  searchbox(name: Name, options: { exact?: boolean } = {}): Locator {
    return this.root.getByRole('searchbox', { name, ...options });
  }

  combobox(name: Name): Locator {
    return this.root.getByRole('combobox', { name });
  }

  /** A status line that says `text` ("Copied 4 rows"). */
  status(text: string): Locator {
    return this.root.getByRole('status').filter({ hasText: text });
  }

  /** The tree's rows at one level (1: organizations, 4: billing lines). */
  rows(level: number): Locator {
    return this.tree.getByRole('row', { level });
  }

  /** The tree's selected rows. */
  selectedRows(): Locator {
    return this.tree.getByRole('row', { selected: true });
  }

  /** The tree's header row (the first row). */
  headerRow(): Locator {
    return this.tree.getByRole('row').first();
  }

  /** Every column header of the tree, in order. */
  columnHeaders(): Locator {
    return this.tree.getByRole('columnheader');
  }

  columnHeader(name: Name, options: { exact?: boolean } = {}): Locator {
    return this.tree.getByRole('columnheader', { name, ...options });
  }

  /** A column header's sort button. */
  sortButton(header: Locator): Locator {
    return header.getByRole('button');
  }

  /** Texts of the cells of a tree row, in order. */
  cells(row: Locator): Promise<string[]> {
    return this.gridCells(row).allTextContents();
  }

  /** The cells of the `index`-th row of the totals per currency. */
  totalCells(index: number): Locator {
    return this.totals.getByTestId('currency-total').nth(index).getByRole('cell');
  }

  async expandOrganizations(): Promise<void> {
    await this.button('Expand organizations').click();
  }

  /** Opens the first organization's first service and subscription, so every level of the tree is in view. */
  async openEveryLevel(): Promise<void> {
    await this.expandOrganizations();
    await expect(this.rows(2).first()).toBeVisible();
    await this.rows(2).first().click();
    await this.rows(3).first().click();
    await expect(this.rows(4).first()).toBeVisible();
  }

  /** The View choice (Tree, Invoicing, Close the month). */
  view(name: 'Tree' | 'Invoicing' | 'Close the month'): Locator {
    return this.root.getByRole('group', { name: 'View' }).getByRole('button', { name, exact: true });
  }

  /** A Hierarchy choice. */
  hierarchy(name: 'By organization' | 'By service'): Locator {
    return this.root.getByRole('group', { name: 'Hierarchy' }).getByRole('button', { name });
  }

  /** The Columns popover (its group of checkboxes), once opened. */
  columnChooser(): Locator {
    return this.root.getByRole('group', { name: 'Columns shown' });
  }

  /** A column's checkbox in the Columns popover. */
  columnChoice(name: string): Locator {
    return this.columnChooser().getByRole('checkbox', { name });
  }

  /** The Invoicing rows in the DOM (those in view). */
  invoiceRows(): Locator {
    return this.invoicing.getByTestId('invoice-row');
  }

  /** The select boxes of the Invoicing rows in view. */
  invoiceCheckboxes(): Locator {
    return this.invoiceRows().getByRole('checkbox');
  }

  /** The Invoicing grid's column headers (all, or by name). */
  invoiceHeaders(name?: Name): Locator {
    return this.invoicing.getByRole('columnheader', name === undefined ? {} : { name });
  }

  /** The cells of a row of a grid (the tree or Invoicing). */
  gridCells(row: Locator): Locator {
    return row.getByRole('gridcell');
  }

  /** A table of the printout ("Organizations", "Amounts to invoice" …). */
  printTable(name: string, options: { exact?: boolean } = {}): Locator {
    return this.printable.getByRole('table', { name, ...options });
  }

  /** What Workbooks per group did ("12 workbooks downloaded"). */
  packsStatus(): Locator {
    return this.packs.getByRole('status');
  }

  /** The row of Workbooks per group for one group, and its cells. */
  pack(group: string): { row: Locator; cells: Locator } {
    const row = this.packs.getByTestId('group-pack').filter({ has: this.page.getByRole('cell', { name: group, exact: true }) });
    return { row, cells: row.getByRole('cell') };
  }

  /** Switches to Invoicing and waits for its first row. */
  async showInvoicing(): Promise<Locator> {
    await this.view('Invoicing').click();
    await expect(this.invoicing.getByTestId('invoice-row').first()).toBeVisible();
    return this.invoicing;
  }

  /** Switches to Close the month and returns its screen. */
  async closeTheMonth(): Promise<ClosePage> {
    await this.view('Close the month').click();
    return new ClosePage(this.page, this.root.getByRole('region', { name: 'Close the month' }));
  }
}
