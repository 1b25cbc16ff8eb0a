-- start_job: queued → running (or running again after a worker died), keeping the first start time.
-- Called by: packages/db/src/jobs.ts (startJob), when a worker takes a job.
-- Locks: the jobs row.
-- Guarantees: no row when the job is terminal (a late or duplicate entry does nothing). A job started
--   without having been released (an entry the previous release's sweep made for a held job) counts as
--   released from now on, so the account's cap sees it (docs/decisions/020-fair-queues.md).

CREATE OR REPLACE FUNCTION "start_job"(p_job_id TEXT, p_provider TEXT)
RETURNS SETOF "jobs"
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY
  UPDATE "jobs" SET "status" = 'running', "provider" = p_provider, "started_at" = COALESCE("started_at", now()),
    "released_at" = COALESCE("released_at", now()), "updated_at" = now()
  WHERE "id" = p_job_id AND "status" IN ('queued', 'running')
  RETURNING *;
END
$$;
