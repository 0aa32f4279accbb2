import { describe, expect, it } from 'vitest';
import { safeFileName } from './files';

describe('file names Closebook gives', () => {
  it('lose path and reserved characters, control characters and the bidirectional controls that disguise a name', () => {
    expect(safeFileName('Billing 2026-10 · Acme/Nordics: Q4?')).toBe('Billing 2026-10 · Acme-Nordics- Q4-');
    expect(safeFileName('invoice\u202Excod.exe')).toBe('invoicexcod.exe');
    expect(safeFileName('a\u2066b\u2069c\u200F\u061Cd')).toBe('abcd');
    expect(safeFileName('tab\there\u0000')).toBe('tab-here-');
    expect(safeFileName('\u202E')).toBe('Closebook');
  });
});
