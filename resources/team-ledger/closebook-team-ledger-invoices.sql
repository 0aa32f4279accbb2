-- Closebook team ledger, schema version 2: invoicing. The main script includes it; a team ledger set up with version 1
-- is brought up to date by running this file alone, as the database's owner:
--
--     psql "postgresql://OWNER@HOST/DATABASE?sslmode=verify-full" -v ON_ERROR_STOP=1 -f closebook-team-ledger-invoices.sql
--
-- The team keeps one mapping to the accounting system per service host and reseller, one invoice number sequence
-- (prefix and next number: no number given twice, none skipped), and every exported invoice run with its numbers.
-- As in version 1, no role writes a table: the functions below do, under a lock, as the session's login role.

BEGIN;

DO $$
BEGIN
  IF (SELECT max(version) FROM closebook.schema_version) <> 1 THEN
    RAISE EXCEPTION 'This adds invoicing to a version 1 team ledger; this one is version %.', (SELECT max(version) FROM closebook.schema_version);
  END IF;
END $$;
UPDATE closebook.schema_version SET version = 2;

-- The mapping: one validated entry (JSON, as the workstations write it) per customer (org id) or item (match:id).
CREATE TABLE closebook.invoice_mapping (
  host text NOT NULL,
  reseller_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('customer', 'item')),
  key text NOT NULL,
  mapping jsonb NOT NULL,
  set_by text NOT NULL,
  workstation text NOT NULL,
  set_at timestamptz NOT NULL,
  PRIMARY KEY (host, reseller_id, kind, key)
);

-- The team's invoice numbers: the prefix and the next number, moved only by a recorded run (or forward by hand).
CREATE TABLE closebook.invoice_counters (
  host text NOT NULL,
  reseller_id text NOT NULL,
  prefix text NOT NULL,
  next_number bigint NOT NULL CHECK (next_number >= 1),
  PRIMARY KEY (host, reseller_id)
);

-- Each exported run: the invoices it issued (numbered) and those in force after it, as JSON; its numbers first to last.
CREATE TABLE closebook.invoice_runs (
  run_id uuid PRIMARY KEY,
  month_id bigint NOT NULL REFERENCES closebook.months,
  content_hash text NOT NULL CHECK (content_hash ~ '^[0-9a-f]{64}$'),
  run jsonb NOT NULL,
  first_number text NOT NULL,
  last_number text NOT NULL,
  invoices integer NOT NULL CHECK (invoices >= 0),
  exported_by text NOT NULL,
  workstation text NOT NULL,
  exported_at timestamptz NOT NULL
);

REVOKE ALL ON closebook.invoice_mapping, closebook.invoice_counters, closebook.invoice_runs FROM PUBLIC;
GRANT SELECT ON closebook.invoice_mapping, closebook.invoice_counters, closebook.invoice_runs TO closebook_preparer, closebook_approver, closebook_auditor;

-- A month whose invoices went out keeps its sign-off: a reopened month could be invoiced twice (its changes are
-- credited by the next run instead). Whatever removes the sign-off, reopen or a direct DELETE, is refused.
CREATE FUNCTION closebook.refuse_reopen_when_invoiced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  invoiced closebook.invoice_runs;
BEGIN
  SELECT * INTO invoiced FROM closebook.invoice_runs WHERE month_id = OLD.month_id ORDER BY exported_at LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'CB001', MESSAGE = format(
      'This month''s invoices from %s were exported (%s), so it is not reopened: a reopened month could be invoiced twice. Correct it in the mapping and export again — each changed invoice is credited and issued anew.',
      invoiced.first_number, to_char(invoiced.exported_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'));
  END IF;
  RETURN OLD;
END $$;
CREATE TRIGGER sign_off_kept_when_invoiced BEFORE DELETE ON closebook.sign_offs FOR EACH ROW EXECUTE FUNCTION closebook.refuse_reopen_when_invoiced();

-- The adjustments made since the month's approval (or since the last approval of adjustments): what awaits a second
-- person before the month is invoiced again. None while the month is not Approved.
CREATE FUNCTION closebook.adjustments_awaiting(p_month bigint) RETURNS SETOF closebook.close_log LANGUAGE sql STABLE AS $$
  SELECT l.* FROM closebook.close_log l
  WHERE l.month_id = p_month AND l.action = 'adjusted'
    AND EXISTS (SELECT FROM closebook.sign_offs WHERE month_id = p_month AND state = 'approved')
    AND l.seq > coalesce((SELECT max(seq) FROM closebook.close_log WHERE month_id = p_month AND action IN ('approved', 'adjustments-approved')), 0)
  ORDER BY l.seq
$$;

-- An adjustment of the month's invoices (a line added or left out, or one withdrawn), with its reason, in the log.
CREATE FUNCTION closebook.log_invoice_adjustment(p_host text, p_reseller_id text, p_start date, p_end date, p_reason text, p_adjustment jsonb, p_workstation text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM closebook.require_working_role();
  IF btrim(coalesce(p_reason, '')) = '' THEN PERFORM closebook.refuse('Say why the invoices are adjusted: a reason is required.'); END IF;
  PERFORM closebook.append_log(closebook.lock_month(p_host, p_reseller_id, p_start, p_end), 'adjusted', '', btrim(p_reason), p_workstation, p_adjustment::text);
END $$;

-- A second person approves the adjustments made after the month's approval: never one who made one of them.
CREATE FUNCTION closebook.approve_invoice_adjustments(p_host text, p_reseller_id text, p_start date, p_end date, p_workstation text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  month bigint;
  own closebook.close_log;
BEGIN
  PERFORM closebook.require_role('closebook_approver');
  month := closebook.lock_month(p_host, p_reseller_id, p_start, p_end);
  IF NOT EXISTS (SELECT FROM closebook.adjustments_awaiting(month)) THEN
    PERFORM closebook.refuse('No adjustment awaits approval: adjustments made before the month was approved were approved with it.');
  END IF;
  SELECT * INTO own FROM closebook.adjustments_awaiting(month) a WHERE a.actor = session_user LIMIT 1;
  IF FOUND THEN
    PERFORM closebook.refuse(format('%s made an adjustment awaiting approval ("%s"), so cannot approve them: that needs a second person.', session_user, own.note));
  END IF;
  PERFORM closebook.append_log(month, 'adjustments-approved', '', '', p_workstation, '');
END $$;

-- Adds or replaces mapping entries (p_replace: the Broker's whole mapping is replaced), logged by who and where.
CREATE FUNCTION closebook.set_invoice_mapping(p_host text, p_reseller_id text, p_replace boolean, p_customers jsonb, p_items jsonb, p_workstation text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM closebook.require_working_role();
  IF p_replace THEN DELETE FROM closebook.invoice_mapping WHERE host = p_host AND reseller_id = p_reseller_id; END IF;
  INSERT INTO closebook.invoice_mapping
    SELECT p_host, p_reseller_id, 'customer', entry->>'orgId', entry, session_user, p_workstation, clock_timestamp() FROM jsonb_array_elements(p_customers) entry
    UNION ALL
    SELECT p_host, p_reseller_id, 'item', (entry->>'match') || ':' || (entry->>'id'), entry, session_user, p_workstation, clock_timestamp() FROM jsonb_array_elements(p_items) entry
  ON CONFLICT (host, reseller_id, kind, key) DO UPDATE SET mapping = excluded.mapping, set_by = excluded.set_by, workstation = excluded.workstation, set_at = excluded.set_at;
END $$;

-- Sets the prefix and next number; once a number was given, the next one only moves forward.
CREATE FUNCTION closebook.set_invoice_counter(p_host text, p_reseller_id text, p_prefix text, p_next bigint)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  current closebook.invoice_counters;
BEGIN
  PERFORM closebook.require_working_role();
  SELECT * INTO current FROM closebook.invoice_counters WHERE host = p_host AND reseller_id = p_reseller_id FOR UPDATE;
  IF FOUND AND p_next < current.next_number
     AND EXISTS (SELECT FROM closebook.invoice_runs r JOIN closebook.months m USING (month_id) WHERE m.host = p_host AND m.reseller_id = p_reseller_id) THEN
    PERFORM closebook.refuse(format('Invoice numbers up to %s were given already; the next number can only move forward (from %s).', current.next_number - 1, current.next_number));
  END IF;
  INSERT INTO closebook.invoice_counters VALUES (p_host, p_reseller_id, p_prefix, p_next)
    ON CONFLICT (host, reseller_id) DO UPDATE SET prefix = excluded.prefix, next_number = excluded.next_number;
END $$;

-- Records a numbered run: its numbers must be the counter's next ones, and the month's last run the one it follows
-- (p_previous_run), else a colleague exported meanwhile and it is refused — nothing is given twice or skipped.
CREATE FUNCTION closebook.record_invoice_run(p_host text, p_reseller_id text, p_start date, p_end date, p_run_id uuid, p_previous_run uuid,
  p_content_hash text, p_prefix text, p_first bigint, p_numbers text[], p_run jsonb, p_workstation text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  month bigint;
  counter closebook.invoice_counters;
  last_run uuid;
  count integer := coalesce(array_length(p_numbers, 1), 0);
BEGIN
  PERFORM closebook.require_working_role();
  month := closebook.lock_month(p_host, p_reseller_id, p_start, p_end);
  IF NOT EXISTS (SELECT FROM closebook.sign_offs WHERE month_id = month) THEN
    PERFORM closebook.refuse('This month is a Draft on the team ledger: it is invoiced once it is Approved.');
  END IF;
  IF EXISTS (SELECT FROM closebook.sign_offs WHERE month_id = month AND state <> 'approved') THEN
    PERFORM closebook.refuse('This month is Prepared on the team ledger: it is invoiced once a second person has approved it.');
  END IF;
  IF EXISTS (SELECT FROM closebook.adjustments_awaiting(month)) THEN
    PERFORM closebook.refuse('Adjustments made after the month was approved await a second person''s approval: it is invoiced once they are approved.');
  END IF;
  SELECT run_id INTO last_run FROM closebook.invoice_runs WHERE month_id = month ORDER BY exported_at DESC, run_id DESC LIMIT 1;
  IF last_run IS DISTINCT FROM p_previous_run THEN
    PERFORM closebook.refuse('A colleague exported this month''s invoices meanwhile: export again to write the run the team ledger has.');
  END IF;
  INSERT INTO closebook.invoice_counters VALUES (p_host, p_reseller_id, p_prefix, 1) ON CONFLICT (host, reseller_id) DO NOTHING;
  SELECT * INTO counter FROM closebook.invoice_counters WHERE host = p_host AND reseller_id = p_reseller_id FOR UPDATE;
  IF counter.next_number <> p_first OR counter.prefix <> p_prefix THEN
    PERFORM closebook.refuse('The team''s invoice numbers moved on meanwhile (a colleague exported): export again.');
  END IF;
  IF p_numbers IS DISTINCT FROM ARRAY(SELECT p_prefix || n FROM generate_series(p_first, p_first + count - 1) n) THEN
    PERFORM closebook.refuse('The run''s invoice numbers are not the team''s next ones in order.');
  END IF;
  UPDATE closebook.invoice_counters SET next_number = p_first + count WHERE host = p_host AND reseller_id = p_reseller_id;
  INSERT INTO closebook.invoice_runs VALUES (p_run_id, month, p_content_hash, p_run, coalesce(p_numbers[1], ''), coalesce(p_numbers[count], ''), count,
    session_user, p_workstation, clock_timestamp());
  PERFORM closebook.append_log(month, 'invoiced', '', format('invoices %s–%s', coalesce(p_numbers[1], ''), coalesce(p_numbers[count], '')), p_workstation,
    jsonb_build_object('runId', p_run_id, 'numbers', to_jsonb(p_numbers))::text);
END $$;

REVOKE ALL ON FUNCTION closebook.refuse_reopen_when_invoiced(), closebook.adjustments_awaiting(bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION closebook.log_invoice_adjustment(text, text, date, date, text, jsonb, text), closebook.approve_invoice_adjustments(text, text, date, date, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION closebook.log_invoice_adjustment(text, text, date, date, text, jsonb, text) TO closebook_preparer, closebook_approver;
GRANT EXECUTE ON FUNCTION closebook.approve_invoice_adjustments(text, text, date, date, text) TO closebook_approver;
REVOKE ALL ON FUNCTION closebook.set_invoice_mapping(text, text, boolean, jsonb, jsonb, text), closebook.set_invoice_counter(text, text, text, bigint),
  closebook.record_invoice_run(text, text, date, date, uuid, uuid, text, text, bigint, text[], jsonb, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION closebook.set_invoice_mapping(text, text, boolean, jsonb, jsonb, text), closebook.set_invoice_counter(text, text, text, bigint),
  closebook.record_invoice_run(text, text, date, date, uuid, uuid, text, text, bigint, text[], jsonb, text) TO closebook_preparer, closebook_approver;

COMMIT;
