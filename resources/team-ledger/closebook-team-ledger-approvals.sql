-- Closebook team ledger, schema version 3: two rules of the four-eyes control that version 2 left to the workstations,
-- now the database's. The main script includes it; a team ledger at version 2 is brought up to date by running this
-- file alone, as the database's owner:
--
--     psql "postgresql://OWNER@HOST/DATABASE?sslmode=verify-full" -v ON_ERROR_STOP=1 -f closebook-team-ledger-approvals.sql
--
-- - Approving a month approves the adjustments of its invoices made since its last approval, so an approver who made
--   one of them may not approve it: a second person must (as approve_invoice_adjustments already refuses after it).
-- - A month is invoiced from the lines that were approved: a run made from other lines (its content hash) is refused.
--
-- Both are triggers on the tables the functions write, so every way of writing them is held to the rule.

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

REVOKE ALL ON FUNCTION closebook.refuse_approving_own_adjustment(), closebook.refuse_run_of_other_lines() FROM PUBLIC;

COMMIT;
