import { ChangeKind, ChangeLevel, type ChangeView } from '@shared/schemas/month-close';
import type { NameOrder } from '@shared/model/name-order';
import type { LedgerValue } from '@core/ledger/ledger';
import { CURRENCY_KEY } from '@core/ledger/keys';
import { nameKeySql } from '@core/ledger/name-ranks';
import { SEARCHED_LEVELS, typedWords } from '@core/reports';
import { type ComparedMonths, withNames } from './compare';

/*
 * A view of a kept comparison's changes (the Close screen's list: a kind, words searched, a column sorted) made in
 * the ledger: only the window on screen crosses into JavaScript, whatever the number of changes.
 */

/** A list of text literals (fixed names from the schema, never typed text). */
const sqlList = (values: readonly string[]) => `[${values.map((value) => `'${value}'`).join(', ')}]`;

/** A number of month 1 or 2 as one whole number: the month in the high bits. */
const monthNumber = (month: string, no: string) => `((${month})::BIGINT << 32) | ${no}`;

/**
 * The kept changes that name something whose search text (the months' own, as the viewer searches) holds the word
 * bound as `$word`: organization, customer number and id; service and id; subscription, id and PO number; product,
 * id, item code and details. `months` are the parameters of the month before and after (named_in 1 and 2).
 */
function wordCondition(word: string, [before, after]: [string, string]): string {
  // The levels a kept change names by their numbers (queries/compare.ts namedIn), as the viewer searches them.
  const levels = SEARCHED_LEVELS.map(
    ({ table, column: no }) =>
      `${monthNumber('named_in', no)} IN (SELECT ${monthNumber(`CASE WHEN report_id = ${before} THEN 1 ELSE 2 END`, no)} FROM ${table}
        WHERE report_id IN (${before}, ${after}) AND contains(search, ${word}))`,
  );
  return `(${levels.join(' OR ')})`;
}

/** Where a change is, as the list shows it: service › subscription › product, as far as it names them. */
const PLACE = "concat_ws(' › ', nullif(service, ''), nullif(subscription, ''), nullif(product, ''))";

/** What a view sorts by, then by the comparison's own order (`seq`), so equal keys keep a readable order. */
function orderBy(view: ChangeView): string {
  const direction = view.direction === 'asc' ? 'ASC' : 'DESC';
  // Money compares within one currency pair, never across: the pair first, then the amount (a missing side last).
  const money = (amount: string) => `${CURRENCY_KEY}, ${amount} ${direction} NULLS LAST, seq`;
  switch (view.sort) {
    case 'organization':
      return `seq ${direction}`;
    case 'kind':
      return `list_position(${sqlList(ChangeKind.options)}, kind) ${direction}, seq`;
    case 'level':
      return `list_position(${sqlList(ChangeLevel.options)}, level) ${direction}, seq`;
    case 'place':
      return `places.place_rank ${direction}, seq`;
    case 'currency':
      return `${CURRENCY_KEY} ${direction}, seq`;
    case 'before':
      return money('s0');
    case 'after':
      return money('s1');
    case 'effect':
      return money('price_effect + quantity_effect + new_lost_effect + other_effect');
  }
}

/** The words a view looks for, folded as the search text is; a word typed twice once (each is a pass over the months' names). */
const wordsOf = (view: ChangeView) => [...new Set(typedWords({ text: view.text }))];

/** The comparison's own order, every change: its numbers are the order (no query needed). */
export function isWholeInOrder(view: ChangeView): boolean {
  return !view.kind && wordsOf(view).length === 0 && view.sort === 'organization';
}

/** What a view is, as its order is kept: its words folded (typing "Acme" or "acme" is one view). */
export function viewKey(view: ChangeView): string {
  return JSON.stringify([view.kind ?? null, wordsOf(view), view.sort, view.direction]);
}

/**
 * The statement that gives a view's changes of a kept comparison as the `seq` of each, in the view's order, as one
 * text of numbers joined by commas (one value: 345,774 rows would each cross on their own). $1 is the comparison's
 * key; its months are bound when a word is searched or the changes are named (DuckDB refuses a parameter the
 * statement does not use).
 */
export function viewOrderQuery(view: ChangeView, order: NameOrder, months: ComparedMonths) {
  const params: LedgerValue[] = [months.key];
  const bind = (value: string) => `$${params.push(value)}`;
  const conditions = ['comparison_key = $1'];
  if (view.kind) conditions.push(`kind = ${bind(view.kind)}`);
  let bound: [string, string] | undefined;
  const monthParams = () => (bound ??= [bind(months.beforeId), bind(months.afterId)]);
  for (const word of wordsOf(view)) conditions.push(wordCondition(bind(word), monthParams()));
  const kept = `SELECT * FROM kept_changes WHERE ${conditions.join(' AND ')}`;
  // Service › subscription › product, as the list shows them, in the month's name order (as every list of it): each
  // distinct one collated once (every change's took 1.1–1.3 s of 345,774, the distinct 0.6–0.8 s).
  const places =
    view.sort === 'place'
      ? `, places AS (SELECT place, dense_rank() OVER (ORDER BY ${nameKeySql('place', order)}, place) AS place_rank FROM (SELECT DISTINCT ${PLACE} AS place FROM shown))`
      : '';
  return {
    sql: `WITH shown AS (${places ? withNames(kept, monthParams()) : kept})${places}
      SELECT coalesce(string_agg(seq::VARCHAR, ',' ORDER BY ${orderBy(view)}), '') AS seqs
      FROM shown ${places ? `JOIN places ON places.place = ${PLACE}` : ''}`,
    params,
  };
}
