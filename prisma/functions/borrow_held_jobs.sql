-- borrow_held_jobs: releases up to p_limit held single jobs of a source, oldest first whatever their account, into
-- worker slots that would otherwise stay idle (docs/decisions/020-fair-queues.md, "Borrowed slots"). The fair
-- release (release_held_jobs) gives each account its QUEUE_OPEN_JOBS_PER_ACCOUNT; a worker whose free slots
-- exceed its reserve (WORKER_RESERVED_SLOTS) and whose queue has nothing waiting for them calls this, so one
-- account's backlog uses the fleet while no other account needs it, and the reserve keeps a slot free for the
-- next account's job. Batch children are not borrowed: a batch runs at its account's fair share (decision 021).
-- Returns the released jobs with their accounts, for the caller to enqueue once this has committed (a job released
-- but never enqueued is the lost-job sweep's, as for release_held_jobs).
-- Called by: packages/db/src/held-jobs.ts (markBorrowed, for @leadgen/commands' borrowHeldJobs: the worker's
--   idle-slot filler).
-- Locks: the rows it releases; a held row locked by another transaction (a cancel settling it, a fair release)
--   is skipped, never waited on. No account lock: a borrowed job (jobs.borrowed) runs beyond its account's share
--   and does not count towards it, so the account's fair release goes on filling its share at once.
-- Guarantees: only held (queued, released_at NULL) single jobs of p_source, oldest first (created_at, id); at most
--   LEAST(p_limit, 100) per call.

CREATE OR REPLACE FUNCTION "borrow_held_jobs"(p_source "Source", p_limit INTEGER)
RETURNS TABLE ("o_job_id" TEXT, "o_account_id" TEXT)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  IF p_limit <= 0 THEN RETURN; END IF;
  RETURN QUERY
  WITH next AS (
    SELECT j."id" FROM "jobs" j
    WHERE j."source" = p_source AND j."status" = 'queued' AND j."released_at" IS NULL AND j."batch_id" IS NULL
    ORDER BY j."created_at", j."id"
    LIMIT LEAST(p_limit, 100)
    FOR UPDATE SKIP LOCKED
  ), released AS (
    -- updated_at moves too: the lost-job sweep leaves a job alone until it has been still a while.
    UPDATE "jobs" j SET "released_at" = now(), "borrowed" = true, "updated_at" = now() FROM next WHERE j."id" = next."id"
    RETURNING j."id", j."account_id", j."created_at"
  )
  SELECT r."id", r."account_id" FROM released r ORDER BY r."created_at", r."id";
END
$$;
