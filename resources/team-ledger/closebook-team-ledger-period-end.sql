-- Closebook team ledger, schema version 4: a month is signed off only on lines fetched after its period was over. The
-- main script includes it; a team ledger at version 3 is brought up to date by running this file alone, as the
-- database's owner:
--
--     psql "postgresql://OWNER@HOST/DATABASE?sslmode=verify-full" -v ON_ERROR_STOP=1 -f closebook-team-ledger-period-end.sql
--
-- - A report fetched on or before the last day of its period holds what was billed so far, not the period: a sign-off
--   on such lines is refused (a trigger on the sign-off, so every way of writing one is held to it). The service's
--   dates carry no time zone, so a day is read in UTC, as the workstations read it.
-- - The same lines fetched again later (nothing more was billed meanwhile) are not sent again: fetched_again records
--   the later time, so that they can be prepared once the period is over.

BEGIN;

DO $$
BEGIN
  IF (SELECT max(version) FROM closebook.schema_version) <> 3 THEN
    RAISE EXCEPTION 'This brings a version 3 team ledger to version 4; this one is version %.', (SELECT max(version) FROM closebook.schema_version);
  END IF;
END $$;
UPDATE closebook.schema_version SET version = 4;

CREATE FUNCTION closebook.refuse_sign_off_before_period_end() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  fetched date;
  period_end date;
BEGIN
  SELECT (f.fetched_at AT TIME ZONE 'UTC')::date, m.period_end INTO fetched, period_end
    FROM closebook.fetches f JOIN closebook.months m USING (month_id)
    WHERE f.month_id = NEW.month_id AND f.content_hash = NEW.content_hash;
  IF fetched <= period_end THEN
    RAISE EXCEPTION USING ERRCODE = 'CB001', MESSAGE = format(
      'This fetch was made on %s, before its period ended on %s: it holds what was billed so far, not the whole period. Fetch the month again once it is over, and prepare that fetch.',
      fetched, period_end);
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER sign_off_after_period_end BEFORE INSERT ON closebook.sign_offs
  FOR EACH ROW EXECUTE FUNCTION closebook.refuse_sign_off_before_period_end();

-- Lines the team ledger has, fetched again: it keeps the latest time they were fetched (false when it lacks them).
CREATE FUNCTION closebook.fetched_again(p_host text, p_reseller_id text, p_start date, p_end date, p_content_hash text, p_fetched_at timestamptz)
RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  month bigint;
BEGIN
  PERFORM closebook.require_working_role();
  month := closebook.lock_month(p_host, p_reseller_id, p_start, p_end);
  UPDATE closebook.fetches SET fetched_at = greatest(fetched_at, p_fetched_at) WHERE month_id = month AND content_hash = p_content_hash AND complete;
  RETURN FOUND;
END $$;

REVOKE ALL ON FUNCTION closebook.refuse_sign_off_before_period_end() FROM PUBLIC;
REVOKE ALL ON FUNCTION closebook.fetched_again(text, text, date, date, text, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION closebook.fetched_again(text, text, date, date, text, timestamptz) TO closebook_preparer, closebook_approver;

COMMIT;
