import { describe, expect, it } from 'vitest';
import { minorUnits, roundToMinorUnit } from './currency';

describe('currency minor units', () => {
  it('knows the places of the usual and the unusual currencies', () => {
    expect(minorUnits('SEK')).toBe(2);
    expect(minorUnits('JPY')).toBe(0);
    expect(minorUnits('KWD')).toBe(3);
    expect(minorUnits('XYZ')).toBe(2);
  });

  it('rounds once, half away from zero, to the minor unit', () => {
    expect(roundToMinorUnit('1147433.0305', 'SEK')).toBe('1147433.03');
    expect(roundToMinorUnit('0.005', 'EUR')).toBe('0.01');
    expect(roundToMinorUnit('-0.005', 'EUR')).toBe('-0.01');
    expect(roundToMinorUnit('1234.5', 'JPY')).toBe('1235');
    expect(roundToMinorUnit('1.0005', 'KWD')).toBe('1.001');
    expect(roundToMinorUnit('12', 'SEK')).toBe('12.00');
  });
});
