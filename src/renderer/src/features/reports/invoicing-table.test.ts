import { describe, expect, it } from 'vitest';
import type { InvoiceRow } from '@shared/contract';
import { exactAmountText, invoiceTable, sortInvoiceRows } from './invoicing-table';

function row(organization: string, currency: string, amount: string, extra: Partial<InvoiceRow> = {}): InvoiceRow {
  return {
    key: `${organization}|${currency}`,
    organization,
    nameRank: 0,
    customerNumber: `C-${organization}`,
    orgId: organization,
    groups: [],
    currency,
    amountToInvoice: amount,
    exactAmount: amount,
    lines: 1,
    costs: [{ currency, amount: '1' }],
    margin: amount,
    marginPartial: false,
    flags: [],
    ...extra,
  };
}

const names = (rows: InvoiceRow[]) => rows.map((r) => `${r.organization} ${r.currency}`);

describe('sorting invoicing rows', () => {
  // A big SEK amount is a small EUR one: ranking them against each other as raw numbers would be wrong.
  const rows = [row('a', 'SEK', '9000'), row('b', 'EUR', '800'), row('c', 'SEK', '120'), row('d', 'EUR', '1000'), row('e', 'SEK', '-50')];

  it('sorts amounts within each currency, currencies A→Z in either direction', () => {
    expect(names(sortInvoiceRows(rows, { key: 'amount', direction: 'desc' }))).toEqual(['d EUR', 'b EUR', 'a SEK', 'c SEK', 'e SEK']);
    expect(names(sortInvoiceRows(rows, { key: 'amount', direction: 'asc' }))).toEqual(['b EUR', 'd EUR', 'e SEK', 'c SEK', 'a SEK']);
  });

  it('compares amounts exactly, beyond a float', () => {
    const fine = [row('x', 'EUR', '0.30000000000000000001'), row('y', 'EUR', '0.3'), row('z', 'EUR', '0.30000000000000000002')];
    expect(names(sortInvoiceRows(fine, { key: 'amount', direction: 'desc' }))).toEqual(['z EUR', 'x EUR', 'y EUR']);
  });

  it('puts n/a margins last in both directions', () => {
    const margins = [row('a', 'SEK', '10', { margin: null }), row('b', 'SEK', '5'), row('c', 'SEK', '7')];
    expect(names(sortInvoiceRows(margins, { key: 'margin', direction: 'desc' }))).toEqual(['c SEK', 'b SEK', 'a SEK']);
    expect(names(sortInvoiceRows(margins, { key: 'margin', direction: 'asc' }))).toEqual(['b SEK', 'c SEK', 'a SEK']);
  });

  it('compares costs only among rows with the same purchase currencies', () => {
    const costs = [
      row('a', 'SEK', '1', {
        costs: [
          { currency: 'SEK', amount: '5' },
          { currency: 'USD', amount: '1' },
        ],
      }),
      row('b', 'SEK', '1', { costs: [{ currency: 'SEK', amount: '900' }] }),
      row('c', 'SEK', '1', { costs: [{ currency: 'SEK', amount: '20' }] }),
    ];
    expect(names(sortInvoiceRows(costs, { key: 'cost', direction: 'desc' }))).toEqual(['b SEK', 'c SEK', 'a SEK']);
  });

  it('sorts names in the report’s name order (the profile’s: Å after Z in Swedish), not the screen’s language', () => {
    const swedish = [
      row('Åkerberg AB', 'SEK', '1', { nameRank: 3 }),
      row('Zeta AB', 'SEK', '1', { nameRank: 2 }),
      row('Alpha AB', 'EUR', '1', { nameRank: 1 }),
    ];
    expect(sortInvoiceRows(swedish, { key: 'organization', direction: 'asc' }).map((r) => r.organization)).toEqual(['Alpha AB', 'Zeta AB', 'Åkerberg AB']);
    expect(sortInvoiceRows(swedish, { key: 'organization', direction: 'desc' }).map((r) => r.organization)).toEqual(['Åkerberg AB', 'Zeta AB', 'Alpha AB']);
    // Ties of another column fall back to the same order.
    expect(sortInvoiceRows(swedish, { key: 'lines', direction: 'asc' }).map((r) => r.organization)).toEqual(['Alpha AB', 'Zeta AB', 'Åkerberg AB']);
  });

  it('sorts customer numbers as people read them (C-9 before C-10)', () => {
    const numbers = [row('a', 'SEK', '1', { customerNumber: 'C-10' }), row('b', 'SEK', '1', { customerNumber: 'C-9' })];
    expect(sortInvoiceRows(numbers, { key: 'customerNumber', direction: 'asc' }).map((r) => r.customerNumber)).toEqual(['C-9', 'C-10']);
  });
});

describe('invoicing rows as a table to paste', () => {
  const rows = [
    row('Acme', 'SEK', '1234567.50', {
      exactAmount: '1234567.4951',
      groups: ['CC-100 Nordics', 'AM Anna Berg'],
      costs: [
        { currency: 'SEK', amount: '812.4035' },
        { currency: 'USD', amount: '95.1' },
      ],
      margin: null,
      flags: ['credit', 'missing-customer-number'],
      lines: 12,
    }),
  ];

  it('has exact values with the locale decimal separator and no thousands separators, each cost a number under its currency', () => {
    const euros = row('Birch', 'EUR', '10', { costs: [{ currency: 'EUR', amount: '481.600000' }] });
    expect(invoiceTable([...rows, euros], 'en-US')).toEqual([
      ['Customer number', 'Organization', 'Groups', 'Currency', 'Amount to invoice', 'Billing lines', 'Cost EUR', 'Cost SEK', 'Cost USD', 'Margin', 'Flags'],
      ['C-Acme', 'Acme', 'CC-100 Nordics; AM Anna Berg', 'SEK', '1234567.50', '12', '', '812.4035', '95.1', '', 'Credit note, No customer number'],
      ['C-Birch', 'Birch', '', 'EUR', '10', '1', '481.600000', '', '', '10', ''],
    ]);
    expect(invoiceTable(rows, 'sv-SE')[1]!.slice(4, 8)).toEqual(['1234567,50', '12', '812,4035', '95,1']);
    // A margin of the part bought in the invoice currency stays a number; the flags say what it covers.
    const mixed = row('Cedar', 'SEK', '100', {
      costs: [
        { currency: 'SEK', amount: '60' },
        { currency: 'USD', amount: '3' },
      ],
      margin: '40',
      marginPartial: true,
    });
    expect(invoiceTable([mixed], 'en-US')[1]!.slice(-2)).toEqual(['40', 'Margin of the part bought in SEK']);
    // Every cost cell is a plain number in the locale, as Excel reads one.
    for (const cell of invoiceTable([...rows, euros], 'sv-SE')
      .slice(1)
      .flatMap((cells) => cells.slice(6, 9)))
      expect(cell).toMatch(/^(-?\d+(,\d+)?)?$/);
  });

  it('gives every digit of an exact sum for the tooltip', () => {
    expect(exactAmountText('1234567.4951', 'SEK', 'en-US')).toBe('1,234,567.4951 SEK');
    expect(exactAmountText('10.5', 'SEK', 'en-US')).toBe('10.50 SEK');
  });
});
