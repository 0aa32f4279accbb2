import { FALLBACK_NAME_ORDER } from '@shared/model/name-order';
import { RANKED_NAMES, rankNamesSql } from '../name-ranks';

/** Columns added to appended tables after migration 001 declared them: ingest appends them last, in this order. */
export const NAME_RANK_COLUMNS = { organizations: ['name_rank'], services: ['name_rank'] } as const satisfies Record<keyof typeof RANKED_NAMES, string[]>;

/**
 * Names in the order of the profile's language (shared/model/name-order): each organization and service gets its
 * place in that order, and each report the order its places are in. Months saved before are ranked in the fallback
 * order here; the first read that wants another ranks them again (reports/name-orders.ts).
 */
export const NAME_ORDER: string[] = [
  ...Object.keys(NAME_RANK_COLUMNS).map((table) => `ALTER TABLE ${table} ADD COLUMN name_rank INTEGER`),
  'ALTER TABLE reports ADD COLUMN name_order VARCHAR',
  ...rankNamesSql(FALLBACK_NAME_ORDER, 'all'),
];
