import { FOLDED_LETTERS } from '@shared/search-fold';
import { PAIR_ARROW } from '@shared/model/currency-pair';
import { TREE_LEVEL, type TreeLevel } from '@shared/model/tree-keys';
import { reportNumbersSql } from './report-numbers';

/**
 * The keys the tree, the comparison and the checks all group by, as SQL over the ledger's tables — each written once.
 */

/** An organization as the tree knows it: its id, or its name and number when the id is missing (`o` = organizations). */
export const ORG_KEY = `CASE WHEN o.org_id <> '' THEN o.org_id ELSE o.name || '|' || o.customer_number END`;

/**
 * A service as the tree by service knows it, the same for every organization that has it (`s` = services): its id,
 * or its name when the id is missing (marked apart, so a name never passes for an id).
 */
export const SERVICE_KEY = `CASE WHEN s.service_id <> '' THEN 'i' || s.service_id ELSE 'n' || s.service_name END`;

/**
 * The levels a top row of the viewer's tree stands for, each numbered in its report by the key the tree knows it
 * by (`key_no`): organizations that share ORG_KEY (one organization in several billing entries) share a number, as
 * services that share SERVICE_KEY do. A keystroke's top rows are grouped on these whole numbers, and their names
 * and keys are read for the rows a window shows only (reports/queries/viewer.ts).
 */
export const KEYED_LEVELS = {
  organizations: { no: 'org_no', alias: 'o', key: ORG_KEY },
  services: { no: 'service_no', alias: 's', key: SERVICE_KEY },
} as const;

/**
 * The statements that number the keys of one report ($1), or of every report (`report` 'all': the migration): in
 * the keys' own order, so the tree breaks a tie between two equal names the same way every time.
 */
export function keyNumbersSql(report: 'one' | 'all' = 'one'): string[] {
  return Object.entries(KEYED_LEVELS).map(([table, { no, alias, key }]) => reportNumbersSql({ table, no, column: 'key_no', order: key, alias }, report));
}

/** The currency-pair key (see shared/model/currency-pair.ts) of a row with currency and customer_currency (of `alias`). */
export function currencyPairSql(alias?: string): string {
  const [cost, sales] = alias ? [`${alias}.currency`, `${alias}.customer_currency`] : ['currency', 'customer_currency'];
  return `CASE WHEN ${cost} = ${sales} THEN ${cost} ELSE ${cost} || '${PAIR_ARROW}' || ${sales} END`;
}

/** "SEK", or "USD→SEK" (on a table with currency and customer_currency). */
export const CURRENCY_KEY = currencyPairSql();

/** A tree row's key in SQL (see shared/model/tree-keys.ts): the level's letter before `id`, an SQL expression. */
export function treeKeySql(level: TreeLevel, id: string): string {
  return `'${TREE_LEVEL[level]}:' || ${id}`;
}

/**
 * A lower-cased text column folded for search in SQL, as shared/search-fold.ts foldForSearch folds typed text:
 * DuckDB's strip_accents takes the marks off as NFD decomposition does, then the letters NFD leaves whole.
 */
export function foldedSql(lowerCased: string): string {
  return Object.entries(FOLDED_LETTERS).reduce((sql, [letter, typed]) => `replace(${sql}, '${letter}', '${typed}')`, `strip_accents(${lowerCased})`);
}
