-- read_job: a job (of this account, or of any when p_account_id is null) and, once terminal, its leads in
-- delivery order as one JSON array text, spliced unparsed into the body by the API.
-- Called by: packages/db/src/jobs.ts (readJobView).
-- Locks: nothing (a read).
-- Guarantees: no row for a job that is not there or not the account's; leads_json null while the job is open.

CREATE OR REPLACE FUNCTION "read_job"(p_job_id TEXT, p_account_id TEXT)
RETURNS TABLE ("job" "jobs", "leads_json" TEXT)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_job "jobs";
BEGIN
  SELECT * INTO v_job FROM "jobs" j WHERE j."id" = p_job_id AND (p_account_id IS NULL OR j."account_id" = p_account_id);
  IF NOT FOUND THEN RETURN; END IF;
  IF v_job."status" IN ('queued', 'running') THEN
    RETURN QUERY SELECT v_job, NULL::TEXT;
  ELSE
    RETURN QUERY SELECT v_job, (SELECT COALESCE(json_agg(l."data" ORDER BY l."position"), '[]')::TEXT FROM "leads" l
      WHERE l."job_id" = p_job_id AND l."job_created_at" IN ('-infinity', v_job."created_at"));
  END IF;
END
$$;
