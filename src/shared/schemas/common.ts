import { z } from 'zod';
import { countryCodeProblem } from '../model/countries';
import { BIDI_CONTROLS } from '../file-names';

// A missing field reads "is required" everywhere (forms, CLI flags, files) rather than zod's type jargon.
z.config({
  customError: (issue) => (issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : undefined),
});

const GUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Identifiers in the service are GUID strings (spec §2); case is not significant. */
export const Guid = z.string().trim().regex(GUID_PATTERN, 'must be a GUID like 3f2504e0-4f89-11d3-9a0c-0305e82c3301');

export function isGuid(value: string): boolean {
  return GUID_PATTERN.test(value.trim());
}

/** A three-letter ISO 4217 currency code, upper-case. */
export const CurrencyCode = z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 currency code');

/** A calendar date as the service takes it: YYYY-MM-DD, and a real date. */
export const IsoDate = z.string().superRefine((value, context) => {
  // One problem a value: text that is no date at all is not also said to be no real calendar date.
  const date = new Date(`${value}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) context.addIssue({ code: 'custom', message: 'must be a date like 2026-10-31' });
  else if (Number.isNaN(date.getTime()) || !date.toISOString().startsWith(value)) context.addIssue({ code: 'custom', message: 'is not a real calendar date' });
});

export const Email = z.string().trim().email('must be an e-mail address like name@example.com');

/** A host name such as contoso.com (no scheme, no path). */
export const DomainName = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'must be a domain name like contoso.com');

/** Says what is wrong with a country code (upper-cased) that is no ISO 3166-1 alpha-2 code. */
function checkCountryCode(code: string, context: z.RefinementCtx): void {
  const problem = /^[A-Z]{2}$/.test(code) ? countryCodeProblem(code) : 'must be a two-letter country code like SE';
  if (problem) context.addIssue({ code: 'custom', message: problem });
}

/** An ISO 3166-1 alpha-2 code (COUNTRY_CODES); accepted in any case, kept upper-case. UK is refused, saying GB. */
export const CountryCode = z.string().trim().toUpperCase().superRefine(checkCountryCode);

/** CountryCode, or none (''): where a country may be left out (an invoice mapping, the seller). */
export const OptionalCountryCode = z
  .string()
  .trim()
  .toUpperCase()
  .superRefine((code, context) => {
    if (code) checkCountryCode(code, context);
  });

/** What a name shown in lists, headings and file names may not hold: control characters (a line break, a tab) and the invisible direction marks. */
const UNSEEN_IN_NAMES = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f]|${BIDI_CONTROLS.source}`);

/** A name a person gives (a profile, a saved month): required, at most `max` characters, nothing unseen in it. */
export const PlainName = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'is required')
    .max(max, `must be at most ${max} characters`)
    .refine((name) => !UNSEEN_IN_NAMES.test(name), 'must not hold a line break, a tab or another invisible character');
