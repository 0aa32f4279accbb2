import { KEPT_TABLES } from './004-kept-comparisons';

/**
 * A kept change holds the month it is named in and that month's numbers of what it names (`named_in`, `org_no` …
 * `product_no`), so the Close screen searches a comparison's changes in the ledger, by the months' search text. Kept comparisons are derived (made again from the saved months when asked for),
 * so they are dropped rather than filled in: the changes' table is made anew in its present shape.
 */
export const CHANGE_SEARCH: string[] = [
  'DELETE FROM kept_bridges',
  'DELETE FROM kept_comparisons',
  'DROP TABLE kept_changes',
  `CREATE TABLE kept_changes (${KEPT_TABLES.kept_changes})`,
];
