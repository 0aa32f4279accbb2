import { MONTH_TABLES, MONTHS } from './migrations/001-months';
import { MONTH_CLOSE } from './migrations/002-month-close';
import { IMPORTED_FROM } from './migrations/003-imported-from';
import { KEPT_COMPARISONS } from './migrations/004-kept-comparisons';
import { FOUR_EYES } from './migrations/005-four-eyes';
import { INVOICES } from './migrations/006-invoices';
import { COST_BRIDGES } from './migrations/007-cost-bridges';
import { FOLDED_SEARCH } from './migrations/008-folded-search';
import { NAME_ORDER, NAME_RANK_COLUMNS } from './migrations/009-name-order';
import { SUBSCRIPTION_RANK_COLUMNS, SUBSCRIPTION_RANKS } from './migrations/010-subscription-ranks';
import { PRODUCT_LINES } from './migrations/011-product-lines';
import { UNCOMPRESSED_SEARCH } from './migrations/012-uncompressed-search';
import { PRODUCT_LINE_KEYS } from './migrations/013-product-line-keys';
import { KEY_NUMBER_COLUMNS, KEY_NUMBERS } from './migrations/014-key-numbers';
import { CHANGE_SEARCH } from './migrations/015-change-search';
import { INVOICE_RUN_PARTS } from './migrations/016-invoice-run-parts';
import { NAMED_BY_NUMBERS } from './migrations/017-named-by-numbers';
import { foldForSearch } from '@shared/search-fold';

export { AMOUNT, QUANTITY, UNIT_PRICE } from './types';

/** Each migration takes the ledger one version up; applied in order inside one transaction each. Never edit one that has shipped: add the next. */
export const MIGRATIONS: string[][] = [
  MONTHS,
  MONTH_CLOSE,
  IMPORTED_FROM,
  KEPT_COMPARISONS,
  FOUR_EYES,
  INVOICES,
  COST_BRIDGES,
  FOLDED_SEARCH,
  NAME_ORDER,
  SUBSCRIPTION_RANKS,
  PRODUCT_LINES,
  UNCOMPRESSED_SEARCH,
  PRODUCT_LINE_KEYS,
  KEY_NUMBERS,
  CHANGE_SEARCH,
  INVOICE_RUN_PARTS,
  NAMED_BY_NUMBERS,
];

/**
 * What the viewer's free-text filter searches, per level (organization, service, subscription, product): its
 * names and ids, lower-case and without diacritics (foldForSearch), joined by a character no one types. A line
 * matches a word when any level above it does; the levels are small tables, so a keystroke never scans the text of
 * a million lines.
 */
export function searchText(parts: string[]): string {
  return foldForSearch(parts.join('\u0001'));
}

/**
 * The tables ingest appends to, and their column order (the appender fills columns in table order): from their
 * declarations, then the columns later migrations added, in their order (name ranks and key numbers, made after the rows are in).
 */
const APPENDED_TABLES = ['organizations', 'organization_groups', 'services', 'subscriptions', 'billing_lines', 'products', 'billing_entries'] as const;
export type AppendedTable = (typeof APPENDED_TABLES)[number];
export const APPENDED = Object.fromEntries(
  APPENDED_TABLES.map((table) => [
    table,
    [
      ...Object.keys(MONTH_TABLES[table]),
      ...(NAME_RANK_COLUMNS[table] ?? []),
      ...(SUBSCRIPTION_RANK_COLUMNS[table] ?? []),
      ...(KEY_NUMBER_COLUMNS[table] ?? []),
    ],
  ]),
) as unknown as Record<AppendedTable, readonly string[]>;
