import { FALLBACK_NAME_ORDER } from '@shared/model/name-order';
import { RANKED_NAMES, rankNamesSql } from '../name-ranks';

/** The column this migration adds to an appended table: ingest appends it last, after migration 009's. */
export const SUBSCRIPTION_RANK_COLUMNS: Readonly<Record<string, readonly string[]>> = { subscriptions: ['name_rank'] };

/**
 * Subscriptions get their place in the name order too (ledger/name-ranks.ts), so an export sorts a month's lines on
 * whole numbers instead of collating every subscription's name at each run. Every month saved before is ranked
 * again, all three levels, in the fallback order (one order per report, whatever it was ranked in before); the first
 * read that wants its profile's order ranks it again (reports/name-orders.ts).
 */
export const SUBSCRIPTION_RANKS: string[] = [
  'ALTER TABLE subscriptions ADD COLUMN name_rank INTEGER',
  ...rankNamesSql(FALLBACK_NAME_ORDER, 'all', {
    organizations: RANKED_NAMES.organizations,
    services: RANKED_NAMES.services,
    subscriptions: RANKED_NAMES.subscriptions,
  }),
];
