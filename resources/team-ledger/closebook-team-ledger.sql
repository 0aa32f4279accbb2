-- Closebook team ledger, schema version 1 (and, included at the end, 2: invoicing, 3: audit, and 4: period end) — run
-- once by IT, as the database's owner:
--
--     psql "postgresql://OWNER@HOST/DATABASE?sslmode=verify-full" -v ON_ERROR_STOP=1 -f closebook-team-ledger.sql
--
-- It creates the schema `closebook`, three group roles and the functions through which Closebook writes. People sign in
-- as their own login roles, each a member of one or more group roles:
--
--     CREATE ROLE anna LOGIN PASSWORD '…' IN ROLE closebook_preparer;
--     CREATE ROLE jonas LOGIN PASSWORD '…' IN ROLE closebook_approver;
--
--   closebook_preparer  shares fetched months, reviews a month's exceptions, prepares it, reopens a Prepared month
--   closebook_approver  shares fetched months, approves a Prepared month (never one it prepared), reopens an Approved one
--   closebook_auditor   reads everything, writes nothing
--
-- A person may hold both working roles (a small team often does): the database still refuses to let anyone approve a
-- month they prepared, or one of whose high exceptions they accepted.
--
-- The rules are the database's, whatever a client does: no role may write a table directly (only EXECUTE on the
-- functions, which check the month's state under a lock on its row), the close log refuses UPDATE, DELETE and TRUNCATE
-- for every role, the owner's included (a trigger; an owner can disable it, and the log's SHA-256 chain then shows
-- what changed), and who acted is the session's login role and the time the server's.

BEGIN;

DO $$
BEGIN
  -- The log's hash counts each field's bytes in UTF-8, as every workstation does.
  IF current_setting('server_encoding') <> 'UTF8' THEN
    RAISE EXCEPTION 'Closebook''s team ledger needs a UTF8 database (this one is %): CREATE DATABASE … ENCODING ''UTF8''.', current_setting('server_encoding');
  END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'closebook_preparer') THEN CREATE ROLE closebook_preparer NOLOGIN; END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'closebook_approver') THEN CREATE ROLE closebook_approver NOLOGIN; END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'closebook_auditor') THEN CREATE ROLE closebook_auditor NOLOGIN; END IF;
END $$;

CREATE SCHEMA closebook;
REVOKE ALL ON SCHEMA closebook FROM PUBLIC;
GRANT USAGE ON SCHEMA closebook TO closebook_preparer, closebook_approver, closebook_auditor;

CREATE TABLE closebook.schema_version (version integer NOT NULL);
INSERT INTO closebook.schema_version VALUES (1);

-- A month of one Broker at one service: what every workstation agrees on (never a local profile id).
CREATE TABLE closebook.months (
  month_id bigserial PRIMARY KEY,
  host text NOT NULL,
  reseller_id text NOT NULL,
  period_start date NOT NULL,
  period_end date NOT NULL,
  UNIQUE (host, reseller_id, period_start, period_end)
);

-- Each fetch of a month a workstation shared: its lines in the shared-report format (gzip), in chunks, so a colleague
-- opens the month without fetching it from the service again. Keyed by the SHA-256 of the month's canonical lines,
-- which the workstation that pulls it computes again and compares before it uses a line.
CREATE TABLE closebook.fetches (
  month_id bigint NOT NULL REFERENCES closebook.months,
  content_hash text NOT NULL CHECK (content_hash ~ '^[0-9a-f]{64}$'),
  lines bigint NOT NULL CHECK (lines >= 0),
  chunk_count integer NOT NULL CHECK (chunk_count >= 1),
  byte_count bigint NOT NULL CHECK (byte_count >= 0),
  complete boolean NOT NULL,
  fetched_at timestamptz NOT NULL,
  stored_by text NOT NULL,
  workstation text NOT NULL,
  stored_at timestamptz NOT NULL,
  PRIMARY KEY (month_id, content_hash)
);

CREATE TABLE closebook.fetch_chunks (
  month_id bigint NOT NULL,
  content_hash text NOT NULL,
  chunk_no integer NOT NULL,
  bytes bytea NOT NULL,
  PRIMARY KEY (month_id, content_hash, chunk_no),
  FOREIGN KEY (month_id, content_hash) REFERENCES closebook.fetches ON DELETE CASCADE
);

-- Each exception's review, on the figures it was given (kept as text, with their hash): a refetch that changes them
-- suspends it.
CREATE TABLE closebook.reviews (
  month_id bigint NOT NULL REFERENCES closebook.months,
  exception_id text NOT NULL,
  state text NOT NULL CHECK (state IN ('accepted', 'resolved')),
  note text NOT NULL,
  evidence text NOT NULL,
  evidence_hash text NOT NULL,
  reviewed_by text NOT NULL,
  workstation text NOT NULL,
  reviewed_at timestamptz NOT NULL,
  PRIMARY KEY (month_id, exception_id)
);

-- The sign-off in force: none while Draft. The exception set is what the preparer's checks found (id, severity,
-- evidence hash), so an approver's workstation can recompute it and the database can refuse a mismatch.
CREATE TABLE closebook.sign_offs (
  month_id bigint PRIMARY KEY REFERENCES closebook.months,
  state text NOT NULL CHECK (state IN ('prepared', 'approved')),
  content_hash text NOT NULL,
  previous_content_hash text,
  rules_version integer NOT NULL,
  exception_set jsonb NOT NULL,
  exception_set_hash text NOT NULL,
  thresholds jsonb NOT NULL,
  rates jsonb NOT NULL,
  prepared_by text NOT NULL,
  prepared_at timestamptz NOT NULL,
  approved_by text,
  approved_at timestamptz,
  -- The log's last entry when the sign-off was made: entries cut from the end are found (the chain alone would hold).
  log_seq integer,
  log_hash text
);

-- Every step of a month's close, each entry chained to the one before by a SHA-256 of its fields.
CREATE TABLE closebook.close_log (
  month_id bigint NOT NULL REFERENCES closebook.months,
  seq integer NOT NULL,
  action text NOT NULL,
  exception_id text NOT NULL,
  note text NOT NULL,
  actor text NOT NULL,
  workstation text NOT NULL,
  logged_at timestamptz NOT NULL,
  evidence text NOT NULL,
  previous_hash text NOT NULL,
  hash text NOT NULL,
  PRIMARY KEY (month_id, seq)
);

-- A month's reference-currency rates (the reference currency's own row of 1 among them): locked while it is signed.
CREATE TABLE closebook.rates (
  month_id bigint NOT NULL REFERENCES closebook.months,
  reference_currency text NOT NULL,
  currency text NOT NULL,
  rate numeric NOT NULL CHECK (rate > 0),
  PRIMARY KEY (month_id, currency)
);

-- Metered consumption submitted and accepted by the service (Successful batches given a period), shared so that the
-- metered check finds the same exceptions on every workstation. The summary is what lists; the submission, its rows.
CREATE TABLE closebook.consumption (
  batch_id uuid PRIMARY KEY,
  host text NOT NULL,
  reseller_id text NOT NULL,
  period_start date NOT NULL,
  period_end date NOT NULL,
  summary jsonb NOT NULL,
  submission jsonb NOT NULL,
  shared_by text NOT NULL,
  workstation text NOT NULL,
  shared_at timestamptz NOT NULL
);

-- The team's settings, one row each: the thresholds of the billing checks (every workstation finds exceptions with
-- the same ones) and the close calendar (each checklist step's due business day, and the holidays).
CREATE TABLE closebook.team_settings (
  name text PRIMARY KEY CHECK (name IN ('thresholds', 'calendar')),
  value jsonb NOT NULL,
  set_by text NOT NULL,
  workstation text NOT NULL,
  set_at timestamptz NOT NULL
);

CREATE FUNCTION closebook.refuse_log_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'closebook: the close log is append-only: % is refused for every role, the owner''s included', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER close_log_append_only BEFORE UPDATE OR DELETE ON closebook.close_log FOR EACH ROW EXECUTE FUNCTION closebook.refuse_log_change();
CREATE TRIGGER close_log_no_truncate BEFORE TRUNCATE ON closebook.close_log FOR EACH STATEMENT EXECUTE FUNCTION closebook.refuse_log_change();

-- Read: every group role. Write: none directly — only through the functions below.
REVOKE ALL ON ALL TABLES IN SCHEMA closebook FROM PUBLIC;
GRANT SELECT ON ALL TABLES IN SCHEMA closebook TO closebook_preparer, closebook_approver, closebook_auditor;

-- A refusal by a control: its own SQLSTATE (class CB), so a client tells it from a fault.
CREATE FUNCTION closebook.refuse(message text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING MESSAGE = message, ERRCODE = 'CB001';
END $$;

CREATE FUNCTION closebook.require_role(wanted text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF NOT pg_has_role(session_user, wanted, 'MEMBER') THEN
    PERFORM closebook.refuse(format('%s may not take this step on the team ledger: it needs the role %s (ask IT to grant it).', session_user, wanted));
  END IF;
END $$;

CREATE FUNCTION closebook.require_working_role() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (pg_has_role(session_user, 'closebook_preparer', 'MEMBER') OR pg_has_role(session_user, 'closebook_approver', 'MEMBER')) THEN
    PERFORM closebook.refuse(format('%s may not take this step on the team ledger: it needs the role closebook_preparer or closebook_approver (ask IT to grant one).', session_user));
  END IF;
END $$;

CREATE FUNCTION closebook.hash_of(value text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT encode(sha256(convert_to(value, 'UTF8')), 'hex')
$$;

-- The month's row, made on first use and locked for the rest of the transaction: one step of a month at a time.
CREATE FUNCTION closebook.lock_month(p_host text, p_reseller_id text, p_start date, p_end date) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  found bigint;
BEGIN
  INSERT INTO closebook.months (host, reseller_id, period_start, period_end) VALUES (p_host, p_reseller_id, p_start, p_end)
    ON CONFLICT (host, reseller_id, period_start, period_end) DO NOTHING;
  SELECT month_id INTO found FROM closebook.months
    WHERE host = p_host AND reseller_id = p_reseller_id AND period_start = p_start AND period_end = p_end FOR UPDATE;
  RETURN found;
END $$;

-- What an entry's hash is taken of: each field as its byte length, a colon and its text (as the workstation's log).
CREATE FUNCTION closebook.field(value text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT octet_length(coalesce(value, ''))::text || ':' || coalesce(value, '')
$$;

CREATE FUNCTION closebook.append_log(p_month bigint, p_action text, p_exception_id text, p_note text, p_workstation text, p_evidence text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  last closebook.close_log;
  next_seq integer;
  at timestamptz := clock_timestamp();
  previous text;
BEGIN
  SELECT * INTO last FROM closebook.close_log WHERE month_id = p_month ORDER BY seq DESC LIMIT 1;
  next_seq := coalesce(last.seq, 0) + 1;
  previous := coalesce(last.hash, '');
  INSERT INTO closebook.close_log VALUES (p_month, next_seq, p_action, coalesce(p_exception_id, ''), coalesce(p_note, ''), session_user, p_workstation, at,
    coalesce(p_evidence, ''), previous,
    encode(sha256(convert_to(previous || closebook.field(p_month::text) || closebook.field(next_seq::text) || closebook.field(p_action)
      || closebook.field(p_exception_id) || closebook.field(p_note) || closebook.field(session_user::text) || closebook.field(p_workstation)
      || closebook.field(to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')) || closebook.field(p_evidence), 'UTF8')), 'hex'));
  -- Sent when the step commits: the other workstations listening read the month again.
  PERFORM pg_notify('closebook', json_build_object('month', p_month, 'seq', next_seq, 'action', p_action)::text);
END $$;

-- Refuses a change to what a sign-off in force locks (`what`: the month's reviews, its rates).
CREATE FUNCTION closebook.refuse_if_signed(p_month bigint, what text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  signed_state text;
BEGIN
  SELECT state INTO signed_state FROM closebook.sign_offs WHERE month_id = p_month;
  IF FOUND THEN
    PERFORM closebook.refuse(format('This month is %s, so its %s are locked. Reopen it (with a reason) to change them.', initcap(signed_state), what));
  END IF;
END $$;

-- Keeps the log's last entry with the sign-off in force (see sign_offs.log_seq).
CREATE FUNCTION closebook.anchor_log(p_month bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE closebook.sign_offs s SET log_seq = l.seq, log_hash = l.hash
    FROM (SELECT seq, hash FROM closebook.close_log WHERE month_id = p_month ORDER BY seq DESC LIMIT 1) l
    WHERE s.month_id = p_month;
END $$;

-- A fetch shared in one transaction: begin_fetch, put_chunk for each chunk, end_fetch. False when the team ledger
-- has these lines already (nothing to send). A fetch left unfinished by a client is started over.
CREATE FUNCTION closebook.begin_fetch(p_host text, p_reseller_id text, p_start date, p_end date, p_content_hash text, p_lines bigint,
  p_chunks integer, p_bytes bigint, p_fetched_at timestamptz, p_workstation text)
RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  month bigint;
  found_fetch closebook.fetches;
BEGIN
  PERFORM closebook.require_working_role();
  month := closebook.lock_month(p_host, p_reseller_id, p_start, p_end);
  SELECT * INTO found_fetch FROM closebook.fetches WHERE month_id = month AND content_hash = p_content_hash;
  IF FOUND AND found_fetch.complete THEN RETURN false; END IF;
  IF FOUND THEN DELETE FROM closebook.fetches WHERE month_id = month AND content_hash = p_content_hash; END IF;
  INSERT INTO closebook.fetches VALUES (month, p_content_hash, p_lines, p_chunks, p_bytes, false, p_fetched_at, session_user, p_workstation, clock_timestamp());
  RETURN true;
END $$;

-- The fetch being shared (begun, not yet ended) of a locked month, or a refusal.
CREATE FUNCTION closebook.fetch_being_shared(p_host text, p_reseller_id text, p_start date, p_end date, p_content_hash text)
RETURNS closebook.fetches LANGUAGE plpgsql AS $$
DECLARE
  found_fetch closebook.fetches;
BEGIN
  PERFORM closebook.require_working_role();
  SELECT * INTO found_fetch FROM closebook.fetches
    WHERE month_id = closebook.lock_month(p_host, p_reseller_id, p_start, p_end) AND content_hash = p_content_hash;
  IF NOT FOUND OR found_fetch.complete THEN PERFORM closebook.refuse('No fetch of these lines is being shared: begin_fetch first.'); END IF;
  RETURN found_fetch;
END $$;

CREATE FUNCTION closebook.put_chunk(p_host text, p_reseller_id text, p_start date, p_end date, p_content_hash text, p_chunk_no integer, p_bytes bytea)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  found_fetch closebook.fetches := closebook.fetch_being_shared(p_host, p_reseller_id, p_start, p_end, p_content_hash);
BEGIN
  IF p_chunk_no < 0 OR p_chunk_no >= found_fetch.chunk_count THEN
    PERFORM closebook.refuse(format('Chunk %s is outside the %s announced.', p_chunk_no, found_fetch.chunk_count));
  END IF;
  INSERT INTO closebook.fetch_chunks VALUES (found_fetch.month_id, p_content_hash, p_chunk_no, p_bytes);
END $$;

CREATE FUNCTION closebook.end_fetch(p_host text, p_reseller_id text, p_start date, p_end date, p_content_hash text, p_workstation text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  found_fetch closebook.fetches := closebook.fetch_being_shared(p_host, p_reseller_id, p_start, p_end, p_content_hash);
  chunks integer;
  bytes bigint;
BEGIN
  SELECT count(*), coalesce(sum(octet_length(c.bytes)), 0) INTO chunks, bytes FROM closebook.fetch_chunks c
    WHERE c.month_id = found_fetch.month_id AND c.content_hash = p_content_hash;
  IF chunks <> found_fetch.chunk_count OR bytes <> found_fetch.byte_count THEN
    PERFORM closebook.refuse(format('The fetch arrived incomplete (%s of %s chunks, %s of %s bytes): share it again.', chunks, found_fetch.chunk_count, bytes, found_fetch.byte_count));
  END IF;
  UPDATE closebook.fetches SET complete = true WHERE month_id = found_fetch.month_id AND content_hash = p_content_hash;
  PERFORM closebook.append_log(found_fetch.month_id, 'fetched', '', '', p_workstation,
    jsonb_build_object('contentHash', p_content_hash, 'lines', found_fetch.lines, 'fetchedAt', found_fetch.fetched_at)::text);
END $$;

-- The month's invoices exported (a workbook, the group packs): a step of its checklist, in its log.
CREATE FUNCTION closebook.record_export(p_host text, p_reseller_id text, p_start date, p_end date, p_what text, p_workstation text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM closebook.require_working_role();
  PERFORM closebook.append_log(closebook.lock_month(p_host, p_reseller_id, p_start, p_end), 'exported', '', left(coalesce(p_what, ''), 500), p_workstation, '');
END $$;

-- Replaces a month's rates (none: removed), refused while the month is Prepared or Approved; logged with what was set.
CREATE FUNCTION closebook.set_rates(p_host text, p_reseller_id text, p_start date, p_end date, p_reference text, p_rates jsonb, p_workstation text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  month bigint;
BEGIN
  PERFORM closebook.require_working_role();
  month := closebook.lock_month(p_host, p_reseller_id, p_start, p_end);
  PERFORM closebook.refuse_if_signed(month, 'rates');
  DELETE FROM closebook.rates WHERE month_id = month;
  IF p_reference IS NOT NULL THEN
    INSERT INTO closebook.rates SELECT month, p_reference, r.currency, r.rate FROM jsonb_to_recordset(p_rates) AS r(currency text, rate numeric);
  END IF;
  PERFORM closebook.append_log(month, 'rates', '', '', p_workstation, jsonb_build_object('reference', p_reference, 'rates', p_rates)::text);
END $$;

-- A Successful consumption batch shared once (false when it is there already: a batch does not change once Successful).
CREATE FUNCTION closebook.share_consumption(p_host text, p_reseller_id text, p_batch_id uuid, p_start date, p_end date, p_summary jsonb,
  p_submission jsonb, p_workstation text)
RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  added integer;
BEGIN
  PERFORM closebook.require_working_role();
  IF p_summary ->> 'state' IS DISTINCT FROM 'Successful' THEN
    PERFORM closebook.refuse('Only a batch the service accepted (Successful) is shared.');
  END IF;
  INSERT INTO closebook.consumption VALUES (p_batch_id, p_host, p_reseller_id, p_start, p_end, p_summary, p_submission, session_user, p_workstation,
    clock_timestamp()) ON CONFLICT (batch_id) DO NOTHING;
  GET DIAGNOSTICS added = ROW_COUNT;
  RETURN added = 1;
END $$;

-- Replaces one of the team's settings, its shape checked (a month already prepared keeps the thresholds it was checked
-- with, in its sign-off).
CREATE FUNCTION closebook.set_team_setting(p_name text, p_value jsonb, p_workstation text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM closebook.require_working_role();
  IF p_name = 'calendar' AND (jsonb_typeof(p_value -> 'holidays') IS DISTINCT FROM 'array' OR jsonb_typeof(p_value -> 'dueBusinessDay') IS DISTINCT FROM 'object') THEN
    PERFORM closebook.refuse('A close calendar names dueBusinessDay and holidays.');
  END IF;
  IF p_name = 'thresholds' AND (jsonb_typeof(p_value -> 'marginDeviationPoints') IS DISTINCT FROM 'number' OR jsonb_typeof(p_value -> 'quantityJumpPercent') IS DISTINCT FROM 'number') THEN
    PERFORM closebook.refuse('Thresholds name marginDeviationPoints and quantityJumpPercent, as numbers.');
  END IF;
  INSERT INTO closebook.team_settings VALUES (p_name, p_value, session_user, p_workstation, clock_timestamp())
    ON CONFLICT (name) DO UPDATE SET value = excluded.value, set_by = excluded.set_by, workstation = excluded.workstation, set_at = excluded.set_at;
END $$;

-- Reviews exceptions alike (all or none), on the figures given; refused while the month is Prepared or Approved.
CREATE FUNCTION closebook.review(p_host text, p_reseller_id text, p_start date, p_end date, p_exception_ids text[], p_evidences text[],
  p_state text, p_note text, p_workstation text)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  month bigint;
  i integer;
BEGIN
  PERFORM closebook.require_role('closebook_preparer');
  IF p_state NOT IN ('accepted', 'resolved', 'open') THEN PERFORM closebook.refuse(format('"%s" is not a review state.', p_state)); END IF;
  IF p_state = 'accepted' AND btrim(coalesce(p_note, '')) = '' THEN PERFORM closebook.refuse('Say why the exception is accepted: a note is required.'); END IF;
  IF coalesce(array_length(p_exception_ids, 1), 0) <> coalesce(array_length(p_evidences, 1), 0) THEN
    PERFORM closebook.refuse('Each exception reviewed needs its figures.');
  END IF;
  month := closebook.lock_month(p_host, p_reseller_id, p_start, p_end);
  PERFORM closebook.refuse_if_signed(month, 'reviews');
  FOR i IN 1 .. coalesce(array_length(p_exception_ids, 1), 0) LOOP
    DELETE FROM closebook.reviews WHERE month_id = month AND exception_id = p_exception_ids[i];
    IF p_state <> 'open' THEN
      INSERT INTO closebook.reviews VALUES (month, p_exception_ids[i], p_state, btrim(p_note), p_evidences[i], closebook.hash_of(p_evidences[i]),
        session_user, p_workstation, clock_timestamp());
    END IF;
    PERFORM closebook.append_log(month, p_state, p_exception_ids[i], btrim(p_note), p_workstation, p_evidences[i]);
  END LOOP;
  RETURN coalesce(array_length(p_exception_ids, 1), 0);
END $$;

-- Draft → Prepared, when every exception of the set has a review on its figures as they are now, on lines (and the
-- month before, which the checks compared with) that are on the team ledger for the approver to open.
CREATE FUNCTION closebook.prepare(p_host text, p_reseller_id text, p_start date, p_end date, p_content_hash text, p_previous_content_hash text,
  p_rules_version integer, p_exception_set jsonb, p_thresholds jsonb, p_workstation text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  month bigint;
  signed closebook.sign_offs;
  open_count integer;
  team_thresholds jsonb;
BEGIN
  PERFORM closebook.require_role('closebook_preparer');
  month := closebook.lock_month(p_host, p_reseller_id, p_start, p_end);
  SELECT * INTO signed FROM closebook.sign_offs WHERE month_id = month;
  IF FOUND THEN
    PERFORM closebook.refuse(format('This month is %s already (by %s). Reopen it (with a reason) to prepare it again.', initcap(signed.state), signed.prepared_by));
  END IF;
  IF NOT EXISTS (SELECT FROM closebook.fetches WHERE month_id = month AND content_hash = p_content_hash AND complete) THEN
    PERFORM closebook.refuse('These lines are not on the team ledger: share the fetch first, so the approver opens the lines that were prepared.');
  END IF;
  IF p_previous_content_hash IS NOT NULL AND NOT EXISTS (SELECT FROM closebook.fetches f JOIN closebook.months m USING (month_id)
      WHERE m.host = p_host AND m.reseller_id = p_reseller_id AND m.period_end < p_start AND f.content_hash = p_previous_content_hash AND f.complete) THEN
    PERFORM closebook.refuse('The month before, which the checks compared with, is not on the team ledger: share it first.');
  END IF;
  -- Checked with the team's thresholds, once the team has set them: no one prepares on looser ones of their own.
  SELECT value INTO team_thresholds FROM closebook.team_settings WHERE name = 'thresholds';
  IF team_thresholds IS NOT NULL AND team_thresholds <> p_thresholds THEN
    PERFORM closebook.refuse('This month was checked with other thresholds than the team''s: open it again (it is checked with the team''s), then prepare it.');
  END IF;
  SELECT count(*) INTO open_count
    FROM jsonb_to_recordset(p_exception_set) AS e(id text, severity text, evidence_hash text)
    LEFT JOIN closebook.reviews r ON r.month_id = month AND r.exception_id = e.id AND r.evidence_hash = e.evidence_hash
    WHERE r.exception_id IS NULL;
  IF open_count > 0 THEN
    PERFORM closebook.refuse(format('%s still open: accept (with a note) or resolve each before the month is prepared.',
      CASE WHEN open_count = 1 THEN '1 exception is' ELSE open_count || ' exceptions are' END));
  END IF;
  -- The rates recorded are the month's own, read here under its lock (they are locked from now on).
  INSERT INTO closebook.sign_offs VALUES (month, 'prepared', p_content_hash, p_previous_content_hash, p_rules_version, p_exception_set,
    closebook.hash_of(p_exception_set::text), p_thresholds,
    coalesce((SELECT jsonb_agg(jsonb_build_object('reference_currency', reference_currency, 'currency', currency, 'rate', rate::text) ORDER BY currency)
      FROM closebook.rates WHERE month_id = month), '[]'::jsonb),
    session_user, clock_timestamp(), NULL, NULL, NULL, NULL);
  PERFORM closebook.append_log(month, 'prepared', '', '', p_workstation,
    jsonb_build_object('contentHash', p_content_hash, 'previousContentHash', p_previous_content_hash, 'rulesVersion', p_rules_version,
      'exceptions', jsonb_array_length(p_exception_set))::text);
  PERFORM closebook.anchor_log(month);
END $$;

-- Prepared → Approved, by an approver who did not prepare the month and accepted none of its high exceptions, on the
-- same lines and the same exception set as were prepared (the approver's workstation recomputes both).
CREATE FUNCTION closebook.approve(p_host text, p_reseller_id text, p_start date, p_end date, p_content_hash text, p_exception_set jsonb, p_workstation text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  month bigint;
  signed closebook.sign_offs;
  own_high integer;
BEGIN
  PERFORM closebook.require_role('closebook_approver');
  month := closebook.lock_month(p_host, p_reseller_id, p_start, p_end);
  SELECT * INTO signed FROM closebook.sign_offs WHERE month_id = month;
  IF NOT FOUND THEN PERFORM closebook.refuse('This month is not prepared yet: prepare it first (a preparer, when nothing is open).'); END IF;
  IF signed.state = 'approved' THEN PERFORM closebook.refuse(format('This month is Approved already (by %s).', signed.approved_by)); END IF;
  IF signed.prepared_by = session_user THEN
    PERFORM closebook.refuse(format('%s prepared this month, so %s cannot approve it: approval needs a second person.', session_user, session_user));
  END IF;
  SELECT count(*) INTO own_high
    FROM jsonb_to_recordset(signed.exception_set) AS e(id text, severity text, evidence_hash text)
    JOIN closebook.reviews r ON r.month_id = month AND r.exception_id = e.id
    WHERE e.severity = 'high' AND r.state = 'accepted' AND r.reviewed_by = session_user;
  IF own_high > 0 THEN
    PERFORM closebook.refuse(format('%s accepted %s of this month, so %s cannot also approve it: a second person must.', session_user,
      CASE WHEN own_high = 1 THEN '1 high exception' ELSE own_high || ' high exceptions' END, session_user));
  END IF;
  IF signed.content_hash <> p_content_hash THEN
    PERFORM closebook.refuse('The lines on this workstation are not the lines that were prepared: fetch the prepared month from the team ledger, or reopen it.');
  END IF;
  IF signed.exception_set_hash <> closebook.hash_of(p_exception_set::text) THEN
    PERFORM closebook.refuse('The checks on this workstation found other exceptions than the preparer''s (another rules version, other thresholds or consumption, or another fetch of the month before): bring the months here from the team ledger, or reopen the month and check it again.');
  END IF;
  UPDATE closebook.sign_offs SET state = 'approved', approved_by = session_user, approved_at = clock_timestamp() WHERE month_id = month;
  PERFORM closebook.append_log(month, 'approved', '', '', p_workstation, jsonb_build_object('contentHash', p_content_hash)::text);
  PERFORM closebook.anchor_log(month);
END $$;

-- Prepared or Approved → Draft, with a reason; an Approved month by an approver only.
CREATE FUNCTION closebook.reopen(p_host text, p_reseller_id text, p_start date, p_end date, p_reason text, p_workstation text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  month bigint;
  signed closebook.sign_offs;
BEGIN
  IF btrim(coalesce(p_reason, '')) = '' THEN PERFORM closebook.refuse('Say why the month is reopened: a reason is required.'); END IF;
  month := closebook.lock_month(p_host, p_reseller_id, p_start, p_end);
  SELECT * INTO signed FROM closebook.sign_offs WHERE month_id = month;
  IF NOT FOUND THEN PERFORM closebook.refuse('This month is a Draft: there is nothing to reopen.'); END IF;
  PERFORM closebook.require_role(CASE WHEN signed.state = 'approved' THEN 'closebook_approver' ELSE 'closebook_preparer' END);
  DELETE FROM closebook.sign_offs WHERE month_id = month;
  PERFORM closebook.append_log(month, 'reopened', '', btrim(p_reason), p_workstation,
    jsonb_build_object('was', signed.state, 'contentHash', signed.content_hash)::text);
END $$;

-- Helpers run inside the public functions only.
REVOKE ALL ON FUNCTION closebook.refuse(text), closebook.require_role(text), closebook.require_working_role(), closebook.lock_month(text, text, date, date),
  closebook.fetch_being_shared(text, text, date, date, text),
  closebook.append_log(bigint, text, text, text, text, text), closebook.anchor_log(bigint), closebook.refuse_if_signed(bigint, text),
  closebook.refuse_log_change() FROM PUBLIC;
REVOKE ALL ON FUNCTION closebook.review(text, text, date, date, text[], text[], text, text, text),
  closebook.prepare(text, text, date, date, text, text, integer, jsonb, jsonb, text),
  closebook.approve(text, text, date, date, text, jsonb, text), closebook.reopen(text, text, date, date, text, text),
  closebook.begin_fetch(text, text, date, date, text, bigint, integer, bigint, timestamptz, text),
  closebook.put_chunk(text, text, date, date, text, integer, bytea), closebook.end_fetch(text, text, date, date, text, text),
  closebook.record_export(text, text, date, date, text, text), closebook.set_team_setting(text, jsonb, text),
  closebook.share_consumption(text, text, uuid, date, date, jsonb, jsonb, text),
  closebook.set_rates(text, text, date, date, text, jsonb, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION closebook.review(text, text, date, date, text[], text[], text, text, text),
  closebook.prepare(text, text, date, date, text, text, integer, jsonb, jsonb, text), closebook.reopen(text, text, date, date, text, text)
  TO closebook_preparer;
GRANT EXECUTE ON FUNCTION closebook.begin_fetch(text, text, date, date, text, bigint, integer, bigint, timestamptz, text),
  closebook.put_chunk(text, text, date, date, text, integer, bytea), closebook.end_fetch(text, text, date, date, text, text),
  closebook.record_export(text, text, date, date, text, text), closebook.set_team_setting(text, jsonb, text),
  closebook.share_consumption(text, text, uuid, date, date, jsonb, jsonb, text),
  closebook.set_rates(text, text, date, date, text, jsonb, text)
  TO closebook_preparer, closebook_approver;
GRANT EXECUTE ON FUNCTION closebook.approve(text, text, date, date, text, jsonb, text), closebook.reopen(text, text, date, date, text, text)
  TO closebook_approver;

COMMIT;

-- Version 2: invoicing (the mapping, the team's invoice numbers, the exported runs).
\ir closebook-team-ledger-invoices.sql
-- Version 3: approving a month never approves the approver's own adjustment; a month is invoiced from its approved lines;
-- the invoice mapping's history.
\ir closebook-team-ledger-audit.sql
-- Version 4: a month is signed off only on lines fetched after its period was over.
\ir closebook-team-ledger-period-end.sql
