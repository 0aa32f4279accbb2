import { describe, expect, it } from 'vitest';
import { currenciesOf, currencyPairKey, isSingleCurrency } from './currency-pair';

describe('the currency-pair key', () => {
  it('is the currency where cost and sales share one, and cost→sales where they do not; it reads back to both', () => {
    expect(currencyPairKey('SEK', 'SEK')).toBe('SEK');
    expect(currencyPairKey('USD', 'SEK')).toBe('USD→SEK');
    expect(currenciesOf('USD→SEK')).toEqual({ cost: 'USD', sales: 'SEK' });
    expect(currenciesOf('SEK')).toEqual({ cost: 'SEK', sales: 'SEK' });
    expect(isSingleCurrency('SEK')).toBe(true);
    expect(isSingleCurrency('USD→SEK')).toBe(false);
  });
});
