-- share_open_jobs: how many of an account's jobs of a source hold a place in its share (docs/decisions/020-fair-queues.md):
-- open (queued or running), released and not borrowed. Counts at most p_share rows of a partial index
-- (jobs_account_id_source_open_fair_idx), so the cost does not grow with the account's backlog.
-- Called by: create_job (once before the release lock, and again under it).
-- Locks: none.
-- Guarantees: a figure between 0 and p_share, from the caller's statement's snapshot.

CREATE OR REPLACE FUNCTION "share_open_jobs"(p_account_id TEXT, p_source "Source", p_share INTEGER)
RETURNS INTEGER
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN (SELECT count(*) FROM (
    SELECT 1 FROM "jobs" j
    WHERE j."account_id" = p_account_id AND j."source" = p_source AND j."status" IN ('queued', 'running') AND j."released_at" IS NOT NULL
      AND NOT j."borrowed"
    LIMIT p_share
  ) open);
END
$$;
