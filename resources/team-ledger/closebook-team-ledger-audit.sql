-- Closebook team ledger, schema version 3: two rules of the four-eyes control that version 2 left to the workstations,
-- now the database's, and the invoice mapping's history. The main script includes it; a team ledger at version 2 is
-- brought up to date by running this file alone, as the database's owner:
--
--     psql "postgresql://OWNER@HOST/DATABASE?sslmode=verify-full" -v ON_ERROR_STOP=1 -f closebook-team-ledger-audit.sql
--
-- - Approving a month approves the adjustments of its invoices made since its last approval, so an approver who made
--   one of them may not approve it: a second person must (as approve_invoice_adjustments already refuses after it).
-- - A month is invoiced from the lines that were approved: a run made from other lines (its content hash) is refused.
-- - Every change to the invoice mapping is kept (invoice_mapping_log, append-only): who set an entry to what, and when,
--   and which entries a replaced mapping left out. The mapping itself holds only the last of each. So is every change
--   to the team's thresholds and close calendar (team_settings_log).
--
-- All are triggers on the tables the functions write, so every way of writing them is held to them.

BEGIN;

DO $$
BEGIN
  IF (SELECT max(version) FROM closebook.schema_version) <> 2 THEN
    RAISE EXCEPTION 'This brings a version 2 team ledger to version 3; this one is version %.', (SELECT max(version) FROM closebook.schema_version);
  END IF;
END $$;
UPDATE closebook.schema_version SET version = 3;

-- After the sign-off turns Approved and before the approval is logged: adjustments_awaiting is then what it approves.
CREATE FUNCTION closebook.refuse_approving_own_adjustment() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  own closebook.close_log;
BEGIN
  SELECT * INTO own FROM closebook.adjustments_awaiting(NEW.month_id) a WHERE a.actor = NEW.approved_by ORDER BY a.seq LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'CB001', MESSAGE = format(
      '%s adjusted this month''s invoices ("%s") since its last approval, so %s cannot also approve the month, which approves the adjustment: a second person must.',
      NEW.approved_by, own.note, NEW.approved_by);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER approver_made_no_adjustment AFTER UPDATE OF state ON closebook.sign_offs
  FOR EACH ROW WHEN (OLD.state = 'prepared' AND NEW.state = 'approved') EXECUTE FUNCTION closebook.refuse_approving_own_adjustment();

CREATE FUNCTION closebook.refuse_run_of_other_lines() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.content_hash IS DISTINCT FROM (SELECT content_hash FROM closebook.sign_offs WHERE month_id = NEW.month_id) THEN
    RAISE EXCEPTION USING ERRCODE = 'CB001', MESSAGE =
      'These invoices were made from other lines than the month''s approved ones: bring the approved month here from the team ledger (team pull) and export again.';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER run_of_approved_lines BEFORE INSERT ON closebook.invoice_runs FOR EACH ROW EXECUTE FUNCTION closebook.refuse_run_of_other_lines();

-- The mapping's history. A mapping imported whole is replaced (every entry removed, then the file's inserted): an
-- entry is logged only when it differs from its last logged state, and one left out is logged as removed (mapping
-- NULL) when the transaction commits, so re-importing the same file logs nothing.
CREATE TABLE closebook.invoice_mapping_log (
  seq bigserial PRIMARY KEY,
  host text NOT NULL,
  reseller_id text NOT NULL,
  kind text NOT NULL,
  key text NOT NULL,
  mapping jsonb,
  changed_by text NOT NULL,
  workstation text NOT NULL,
  changed_at timestamptz NOT NULL
);
CREATE INDEX invoice_mapping_log_entry ON closebook.invoice_mapping_log (host, reseller_id, kind, key, seq);
REVOKE ALL ON closebook.invoice_mapping_log FROM PUBLIC;
GRANT SELECT ON closebook.invoice_mapping_log TO closebook_preparer, closebook_approver, closebook_auditor;
-- The mapping as it stands at the upgrade, as its first entries.
INSERT INTO closebook.invoice_mapping_log (host, reseller_id, kind, key, mapping, changed_by, workstation, changed_at)
  SELECT host, reseller_id, kind, key, mapping, set_by, workstation, set_at FROM closebook.invoice_mapping ORDER BY set_at, kind, key;

-- An entry's last logged state (NULL: never logged, or removed).
CREATE FUNCTION closebook.mapping_last_logged(p_host text, p_reseller_id text, p_kind text, p_key text) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT mapping FROM closebook.invoice_mapping_log WHERE host = p_host AND reseller_id = p_reseller_id AND kind = p_kind AND key = p_key
    ORDER BY seq DESC LIMIT 1
$$;

CREATE FUNCTION closebook.log_mapping_set() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.mapping IS DISTINCT FROM closebook.mapping_last_logged(NEW.host, NEW.reseller_id, NEW.kind, NEW.key) THEN
    INSERT INTO closebook.invoice_mapping_log (host, reseller_id, kind, key, mapping, changed_by, workstation, changed_at)
      VALUES (NEW.host, NEW.reseller_id, NEW.kind, NEW.key, NEW.mapping, session_user, NEW.workstation, NEW.set_at);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER mapping_set_logged AFTER INSERT OR UPDATE ON closebook.invoice_mapping FOR EACH ROW EXECUTE FUNCTION closebook.log_mapping_set();

-- Run at commit, outside the function that deleted: as the owner, so that it may write the log.
CREATE FUNCTION closebook.log_mapping_removed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF NOT EXISTS (SELECT FROM closebook.invoice_mapping m WHERE m.host = OLD.host AND m.reseller_id = OLD.reseller_id AND m.kind = OLD.kind AND m.key = OLD.key)
     AND closebook.mapping_last_logged(OLD.host, OLD.reseller_id, OLD.kind, OLD.key) IS NOT NULL THEN
    INSERT INTO closebook.invoice_mapping_log (host, reseller_id, kind, key, mapping, changed_by, workstation, changed_at)
      VALUES (OLD.host, OLD.reseller_id, OLD.kind, OLD.key, NULL, session_user, '', clock_timestamp());
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER mapping_removal_logged AFTER DELETE ON closebook.invoice_mapping DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION closebook.log_mapping_removed();

-- The team's settings' history: the thresholds the checks find exceptions with, and the close calendar, each as it
-- was set, by whom and when (team_settings holds only the last).
CREATE TABLE closebook.team_settings_log (
  seq bigserial PRIMARY KEY,
  name text NOT NULL,
  value jsonb NOT NULL,
  set_by text NOT NULL,
  workstation text NOT NULL,
  set_at timestamptz NOT NULL
);
REVOKE ALL ON closebook.team_settings_log FROM PUBLIC;
GRANT SELECT ON closebook.team_settings_log TO closebook_preparer, closebook_approver, closebook_auditor;
INSERT INTO closebook.team_settings_log (name, value, set_by, workstation, set_at)
  SELECT name, value, set_by, workstation, set_at FROM closebook.team_settings ORDER BY set_at, name;

CREATE FUNCTION closebook.log_team_setting() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO closebook.team_settings_log (name, value, set_by, workstation, set_at) VALUES (NEW.name, NEW.value, NEW.set_by, NEW.workstation, NEW.set_at);
  RETURN NULL;
END $$;
CREATE TRIGGER team_setting_logged AFTER INSERT OR UPDATE ON closebook.team_settings FOR EACH ROW EXECUTE FUNCTION closebook.log_team_setting();

CREATE FUNCTION closebook.refuse_history_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'closebook: % is append-only: % is refused for every role, the owner''s included', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER mapping_log_append_only BEFORE UPDATE OR DELETE ON closebook.invoice_mapping_log FOR EACH ROW EXECUTE FUNCTION closebook.refuse_history_change();
CREATE TRIGGER mapping_log_no_truncate BEFORE TRUNCATE ON closebook.invoice_mapping_log FOR EACH STATEMENT EXECUTE FUNCTION closebook.refuse_history_change();
CREATE TRIGGER settings_log_append_only BEFORE UPDATE OR DELETE ON closebook.team_settings_log FOR EACH ROW EXECUTE FUNCTION closebook.refuse_history_change();
CREATE TRIGGER settings_log_no_truncate BEFORE TRUNCATE ON closebook.team_settings_log FOR EACH STATEMENT EXECUTE FUNCTION closebook.refuse_history_change();

REVOKE ALL ON FUNCTION closebook.refuse_approving_own_adjustment(), closebook.refuse_run_of_other_lines(), closebook.log_mapping_set(),
  closebook.log_mapping_removed(), closebook.log_team_setting(), closebook.refuse_history_change(), closebook.mapping_last_logged(text, text, text, text) FROM PUBLIC;

COMMIT;
