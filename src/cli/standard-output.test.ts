import { describe, expect, it } from 'vitest';
import { jsonInParts } from './standard-output';

describe('jsonInParts', () => {
  it('writes what JSON.stringify writes, the named array an item at a time', () => {
    const values: Record<string, unknown>[] = [
      { a: 1, invoices: [{ n: 'x', lines: [1, 2] }, { n: 'é"\\\n' }], b: 'text' },
      { invoices: [] },
      { left: undefined, fn: () => 1, invoices: [undefined, null, 0, '', { deep: { er: [true] } }], after: null },
      { first: 'no array here' },
      { invoices: 'not an array', n: [1] },
    ];
    for (const value of values) expect([...jsonInParts(value, 'invoices')].join('')).toBe(JSON.stringify(value));
  });

  it('never makes the array whole: one part an item', () => {
    const invoices = Array.from({ length: 1000 }, (_, index) => ({ index, text: 'x'.repeat(100) }));
    const parts = [...jsonInParts({ periodText: 'October', invoices }, 'invoices')];
    expect(parts.length).toBeGreaterThan(1000);
    expect(Math.max(...parts.map((part) => part.length))).toBeLessThan(200);
  });
});
