import { FALLBACK_NAME_ORDER } from '@shared/model/name-order';
import { RANKED_NAMES, rankNamesSql } from '../name-ranks';

/** The tables this migration ranked (as it shipped: a later one ranks subscriptions too). */
const RANKED_HERE = { organizations: RANKED_NAMES.organizations, services: RANKED_NAMES.services } as const;

/** Columns added to appended tables after migration 001 declared them: ingest appends them last (a rank is made once every name is in). */
export const NAME_RANK_COLUMNS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.keys(RANKED_HERE).map((table) => [table, ['name_rank']]),
);

/**
 * Names in the order of the profile's language (shared/model/name-order): each organization and service gets its
 * place in that order, and each report the order its places are in. Months saved before are ranked in the fallback
 * order here; the first read that wants another ranks them again (reports/name-orders.ts).
 */
export const NAME_ORDER: string[] = [
  ...Object.keys(NAME_RANK_COLUMNS).map((table) => `ALTER TABLE ${table} ADD COLUMN name_rank INTEGER`),
  'ALTER TABLE reports ADD COLUMN name_order VARCHAR',
  ...rankNamesSql(FALLBACK_NAME_ORDER, 'all', RANKED_HERE),
];
