import type { ReportFilter } from '@shared/report-filter';
import { currenciesOf } from '@shared/model/currency-pair';
import { foldForSearch } from '@shared/search-fold';
import type { Ledger, LedgerBits, LedgerValue } from '@core/ledger/ledger';
import { type Row, rowShape } from '@core/ledger/rows';

/**
 * The levels of a month that carry folded search text (`search`), each with its number column: what a typed word is
 * looked for in, by the viewer and by the Close screen's search of changes.
 */
export const SEARCHED_LEVELS = [
  { table: 'products', column: 'product_no', bound: 'products' },
  { table: 'subscriptions', column: 'subscription_no', bound: 'subscriptions' },
  { table: 'services', column: 'service_no', bound: 'services' },
  { table: 'organizations', column: 'org_no', bound: 'organizations' },
] as const;

const LEVEL_NUMBERS = rowShape({ products: 'int', subscriptions: 'int', services: 'int', organizations: 'int' });

/**
 * The highest number each level of a report uses (in its own table or on its lines; 0 for none): the bounds of the
 * sets of numbers a typed word matches (see wordMatches). Read once per report by the viewer, per export otherwise.
 */
export type LevelNumbers = Row<typeof LEVEL_NUMBERS.columns>;

/** The statement of a report's level numbers ($1 is the report id): one row, a column per level. */
export const LEVEL_NUMBERS_SQL = `SELECT ${SEARCHED_LEVELS.map(
  ({ table, column, bound }) => `coalesce(greatest((SELECT max(${column}) FROM ${table} WHERE report_id = $1), max(l.${column})), 0)::INTEGER AS ${bound}`,
).join(', ')} FROM billing_lines l WHERE l.report_id = $1`;

/** A report's level numbers, on the reading connection or (`ahead`) on one of their own (Ledger.readAhead). */
export async function levelNumbers(ledger: Ledger, reportId: string, { ahead = false } = {}): Promise<LevelNumbers> {
  const rows = ahead ? await ledger.readAhead(LEVEL_NUMBERS_SQL, [reportId]) : await ledger.all(LEVEL_NUMBERS_SQL, [reportId]);
  const [numbers] = LEVEL_NUMBERS.all(rows);
  if (!numbers) throw new Error('The level numbers statement answered no row.'); // an aggregate without GROUP BY always answers one
  return numbers;
}

/** A condition on `billing_lines l` and its bound parameters. */
export interface LineCondition {
  where: string;
  params: LedgerValue[];
}

/** The viewer's filter as a condition on a report's lines (lineFilter), with its typed words' matches made first. */
export async function reportLineFilter(ledger: Ledger, reportId: string, filter: ReportFilter = {}): Promise<LineCondition> {
  const words = typedWords(filter);
  return lineFilter(reportId, filter, words.length ? await wordMatches(ledger, reportId, words, await levelNumbers(ledger, reportId)) : undefined);
}

/** The words of the text filter, each matched on its own: folded as the search text is, split at spaces. */
export function typedWords(filter: ReportFilter): string[] {
  return foldForSearch(filter.text?.trim() ?? '')
    .split(/\s+/)
    .filter(Boolean);
}

/**
 * What each typed word matches at each level (in SEARCHED_LEVELS' order): the set of the level's numbers whose search text
 * holds it, as bits (null where none does).
 */
export type WordMatches = WordSets[];
/** One word's sets, a set of bits per level (null where nothing at that level holds it). */
export type WordSets = (LedgerBits | null)[];

/**
 * A word's sets narrow the reading of a longer word at a level only where they hold at most this share of it. At
 * 1,000,000 lines, the subscriptions of the bench's words: a single letter's matches (0.97–0.99 of them) made the
 * read slower than reading every text (31–34 ms against 27–30 ms); 0.69 and less made it faster (10–21 ms against
 * 17–28 ms).
 */
const NARROWS_BELOW = 0.8;

/**
 * The statement of wordMatches: one row, a set of bits per word and level ($1 is the report id), or null when no level
 * is left to read. `within` may give, per word, the sets of a word it holds (a word typed on from one looked for
 * before): whatever holds the longer word holds that one too, so only what that one matched is read, and a level
 * where it matched nothing is not read at all (see NARROWS_BELOW).
 */
export function wordMatchesQuery(
  reportId: string,
  words: string[],
  numbers: LevelNumbers,
  within: readonly (WordSets | undefined)[] = [],
): { sql: string; params: LedgerValue[] } | null {
  const params: LedgerValue[] = [reportId];
  let read = false;
  const sets = words.flatMap((word, index) => {
    const known = within[index];
    if (known && known.length !== SEARCHED_LEVELS.length) throw new Error('A word to look within has no set for every level.');
    let bound: string | undefined; // the word's parameter, bound once it is read at some level
    return SEARCHED_LEVELS.map(({ table, column, bound: level }, at) => {
      const among = known?.[at];
      if (known && !among) return 'NULL::BIT';
      read = true;
      bound ??= `$${params.push(word)}`;
      const narrowed = among && among.setShare() <= NARROWS_BELOW ? ` AND get_bit($${params.push(among)}::BIT, ${column}) = 1` : '';
      return `(SELECT bitstring_agg(${column}, 0, ${wholeNumber(numbers[level])}) FROM ${table} WHERE report_id = $1${narrowed} AND contains(search, ${bound}))`;
    });
  });
  return read ? { sql: `SELECT ${sets.join(', ')}`, params } : null;
}

export async function wordMatches(
  ledger: Ledger,
  reportId: string,
  words: string[],
  numbers: LevelNumbers,
  within: readonly (WordSets | undefined)[] = [],
): Promise<WordMatches> {
  const query = wordMatchesQuery(reportId, words, numbers, within);
  const sets = query ? await ledger.bitSets(query.sql, query.params) : [];
  return words.map((_, index) => SEARCHED_LEVELS.map((_, level) => sets[index * SEARCHED_LEVELS.length + level] ?? null));
}

/**
 * A statement that reads every level's search text as a typed word's first statement does (wordMatchesQuery), for a
 * word no folded text holds (an upper-case letter), and needs nothing read before it: the viewer runs it ahead of the
 * first keystroke, so that keystroke finds the text in DuckDB's memory.
 */
export function searchTextRead(reportId: string): { sql: string; params: LedgerValue[] } {
  const levels = SEARCHED_LEVELS.map(({ table }) => `(SELECT count(*) FROM ${table} WHERE report_id = $1 AND contains(search, $2))`);
  return { sql: `SELECT ${levels.join(', ')}`, params: [reportId, 'A'] };
}

/**
 * The condition on `billing_lines l` for the viewer's filter, with bound parameters only: nothing the user typed
 * ever becomes SQL text ($1 is the report id). It touches the lines table alone — organizations, groups and
 * services are matched in their own small tables first — so a keystroke scans one table once. Each typed word's
 * matches are made first (wordMatches, the sets `matches` holds, needed only when words are typed) and bound here as
 * constants, so each line is looked up by its numbers' positions. Against hash lookups of the matching numbers, at
 * 1,000,000 lines: the first letter of a word (400,000 subscriptions for "m") 0.4× the time of a keystroke's window,
 * the median keystroke 0.8–0.9×. (Made inside this statement, the sets were joined to every line, and some words
 * took four times as long.)
 */
export function lineFilter(reportId: string, filter: ReportFilter, matches: WordMatches | undefined): LineCondition {
  const params: LedgerValue[] = [reportId];
  const bind = (value: LedgerValue) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = ['l.report_id = $1'];
  if (filter.ungrouped) where.push('l.org_no NOT IN (SELECT org_no FROM organization_groups WHERE report_id = $1)');
  if (filter.group) where.push(`l.org_no IN (SELECT org_no FROM organization_groups WHERE report_id = $1 AND group_name = ${bind(filter.group)})`);
  if (filter.service) where.push(`l.service_no IN (SELECT service_no FROM services WHERE report_id = $1 AND service_name = ${bind(filter.service)})`);
  if (filter.currency) {
    const { cost, sales } = currenciesOf(filter.currency);
    where.push(`l.currency = ${bind(cost)} AND l.customer_currency = ${bind(sales)}`);
  }
  // Both filters ignore case and diacritics ("akerberg" finds Åkerberg): they read the organizations' search text,
  // folded at ingest (name, customer number and id), so a keystroke folds nothing row by row.
  const organization = foldForSearch(filter.organization?.trim() ?? '');
  if (organization) where.push(`l.org_no IN (SELECT org_no FROM organizations WHERE report_id = $1 AND contains(search, ${bind(organization)}))`);
  typedWords(filter).forEach((word, index) => {
    const sets = matches?.[index];
    if (!sets || sets.length !== SEARCHED_LEVELS.length) throw new Error(`The typed word "${word}" has no matches made (wordMatches).`);
    // No match at a level is a NULL set, and a NULL bit keeps no line.
    where.push(`(${SEARCHED_LEVELS.map(({ column }, level) => `get_bit(${bind(sets[level] ?? null)}::BIT, l.${column}) = 1`).join(' OR ')})`);
  });
  return { where: where.join(' AND '), params };
}

/** A bound written into SQL: a whole number of ours, never typed text. */
function wholeNumber(value: number): string {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`A level number must be a whole number ≥ 0, not ${value}`);
  return String(value);
}
