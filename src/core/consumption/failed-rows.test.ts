import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import type { Submission } from '@shared/schemas/consumption';
import { failedRowsCsv, failedRowsXlsx } from './failed-rows';

const SUBSCRIPTION = '11111111-2222-4333-8444-555555555555';

describe('failed rows as CSV', () => {
  it('never lets a message or id from the service start a formula in a spreadsheet', () => {
    const submission = {
      rows: [{ row: 2, subscriptionId: SUBSCRIPTION, isAddon: 'no', addonId: '', quantity: '3', consumptionId: '' }],
      failures: [
        {
          row: 2,
          errorMessage: '=HYPERLINK("http://evil.example","Fix here")',
          subscriptionId: SUBSCRIPTION,
          isAddon: false,
          addonId: null,
          quantity: 3,
          consumptionId: null,
        },
        { row: null, errorMessage: '@SUM(1+1)', subscriptionId: '+cmd|calc', isAddon: false, addonId: null, quantity: 1, consumptionId: null },
      ],
    } as unknown as Submission;
    const csv = failedRowsCsv(submission);
    expect(csv.startsWith('\uFEFF')).toBe(true);
    const cells = csv
      .slice(1)
      .split('\r\n')
      .flatMap((line) => line.split(','));
    expect(cells.filter((cell) => /^"?[=+\-@\t\r]/.test(cell))).toEqual([]);
    expect(csv).toContain(`"'=HYPERLINK(""http://evil.example""`);
    expect(csv).toContain(`'@SUM(1+1)`);
    expect(csv).toContain(`'+cmd|calc`);
  });

  it('keeps a quantity a number, even a negative one the service echoes back', () => {
    const submission = {
      rows: [],
      failures: [
        {
          row: null,
          errorMessage: 'Quantity must not be negative',
          subscriptionId: SUBSCRIPTION,
          isAddon: false,
          addonId: null,
          quantity: -2.5,
          consumptionId: null,
        },
      ],
    } as unknown as Submission;
    const [, line] = failedRowsCsv(submission).split('\r\n');
    expect(line).toBe(`,${SUBSCRIPTION},no,,-2.5,,Quantity must not be negative`);
  });

  it("writes the user's own columns back beside each failed row, escaped like any text", async () => {
    const submission = {
      extraColumns: ['Customer', '=Cost centre'],
      rows: [{ row: 2, subscriptionId: SUBSCRIPTION, isAddon: 'no', addonId: '', quantity: '12,5', consumptionId: '', extra: ['Contoso, Inc.', '=1+1'] }],
      failures: [
        { row: 2, errorMessage: 'Unknown subscription', subscriptionId: SUBSCRIPTION, isAddon: false, addonId: null, quantity: 12.5, consumptionId: null },
      ],
    } as unknown as Submission;
    const [header, line] = failedRowsCsv(submission).slice(1).split('\r\n');
    expect(header).toBe(`Row,Subscription ID,Is add-on,Add-on ID,Quantity,Consumption ID,Customer,'=Cost centre,Error`);
    expect(line).toBe(`2,${SUBSCRIPTION},no,,"12,5",,"Contoso, Inc.",'=1+1,Unknown subscription`);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load((await failedRowsXlsx(submission)) as unknown as ArrayBuffer);
    const sheet = workbook.getWorksheet('Failed records')!;
    expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual([
      'Row',
      'Subscription ID',
      'Is add-on',
      'Add-on ID',
      'Quantity',
      'Consumption ID',
      'Customer',
      '=Cost centre',
      'Error',
    ]);
    // Text stays text in the workbook: a value that looks like a formula is not one.
    expect((sheet.getRow(2).values as unknown[]).slice(7)).toEqual(['Contoso, Inc.', '=1+1', 'Unknown subscription']);
  });
});
