import { describe, expect, it } from 'vitest';
import { marginOf } from './margin';

describe('the margin of a pair', () => {
  it('is sales − cost exactly and its share of sales to two places; none without sales to divide by, none across two currencies', () => {
    expect(marginOf('80.10', '100.30')).toEqual({ margin: '20.2', marginPercent: '20.14' });
    expect(marginOf('5', '0')).toEqual({ margin: '-5', marginPercent: null });
    expect(marginOf('80', '100', false)).toEqual({ margin: null, marginPercent: null });
  });
});
