import { KEPT_CHANGES_ANEW } from './004-kept-comparisons';

/**
 * A kept change no longer writes out the names and ids of its organization and service: it keeps the month it is
 * named in and that month's numbers of them (migration 015), and a read joins the month's own (queries/compare.ts
 * withNames). Written out for each of the 345,774 changes of two 1,000,000-line months, those five texts were half
 * the time their comparison took to keep. The changes' table is made anew in its present shape.
 */
export const NAMED_BY_NUMBERS: string[] = [...KEPT_CHANGES_ANEW];
