import { describe, expect, it } from 'vitest';
import { rowShape } from './rows';

describe('typed ledger rows', () => {
  const shape = rowShape({ org_no: 'int', name: 'text', cost: 'decimal', margin: 'decimal?', single: 'bool' });

  it('reads each column as its shape says: counts as numbers, decimals as their exact text, null only where allowed', () => {
    expect(shape.all([{ org_no: '12', name: 'Acme', cost: '1234.500000', margin: null, single: true }])).toEqual([
      { org_no: 12, name: 'Acme', cost: '1234.500000', margin: null, single: true },
    ]);
  });

  it('refuses a missing value where the query promised one (a mistake in a query, never data to round or guess)', () => {
    expect(() => shape.decode({ org_no: 1, name: 'A', cost: null, margin: null, single: false })).toThrow(/gave no cost/);
  });
});
