-- commit_slice: a worker's slice of leads with what may ride on the same transaction (decision 037's hot path):
-- - p_provider not NULL: the job's deferred start (open_job): running, the provider, the start time the worker
--   took it at (p_started_at; a start recorded before is kept), written first, under the row's lock;
-- - the slice itself: commit_page, unchanged (its guarantees, its o_needs_matches, no row once terminal);
-- - p_charge not NULL: the settlement, when this slice completes the job (its delivered count reaches the
--   requested count): settle_job as COMPLETE with that charge (the caller's chargeFor of the requested count) and
--   event type, and p_share as settle_job's. A slice that leaves the job short (leads skipped as delivered or
--   suppressed) settles nothing: the job goes on.
-- One statement, one transaction: a 25-lead job of a sandbox is started, committed and settled in one commit.
-- Called by: packages/db/src/page-commit.ts (commitPage, with a start or a settlement).
-- Locks: the jobs row, then commit_page's, then settle_job's (the same order as each alone).
-- Guarantees: commit_page's and settle_job's; nothing is written when the job is terminal.
-- Depends on: commit_page, settle_job

CREATE OR REPLACE FUNCTION "commit_slice"(
  p_job_id TEXT, p_items JSONB, p_cursor TEXT, p_filtered INTEGER, p_upstream_calls JSONB,
  p_provider TEXT, p_started_at TIMESTAMPTZ, p_charge INTEGER, p_event_type TEXT, p_share INTEGER
) RETURNS TABLE (
  o_delivered_count INTEGER, o_requested_count INTEGER, o_needs_matches BOOLEAN,
  "settled" "jobs", "webhook_deliveries" TEXT[], "released_jobs" TEXT[]
)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_delivered INTEGER;
  v_requested INTEGER;
  v_needs BOOLEAN;
  v_settle RECORD;
  v_settled "jobs";
  v_deliveries TEXT[] := '{}';
  v_released TEXT[] := '{}';
BEGIN
  IF p_provider IS NOT NULL THEN
    UPDATE "jobs" SET "status" = 'running', "provider" = p_provider, "started_at" = COALESCE("started_at", p_started_at, now()),
      "updated_at" = now()
    WHERE "id" = p_job_id AND "status" IN ('queued', 'running');
    IF NOT FOUND THEN RETURN; END IF;
  END IF;
  SELECT c.o_delivered_count, c.o_requested_count, c.o_needs_matches INTO v_delivered, v_requested, v_needs
  FROM commit_page(p_job_id, p_items, p_cursor, p_filtered, p_upstream_calls) c;
  IF NOT FOUND THEN RETURN; END IF;
  IF NOT v_needs AND p_charge IS NOT NULL AND v_delivered >= v_requested THEN
    SELECT * INTO v_settle FROM settle_job(p_job_id, 'COMPLETE', NULL, p_charge, v_delivered, p_event_type, p_share);
    IF FOUND THEN
      v_settled := v_settle."job";
      v_deliveries := v_settle."webhook_deliveries";
      v_released := v_settle."released_jobs";
    END IF;
  END IF;
  RETURN QUERY SELECT v_delivered, v_requested, v_needs, v_settled, v_deliveries, v_released;
END
$$;
