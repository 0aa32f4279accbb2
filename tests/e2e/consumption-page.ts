import type { Locator, Page } from '@playwright/test';

type Name = string | RegExp;

/**
 * Page model of the Consumption screen: import (a file or pasted rows), the batch grid with its rows, names and
 * messages, submitting, the submission's state and the history of batches.
 */
export class ConsumptionPage {
  /** The batch's rows (table "Consumption rows"). */
  readonly grid: Locator;
  readonly file: Locator;
  readonly month: Locator;
  readonly submit: Locator;
  /** "3 records ready · usage for …", or what is left to fix. */
  readonly batchStatus: Locator;
  /** Why the batch cannot be edited while the service works on it. */
  readonly locked: Locator;
  readonly ownColumns: Locator;
  readonly namesNote: Locator;
  /** The submission of the batch shown, its state and month. */
  readonly submission: Locator;
  readonly submissionState: Locator;
  readonly submissionPeriod: Locator;
  readonly nothingSaved: Locator;
  /** The import panel (beside the grid, or stepped aside in a narrow window). */
  readonly importPanel: Locator;
  readonly historyPanel: Locator;
  /** The batches in the history, newest first, with their states and months. */
  readonly history: Locator;
  readonly historyState: Locator;
  readonly historyPeriod: Locator;
  /** A past batch opened read-only. */
  readonly pastBatch: Locator;
  /** "Send this batch again?" */
  readonly repeatQuestion: Locator;

  constructor(readonly page: Page) {
    this.grid = page.getByRole('table', { name: 'Consumption rows' });
    this.file = page.getByLabel('Consumption file');
    this.month = page.getByLabel('Usage month');
    this.submit = page.getByRole('button', { name: 'Submit batch' });
    this.batchStatus = page.getByTestId('batch-status');
    this.locked = page.getByTestId('batch-locked');
    this.ownColumns = page.getByTestId('own-columns');
    this.namesNote = page.getByTestId('names-note');
    this.submission = page.getByTestId('submission');
    this.submissionState = page.getByTestId('submission-state');
    this.submissionPeriod = page.getByTestId('submission-period');
    this.nothingSaved = page.getByTestId('nothing-saved');
    this.importPanel = page.getByRole('region', { name: 'Import consumption' });
    this.historyPanel = page.getByRole('region', { name: 'Submission history' });
    this.history = page.getByTestId('history-item');
    this.historyState = page.getByTestId('history-state');
    this.historyPeriod = page.getByTestId('history-period');
    this.pastBatch = page.getByRole('region', { name: 'Past batch', exact: true });
    this.repeatQuestion = page.getByRole('alertdialog', { name: 'Send this batch again?' });
  }

  /** A button of the screen, or of a part of it (`within`: the past batch, the question …). */
  button(name: Name, within: Locator | Page = this.page): Locator {
    return within.getByRole('button', { name });
  }

  /** Imports a file as if picked in the file dialog. */
  async importFile(name: string, content: string | Buffer, mimeType = 'text/csv'): Promise<void> {
    await this.file.setInputFiles({ name, mimeType, buffer: Buffer.isBuffer(content) ? content : Buffer.from(content) });
  }

  /** Rows as a spreadsheet copies them: tab-separated, with their header row. */
  async paste(lines: string[][]): Promise<void> {
    await this.page.getByLabel('Pasted rows').fill(lines.map((cells) => cells.join('\t')).join('\n'));
    await this.button('Read pasted rows').click();
  }

  /** The input of a row's cell, by the row's number in the file (2: the first row under the header). */
  cell(row: number, column: 'Quantity' | 'Subscription ID'): Locator {
    return this.page.getByRole('textbox', { name: `Row ${row} ${column}` });
  }

  /** What is wrong with a row, beside it. */
  messages(row: number): Locator {
    return this.page.getByTestId(`row-${row}-messages`);
  }

  /** The organization and product a row's subscription id names. */
  names(row: number): Locator {
    return this.page.getByTestId(`row-${row}-names`);
  }

  /** A row's own (not sent) column, 1 for the first. */
  own(row: number, column: number): Locator {
    return this.page.getByTestId(`row-${row}-own-${column}`);
  }

  columnHeader(name: string): Locator {
    return this.grid.getByRole('columnheader', { name });
  }

  /** Opens a batch of the history (newest first) by its file name. */
  async openPast(fileName: string, index = 0): Promise<void> {
    await this.button(fileName, this.history.nth(index)).click();
  }

  /** Answers the "Send this batch again?" question. */
  async answerRepeat(answer: "Don't send" | 'Send again'): Promise<void> {
    await this.button(answer, this.repeatQuestion).click();
  }
}
