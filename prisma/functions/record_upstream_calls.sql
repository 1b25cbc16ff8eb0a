-- record_upstream_calls: adds the upstream calls a run made after its last page commit (an upstream error before
-- any page, the calls of a page that was not committed) to the job's upstream_calls, by upstream (decision 038).
-- Called by: packages/db/src/page-commit.ts (recordUpstreamCalls), by the worker once per run before it settles,
--   only when such calls exist.
-- Locks: the jobs row, while it is not terminal.
-- Guarantees: a terminal job is never changed (its body never changes); false when nothing was written.

CREATE OR REPLACE FUNCTION "record_upstream_calls"(p_job_id TEXT, p_upstream_calls JSONB)
RETURNS BOOLEAN
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  UPDATE "jobs" j SET "upstream_calls" = (
    SELECT COALESCE(jsonb_object_agg(k, n), '{}'::jsonb) FROM (
      SELECT e.key AS k, sum(e.value::INTEGER) AS n
      FROM (SELECT * FROM jsonb_each_text(j."upstream_calls") UNION ALL SELECT * FROM jsonb_each_text(p_upstream_calls)) e
      GROUP BY e.key
    ) totals
  )
  WHERE j."id" = p_job_id AND j."status" IN ('queued', 'running');
  RETURN FOUND;
END
$$;
