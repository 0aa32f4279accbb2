import { foldedSql } from '../keys';

/** The search text of months saved before search ignored diacritics, folded as a new month's is (schema.ts searchText). */
export const FOLDED_SEARCH: string[] = ['organizations', 'services', 'subscriptions', 'products'].map(
  (table) => `UPDATE ${table} SET search = ${foldedSql('search')}`,
);
