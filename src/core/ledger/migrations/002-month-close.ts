import { PRICE } from '../types';

/**
 * Closing a month. Reviews, sign-offs and rates belong to the month — (host, reseller id, period) — not to one
 * fetch of it, so a note survives a refetch. The review log is append-only: every change of state is a new row.
 */
export const MONTH_CLOSE: string[] = [
  `CREATE TABLE exception_reviews (
    host VARCHAR NOT NULL, reseller_id VARCHAR NOT NULL, period_start VARCHAR NOT NULL, period_end VARCHAR NOT NULL, exception_id VARCHAR NOT NULL,
    state VARCHAR NOT NULL, note VARCHAR NOT NULL, reviewed_by VARCHAR NOT NULL, reviewed_at VARCHAR NOT NULL,
    PRIMARY KEY (host, reseller_id, period_start, period_end, exception_id))`,
  `CREATE TABLE review_log (
    host VARCHAR NOT NULL, reseller_id VARCHAR NOT NULL, period_start VARCHAR NOT NULL, period_end VARCHAR NOT NULL, exception_id VARCHAR NOT NULL,
    action VARCHAR NOT NULL, note VARCHAR NOT NULL, by_name VARCHAR NOT NULL, os_user VARCHAR NOT NULL, logged_at VARCHAR NOT NULL)`,
  `CREATE TABLE sign_offs (
    host VARCHAR NOT NULL, reseller_id VARCHAR NOT NULL, period_start VARCHAR NOT NULL, period_end VARCHAR NOT NULL, report_id VARCHAR NOT NULL,
    content_hash VARCHAR NOT NULL, signed_by VARCHAR NOT NULL, os_user VARCHAR NOT NULL, signed_at VARCHAR NOT NULL,
    reopened_at VARCHAR, reopened_by VARCHAR, reopen_reason VARCHAR)`,
  `CREATE TABLE month_rates (
    host VARCHAR NOT NULL, reseller_id VARCHAR NOT NULL, period_start VARCHAR NOT NULL, period_end VARCHAR NOT NULL,
    reference_currency VARCHAR NOT NULL, currency VARCHAR NOT NULL, rate ${PRICE} NOT NULL,
    PRIMARY KEY (host, reseller_id, period_start, period_end, currency))`,
];
