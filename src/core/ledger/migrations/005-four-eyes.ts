/**
 * The four-eyes close. A month is Draft (no row in `month_sign_offs`), Prepared or Approved, on one fetch of it (its
 * report id and content hash), with the thresholds and rates it was checked with. Every step — a review, prepare,
 * approve, reopen, a draft deleted — is an entry of the month's `close_log`, each chained to the one before by a
 * SHA-256, so an entry removed or changed is found; the sign-off keeps the last entry it saw (log_seq, log_hash), so
 * entries cut from the end are found too. A review keeps the evidence it accepted (the exception's figures),
 * so a refetch that changes them suspends it.
 *
 * What the old single sign-off becomes: Prepared by the OS user it recorded (nothing is approved by migration), the
 * typed name in the log entry; reviews carried over have no evidence yet and take it from the month the first time it
 * is checked ("evidence captured at migration").
 */

/** The columns of a log entry that its hash covers, in the order they are chained (ledger and team ledger alike). */
export const CLOSE_LOG_FIELDS = [
  'host',
  'reseller_id',
  'period_start',
  'period_end',
  'seq',
  'report_id',
  'action',
  'exception_id',
  'note',
  'actor',
  'logged_at',
  'evidence',
] as const;

/**
 * What an entry's hash is taken of: each field as its UTF-8 byte length, a colon and its text, so no text a user
 * types can make two entries read the same. The same in SQL (for the migration) and in TypeScript (close-log.ts).
 */
export const closeLogPayloadSql = (alias: string) =>
  CLOSE_LOG_FIELDS.map((field) => `strlen(${alias}.${field}::VARCHAR)::VARCHAR || ':' || ${alias}.${field}::VARCHAR`).join(' || ');

const MONTH_KEY = 'host VARCHAR NOT NULL, reseller_id VARCHAR NOT NULL, period_start VARCHAR NOT NULL, period_end VARCHAR NOT NULL';
const SAME = (a: string, b: string) => ['host', 'reseller_id', 'period_start', 'period_end'].map((column) => `${a}.${column} = ${b}.${column}`).join(' AND ');

export const FOUR_EYES: string[] = [
  `CREATE TABLE month_sign_offs (${MONTH_KEY}, report_id VARCHAR NOT NULL, content_hash VARCHAR NOT NULL, state VARCHAR NOT NULL,
    prepared_by VARCHAR NOT NULL, prepared_at VARCHAR NOT NULL, approved_by VARCHAR, approved_at VARCHAR, thresholds VARCHAR, rates VARCHAR,
    log_seq INTEGER, log_hash VARCHAR,
    PRIMARY KEY (host, reseller_id, period_start, period_end))`,
  `CREATE TABLE close_log (${MONTH_KEY}, seq INTEGER NOT NULL, report_id VARCHAR NOT NULL, action VARCHAR NOT NULL, exception_id VARCHAR NOT NULL,
    note VARCHAR NOT NULL, actor VARCHAR NOT NULL, logged_at VARCHAR NOT NULL, evidence VARCHAR NOT NULL, previous_hash VARCHAR NOT NULL,
    hash VARCHAR NOT NULL, PRIMARY KEY (host, reseller_id, period_start, period_end, seq))`,
  'ALTER TABLE exception_reviews ADD COLUMN evidence VARCHAR',
  // 'review' (taken when reviewed), 'migration' (taken when first checked after the migration); NULL until then.
  'ALTER TABLE exception_reviews ADD COLUMN evidence_source VARCHAR',
  // The old log and sign-offs, in time order per month, chained as the new log is.
  `INSERT INTO close_log
   WITH RECURSIVE old AS (
     SELECT host, reseller_id, period_start, period_end, '' AS report_id, action, exception_id, note, os_user AS actor, logged_at, 0 AS source FROM review_log
     UNION ALL
     SELECT host, reseller_id, period_start, period_end, report_id, 'prepared',  '',
       'Signed off as "' || signed_by || '" before the four-eyes close; migrated to Prepared' || CASE WHEN reopened_at IS NULL THEN '.' ELSE ' (since reopened).' END,
       os_user, signed_at, 1 FROM sign_offs),
   entries AS (
     SELECT *, '' AS evidence, row_number() OVER (PARTITION BY host, reseller_id, period_start, period_end ORDER BY logged_at, source, exception_id)::INTEGER AS seq FROM old),
   chain AS (
     SELECT e.host, e.reseller_id, e.period_start, e.period_end, e.seq, '' AS previous_hash, sha256(${closeLogPayloadSql('e')}) AS hash FROM entries e WHERE e.seq = 1
     UNION ALL
     SELECT e.host, e.reseller_id, e.period_start, e.period_end, e.seq, c.hash, sha256(c.hash || ${closeLogPayloadSql('e')})
     FROM entries e JOIN chain c ON ${SAME('e', 'c')} AND e.seq = c.seq + 1)
   SELECT e.host, e.reseller_id, e.period_start, e.period_end, e.seq, e.report_id, e.action, e.exception_id, e.note, e.actor, e.logged_at, e.evidence,
     c.previous_hash, c.hash
   FROM entries e JOIN chain c ON ${SAME('e', 'c')} AND e.seq = c.seq`,
  `INSERT INTO month_sign_offs
   SELECT host, reseller_id, period_start, period_end, report_id, content_hash, 'prepared', os_user, signed_at, NULL, NULL, NULL, NULL, NULL, NULL
   FROM sign_offs WHERE reopened_at IS NULL
   QUALIFY row_number() OVER (PARTITION BY host, reseller_id, period_start, period_end ORDER BY signed_at DESC) = 1`,
  'DROP TABLE review_log',
  'DROP TABLE sign_offs',
];
