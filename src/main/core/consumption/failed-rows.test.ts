import { describe, expect, it } from 'vitest';
import type { Submission } from '../../../shared/schemas/consumption';
import { failedRowsCsv } from './failed-rows';

const SUBSCRIPTION = '11111111-2222-4333-8444-555555555555';

describe('failed rows as CSV', () => {
  it('never lets a message or id from the service start a formula in a spreadsheet', () => {
    const submission = {
      rows: [{ row: 2, subscriptionId: SUBSCRIPTION, isAddon: 'no', addonId: '', quantity: '3', consumptionId: '' }],
      failures: [
        { row: 2, errorMessage: '=HYPERLINK("http://evil.example","Fix here")', subscriptionId: SUBSCRIPTION, isAddon: false, addonId: null, quantity: 3, consumptionId: null },
        { row: null, errorMessage: '@SUM(1+1)', subscriptionId: '+cmd|calc', isAddon: false, addonId: null, quantity: 1, consumptionId: null },
      ],
    } as unknown as Submission;
    const csv = failedRowsCsv(submission);
    expect(csv.startsWith('\uFEFF')).toBe(true);
    const cells = csv.slice(1).split('\r\n').flatMap((line) => line.split(','));
    expect(cells.filter((cell) => /^"?[=+\-@\t\r]/.test(cell))).toEqual([]);
    expect(csv).toContain(`"'=HYPERLINK(""http://evil.example""`);
    expect(csv).toContain(`'@SUM(1+1)`);
    expect(csv).toContain(`'+cmd|calc`);
  });

  it('keeps a quantity a number, even a negative one the service echoes back', () => {
    const submission = {
      rows: [],
      failures: [{ row: null, errorMessage: 'Quantity must not be negative', subscriptionId: SUBSCRIPTION, isAddon: false, addonId: null, quantity: -2.5, consumptionId: null }],
    } as unknown as Submission;
    const [, line] = failedRowsCsv(submission).split('\r\n');
    expect(line).toBe(`,${SUBSCRIPTION},no,,-2.5,,Quantity must not be negative`);
  });
});
