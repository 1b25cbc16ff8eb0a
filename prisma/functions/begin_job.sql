-- begin_job: the previous version's name for start_job (its workers call it during a rolling deploy), with the
-- same arguments and result; the body is start_job's. Contract: a migration of the next version drops it
-- (docs/decisions/017-sql-as-code.md, docs/decisions/030-release-one-closed.md).
-- Called by: the previous version's workers (packages/db/test/fixtures/previous-release-statements.sql).
-- Locks: as start_job.
-- Guarantees: as start_job.
-- Depends on: start_job

CREATE OR REPLACE FUNCTION "begin_job"(p_job_id TEXT, p_provider TEXT)
RETURNS TABLE ("job" "jobs", "o_refusal" TEXT)
LANGUAGE sql AS $$
  SELECT * FROM start_job(p_job_id, p_provider)
$$;
