import { describe, expect, it } from 'vitest';
import { counted } from './counted';

describe('counted', () => {
  it('puts the noun in the singular for one alone, and groups large counts', () => {
    expect([
      counted(1, 'row'),
      counted(0, 'row'),
      counted(12_500, 'row'),
      counted(1, 'exception is', 'exceptions are'),
      counted(2, 'exception is', 'exceptions are'),
    ]).toEqual(['1 row', '0 rows', '12,500 rows', '1 exception is', '2 exceptions are']);
  });
  it('writes the number as the caller asks', () => {
    expect(counted(1000, 'line', undefined, (count) => `[${count}]`)).toBe('[1000] lines');
    expect(counted(1, 'fetch', 'fetches', String)).toBe('1 fetch');
  });
});
