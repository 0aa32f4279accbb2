import { KEPT_TABLES } from './004-kept-comparisons';

/**
 * The bridges kept with a comparison split the cost as well as the sales. Kept comparisons are derived (made again
 * from the saved months when asked for), so they are dropped rather than converted: the bridges' table is made anew
 * in its present shape (migration 004 already makes that shape in a new ledger), and the changes kept with them go.
 */
export const COST_BRIDGES: string[] = [
  'DELETE FROM kept_changes',
  'DELETE FROM kept_comparisons',
  'DROP TABLE kept_bridges',
  `CREATE TABLE kept_bridges (${KEPT_TABLES.kept_bridges})`,
];
