-- open_job: what a worker reads when it takes a job from its queue (decision 037's hot path): the row, and the
-- start written now only when it must be. A job's first start is otherwise deferred to its first commit
-- (commit_slice writes running, the provider and the start time in the same transaction as the leads): a job
-- that commits within its first instant then costs one transaction fewer.
-- The start is written here (start_job) when:
-- - p_start: the queue entry was taken before (BullMQ's attemptsStarted > 1: a stall, a hand-back, a retry), so
--   a job whose workers keep dying before their first commit still has its first start recorded and ends by its
--   time budget (JOB_TIMEOUT_MS) as before;
-- - a batch's child not reserved yet: its reservation (or its refusal) must come before any work;
-- - a job never released (held, yet handed to a worker): its account's share must see it at once.
-- A terminal job comes back as it is (o_started false); a missing one, no row.
-- Called by: packages/db/src/jobs.ts (openJob).
-- Locks: none when the start is deferred (one read); start_job's otherwise.
-- Guarantees: writes nothing unless start_job does; a terminal job is never started.
-- Depends on: start_job

CREATE OR REPLACE FUNCTION "open_job"(p_job_id TEXT, p_provider TEXT, p_start BOOLEAN)
RETURNS TABLE ("job" "jobs", "o_refusal" TEXT, "o_started" BOOLEAN)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_job "jobs";
BEGIN
  SELECT * INTO v_job FROM "jobs" WHERE "id" = p_job_id;
  IF NOT FOUND THEN RETURN; END IF;
  IF v_job."status" NOT IN ('queued', 'running') THEN
    RETURN QUERY SELECT v_job, NULL::TEXT, false;
    RETURN;
  END IF;
  IF p_start OR v_job."released_at" IS NULL OR (v_job."batch_id" IS NOT NULL AND v_job."credits_reserved" = 0) THEN
    RETURN QUERY SELECT s."job", s."o_refusal", true FROM start_job(p_job_id, p_provider, now()) s;
    -- no row from start_job: terminal meanwhile (a cancel); the caller reads it again
    RETURN;
  END IF;
  RETURN QUERY SELECT v_job, NULL::TEXT, false;
END
$$;
