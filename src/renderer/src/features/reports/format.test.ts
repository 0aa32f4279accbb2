import { describe, expect, it } from 'vitest';
import type { CurrencyTotalRow, TreeRow } from '@shared/contract';
import { totalsTable, treeRowsTable, visibleColumns } from './format';

function row(overrides: Partial<TreeRow>): TreeRow {
  return {
    key: 'k',
    level: 'line',
    depth: 3,
    label: 'Storage - Hot LRS',
    detail: 'DZH318Z0BNVX',
    currencyKey: 'USD→SEK',
    hasChildren: false,
    expanded: false,
    lines: 1,
    quantity: '1234.5',
    unitCost: '0.0184',
    unitPrice: '0.2101',
    poNumber: 'PO-12345',
    billingDate: '2026-10-07',
    cost: '22.7148',
    sales: '259.37',
    margin: null,
    marginPercent: null,
    mismatch: null,
    ...overrides,
  };
}

describe('copied tables', () => {
  it('copy the visible columns as exact values with the decimal separator of the locale and the currencies apart', () => {
    const columns = visibleColumns(['marginPercent', 'quantity', 'cost', 'sales', 'margin', 'poNumber']);
    expect(
      treeRowsTable(
        [
          row({}),
          row({
            level: 'subscription',
            label: 'Nordic Dental AB – E3',
            currencyKey: 'SEK',
            quantity: '12',
            cost: '1147433.0305',
            sales: '1300000',
            margin: '152566.9695',
            marginPercent: '11.74',
            poNumber: null,
          }),
        ],
        columns,
        'service',
        'sv-SE',
      ),
    ).toEqual([
      ['Service › organization', 'Level', 'Detail', 'Cost currency', 'Sales currency', 'Quantity', 'Cost', 'Sales', 'Margin', 'Margin %', 'PO number'],
      ['Storage - Hot LRS', 'line', 'DZH318Z0BNVX', 'USD', 'SEK', '1234,5', '22,7148', '259,37', '', '', 'PO-12345'],
      ['Nordic Dental AB – E3', 'subscription', 'DZH318Z0BNVX', 'SEK', 'SEK', '12', '1147433,0305', '1300000', '152566,9695', '11,74', ''],
    ]);
    expect(treeRowsTable([row({})], visibleColumns(['unitCost', 'billingDate']), 'organization', 'en-US')[1]).toEqual([
      'Storage - Hot LRS',
      'line',
      'DZH318Z0BNVX',
      'USD',
      'SEK',
      '0.0184',
      '2026-10-07',
    ]);
  });

  it('copy the totals per currency the same way', () => {
    const totals: CurrencyTotalRow[] = [
      { currencyKey: 'SEK', lines: 1200, cost: '1147433.0305', sales: '1300000.5', margin: '152567.4695', marginPercent: '11.73' },
      { currencyKey: 'USD→NOK', lines: 3, cost: '-12.5', sales: '140', margin: null, marginPercent: null },
    ];
    expect(totalsTable(totals, 'sv-SE')).toEqual([
      ['Cost currency', 'Sales currency', 'Lines', 'Cost', 'Sales', 'Margin', 'Margin %'],
      ['SEK', 'SEK', '1200', '1147433,0305', '1300000,5', '152567,4695', '11,73'],
      ['USD', 'NOK', '3', '-12,5', '140', '', ''],
    ]);
  });
});
