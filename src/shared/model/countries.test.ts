import { describe, expect, it } from 'vitest';
import { CountryCode } from '../schemas/common';
import { COUNTRY_CODES, countryCodeProblem } from './countries';

describe('country codes', () => {
  it('holds the 249 codes ISO 3166-1 assigns, and XI and XK', () => {
    expect(COUNTRY_CODES.size).toBe(251);
    for (const code of ['SE', 'GB', 'DE', 'US', 'AX', 'SS', 'XI', 'XK']) expect(countryCodeProblem(code), code).toBeNull();
  });

  it('refuses a code no country has, naming what the common slips meant', () => {
    expect(countryCodeProblem('UK')).toBe('UK is not an ISO 3166 country code: write GB (the United Kingdom)');
    expect(countryCodeProblem('EL')).toBe('EL is not an ISO 3166 country code: write GR (Greece; EL is its VAT prefix)');
    expect(countryCodeProblem('XX')).toBe('XX is not an ISO 3166 country code (SE, GB, DE …)');
  });

  it("checks an organization's country as it is typed: any case, kept upper-case, one message a problem", () => {
    expect(CountryCode.parse(' se ')).toBe('SE');
    expect(CountryCode.safeParse('uk').error?.issues.map((issue) => issue.message)).toEqual([
      'UK is not an ISO 3166 country code: write GB (the United Kingdom)',
    ]);
    expect(CountryCode.safeParse('Sweden').error?.issues.map((issue) => issue.message)).toEqual(['must be a two-letter country code like SE']);
  });
});
