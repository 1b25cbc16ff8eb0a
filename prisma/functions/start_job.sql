-- start_job: the previous release's way to take a job (queued → running, keeping the first start time); the
-- body is now begin_job's, so a batch child it takes is reserved as begin_job reserves it, and one begin_job
-- refuses is not started (no row, as for a terminal job); a job started without having been released counts as
-- released from then on (docs/decisions/020-fair-queues.md). Contract: dropped one release after begin_job.
-- Called by: the previous release's workers (packages/db/test/fixtures/previous-release-statements.sql).
-- Locks: as begin_job.
-- Guarantees: no row when the job is terminal or refused.
-- Depends on: begin_job

CREATE OR REPLACE FUNCTION "start_job"(p_job_id TEXT, p_provider TEXT)
RETURNS SETOF "jobs"
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY SELECT (b.job).* FROM begin_job(p_job_id, p_provider) b WHERE b.o_refusal IS NULL;
END
$$;
