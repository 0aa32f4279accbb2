import { KEPT_CHANGES_ANEW } from './004-kept-comparisons';

/**
 * A kept change holds the month it is named in and that month's numbers of what it names (`named_in`, `org_no` …
 * `product_no`), so the Close screen searches a comparison's changes in the ledger, by the months' search text. Kept
 * comparisons are derived, so they are dropped rather than filled in: the changes' table is made anew in its present shape.
 */
export const CHANGE_SEARCH: string[] = [...KEPT_CHANGES_ANEW];
