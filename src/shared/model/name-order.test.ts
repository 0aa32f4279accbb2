import { describe, expect, it } from 'vitest';
import { collationOf, NAME_ORDERS, NameOrder, nameOrderOfLocale, nameOrderText } from './name-order';

describe('name orders', () => {
  it('takes a locale’s language, Norwegian Bokmål and Nynorsk as Norwegian, and English for a language without its own rules', () => {
    expect(nameOrderOfLocale('sv-SE')).toBe('sv');
    expect(nameOrderOfLocale('sv_FI')).toBe('sv');
    expect(nameOrderOfLocale('nb-NO')).toBe('no');
    expect(nameOrderOfLocale('nn')).toBe('no');
    expect(nameOrderOfLocale('da-DK')).toBe('da');
    expect(nameOrderOfLocale('en-US')).toBe('en');
    expect(nameOrderOfLocale('ja-JP')).toBe('en');
    expect(nameOrderOfLocale('')).toBe('en');
  });

  it('gives each order an ICU collation that compares numbers by value, and words for it', () => {
    expect(collationOf('sv')).toBe('sv-u-kn-true');
    expect(nameOrderText('no')).toBe('Norwegian (ICU collation no-u-kn-true, numbers by value)');
    // Every order is one ICU knows: Intl resolves it to its own language, not to a fallback.
    for (const order of Object.keys(NAME_ORDERS) as NameOrder[]) {
      const resolved = new Intl.Collator(collationOf(order)).resolvedOptions();
      expect(resolved.locale.split('-')[0], order).toBe(order);
      expect(resolved.numeric, order).toBe(true);
    }
    expect(NameOrder.safeParse('xx').success).toBe(false);
  });
});
