import { describe, expect, it } from 'vitest';
import { amountText, countOf, exactCell, formatCount, percentText, quantityText, unitPriceText } from './format-number';

// Intl's own characters: a no-break space groups thousands in sv-SE and sits before its % sign; its minus is U+2212.
const NBSP = '\u00a0';
const MINUS = '\u2212';

describe('amounts', () => {
  it('show the minor unit of the currency, rounded half away from zero, with the exact value in the title', () => {
    expect(amountText('1147433.0305', 'SEK', 'en-US')).toEqual({ text: '1,147,433.03', pad: '', title: '1,147,433.0305 SEK' });
    expect(amountText('1147433.0305', 'SEK', 'sv-SE')).toEqual({ text: `1${NBSP}147${NBSP}433,03`, pad: '', title: `1${NBSP}147${NBSP}433,0305 SEK` });
    expect(amountText('29855.205', 'NOK', 'en-US').text).toBe('29,855.21');
    expect(amountText('-29855.205', 'NOK', 'en-US').text).toBe('-29,855.21');
  });

  it('need no title when nothing is hidden, and pad shorter fractions so decimal points line up', () => {
    expect(amountText('183526.80', 'EUR', 'en-US')).toEqual({ text: '183,526.80', pad: '', title: undefined });
    expect(amountText('5', 'EUR', 'en-US')).toEqual({ text: '5.00', pad: '', title: undefined });
    // JPY has no minor unit: no decimals, and a hidden ".00" keeps it in line with the others.
    expect(amountText('1234.5', 'JPY', 'en-US')).toEqual({ text: '1,235', pad: '.00', title: '1,234.5 JPY' });
    expect(amountText('1234', 'JPY', 'sv-SE')).toEqual({ text: `1${NBSP}234`, pad: ',00', title: undefined });
  });

  it('keep every digit of amounts beyond a float (no number on the way)', () => {
    expect(amountText('12345678901234567.125', 'EUR', 'en-US').text).toBe('12,345,678,901,234,567.13');
  });

  it('never show a minus zero', () => {
    expect(amountText('-0.001', 'EUR', 'en-US').text).toBe('0.00');
  });
});

describe('unit prices and quantities', () => {
  it('show unit prices with at least the minor unit and at most 4 places, padded to 4', () => {
    expect(unitPriceText('0.1987', 'EUR', 'en-US')).toEqual({ text: '0.1987', pad: '', title: undefined });
    expect(unitPriceText('12.5', 'SEK', 'sv-SE')).toEqual({ text: '12,50', pad: '00', title: undefined });
    expect(unitPriceText('0.123456', 'USD', 'en-US')).toEqual({ text: '0.1235', pad: '', title: '0.123456 USD' });
    expect(unitPriceText('150', 'JPY', 'en-US')).toEqual({ text: '150', pad: '.0000', title: undefined });
  });

  it('show quantities as they are, up to 4 places', () => {
    expect(quantityText('250', 'en-US')).toEqual({ text: '250', pad: '.0000', title: undefined });
    expect(quantityText('4999.99', 'sv-SE')).toEqual({ text: `4${NBSP}999,99`, pad: '00', title: undefined });
    expect(quantityText('1.234567', 'en-US')).toEqual({ text: '1.2346', pad: '', title: '1.234567' });
  });
});

describe('margin %', () => {
  it('carries the percent sign and the decimal separator of the locale', () => {
    expect(percentText('12.34', 'en-US').text).toBe('12.34%');
    expect(percentText('12.34', 'sv-SE').text).toBe(`12,34${NBSP}%`);
    expect(percentText('-7.5', 'sv-SE').text).toBe(`${MINUS}7,50${NBSP}%`);
    expect(percentText('33.33333', 'en-US')).toEqual({ text: '33.33%', pad: '', title: '33.33333%' });
  });
});

describe('counts', () => {
  it('group in the locale', () => {
    expect(formatCount(100_000, 'en-US')).toBe('100,000');
    expect(formatCount(100_000, 'sv-SE')).toBe(`100${NBSP}000`);
  });
  it('name what they count, singular for one only', () => {
    expect(countOf(1, 'line', undefined, 'en-US')).toBe('1 line');
    expect(countOf(0, 'line', undefined, 'en-US')).toBe('0 lines');
    expect(countOf(2, 'fetch', 'fetches', 'en-US')).toBe('2 fetches');
    expect(countOf(1, 'fetch', 'fetches', 'en-US')).toBe('1 fetch');
    expect(countOf(1_000, 'billing line', undefined, 'sv-SE')).toBe(`1${NBSP}000 billing lines`);
  });
});

describe('exact cells', () => {
  it('keep every digit, with the decimal separator of the locale and no grouping', () => {
    expect(exactCell('1147433.0305', 'en-US')).toBe('1147433.0305');
    expect(exactCell('1147433.0305', 'sv-SE')).toBe('1147433,0305');
    expect(exactCell(null, 'en-US')).toBe('');
  });
});
