import { AppError } from '@shared/errors';

/**
 * The bounds of one billing report and how a refusal of it is said: one place that both halves of the reader (the
 * JSON grammar in report-tokens.ts, the report's parts in report-assembler.ts) check against.
 */

/**
 * The most one billing report may hold — a service's answer or a colleague's file, read by the same reader. Every
 * bound is checked as the report streams in, so a hostile body is refused after reading no more than the bound,
 * in time linear in its size, and memory never grows with it.
 */
export const REPORT_LIMITS = {
  /**
   * Nesting, counted in objects and lists. The report itself is 12 levels deep: an outer list (spec §2.3 allows
   * one), the result, `data`, an entry, `organizations`, an organization, `services`, a service, `items`, a
   * subscription, `products`, a line. 64 leaves 52 levels for fields the interface does not show.
   */
  depth: 64,
  /** Billing entries: one per billing date, so a month has at most 31 and a year 366. */
  entries: 1_000,
  /** Organizations in one report: a real month has up to 50,000 end customers; ten times that. */
  organizations: 500_000,
  /** Billing lines in one report: a real month has up to 1,000,000 (the size Closebook is measured at); five times that. */
  lines: 5_000_000,
  /**
   * Billing lines of one organization: even the largest customer is a part of a month; a whole real month
   * (1,000,000 lines) in one customer still passes. Its lines are handed over one by one, never held together.
   */
  linesPerOrganization: 1_000_000,
  /** Services and subscriptions in one report: each carries at least one line in a real month, so the lines' bound. */
  services: 5_000_000,
  subscriptions: 5_000_000,
  /** Groups of one organization (cost centres, account managers): a handful in practice; 1,000 is room. */
  groupsPerOrganization: 1_000,
  /**
   * One text (a value or a key) in characters. The ledger keeps at most 4,000 of a name or details and an amount is
   * at most 64; a field the interface does not show may hold more, but not a megabyte.
   */
  textCharacters: 1_000_000,
  /** One JSON number as written: an amount has at most 64 characters (ledgerDecimal); 1,000 is room for fields not shown. */
  numberCharacters: 1_000,
  /** Values in a saved file's summary (`meta`): about 20, plus 5 per currency pair in its totals. */
  metaValues: 10_000,
  /** Characters in that summary, its keys included: about 2,000 in a real one. */
  metaCharacters: 100_000,
} as const;

/**
 * Texts kept until their part is complete (an entry's dates, an organization's groups) are kept only to one
 * character past what their check allows (4,000 and 200): the check still refuses them in its own words, and a
 * thousand entries of megabyte-long dates do not sit in memory.
 */
export const KEPT_TEXT = { entry: 4_001, group: 201 };

/** What a bound refused, said for the service; a file's import says it of the file. */
export function pastLimit(what: string): AppError {
  return new AppError('bad-response', `The billing report ${what}. Nothing was saved; report it to the service if it repeats.`);
}

/** A count in words for a message: 5,000,000. */
export const countText = (value: number) => value.toLocaleString('en');
