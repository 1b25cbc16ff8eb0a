-- release_held_jobs: the fair release of one account's jobs of one source into its queue
-- (docs/decisions/020-fair-queues.md). A job is in its source's BullMQ queue only once released
-- (released_at set); an account keeps at most p_share open (queued or running) released jobs per source, and
-- the rest wait here, held (queued, released_at NULL, no queue entry). This releases the account's oldest
-- held jobs into the room left under the share and returns their ids, for the caller to enqueue once its
-- transaction has committed (a job released but never enqueued is the lost-job sweep's: it is still,
-- open and has no entry).
-- Called by: create_job and settle_job, in their transactions; packages/db/src/held-jobs.ts (markReleased, for
--   @leadgen/commands' releaseHeldJobs and after-commit step: the worker's periodic sweep, and any other producer of
--   held jobs).
-- Locks: a transaction-scoped advisory lock of the account and source (every release of one account's jobs of one
--   source is serialised, so the share holds under concurrency, without making the accounts row a serialisation
--   point of creations and settlements: docs/decisions/023-redis-topologies.md), then the rows it releases; a
--   held row locked by another transaction (a cancel settling it) is skipped, never waited on.
-- Guarantees: at most p_share open released jobs per account and source besides borrowed ones (borrow_held_jobs), of
--   which at most GREATEST(p_share / 2, 1) batch children; oldest held first (created_at, id), single jobs before
--   batch children (a batch's children in request order); at most 100 released per call; p_share 0 means no bound
--   (still at most 100 per call).

CREATE OR REPLACE FUNCTION "release_held_jobs"(p_account_id TEXT, p_source "Source", p_share INTEGER)
RETURNS TEXT[]
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_room INTEGER := 100;
  v_child_room INTEGER := 100;
  v_open INTEGER;
  v_open_children INTEGER;
  v_ids TEXT[];
  v_children TEXT[];
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('release_held_jobs:' || p_account_id || ':' || p_source::text, 0));
  IF p_share > 0 THEN
    -- Counts at most p_share rows of a partial index: the cost does not grow with the account's backlog.
    SELECT count(*), count(*) FILTER (WHERE open."batch_id" IS NOT NULL) INTO v_open, v_open_children FROM (
      SELECT "batch_id" FROM "jobs"
      WHERE "account_id" = p_account_id AND "source" = p_source AND "status" IN ('queued', 'running') AND "released_at" IS NOT NULL
        AND NOT "borrowed"
      LIMIT p_share
    ) open;
    v_room := LEAST(p_share - v_open, 100);
    -- Batch children take at most half the share (at least one), so the account's single jobs always find room
    -- and a batch never fills a worker with bulk work (docs/decisions/021-batches.md).
    v_child_room := GREATEST(p_share / 2, 1) - v_open_children;
  END IF;
  IF v_room <= 0 THEN RETURN '{}'; END IF;

  -- The account's single jobs first, oldest first, so a batch does not starve them.
  WITH next AS (
    SELECT j."id" FROM "jobs" j
    WHERE j."account_id" = p_account_id AND j."source" = p_source AND j."status" = 'queued' AND j."released_at" IS NULL
      AND j."batch_id" IS NULL
    ORDER BY j."created_at", j."id"
    LIMIT v_room
    FOR UPDATE SKIP LOCKED
  ), released AS (
    -- updated_at moves too: the lost-job sweep leaves a job alone until it has been still a while.
    UPDATE "jobs" j SET "released_at" = now(), "updated_at" = now() FROM next WHERE j."id" = next."id"
    RETURNING j."id", j."created_at"
  )
  SELECT COALESCE(array_agg(r."id" ORDER BY r."created_at", r."id"), '{}') INTO v_ids FROM released r;

  v_child_room := LEAST(v_child_room, v_room - cardinality(v_ids));
  IF v_child_room <= 0 THEN RETURN v_ids; END IF;
  -- Then batches' children, a batch's in request order. The sort is over the account's held rows of the source
  -- (a 1,000-child batch: about 0.3 ms a settlement), not the table.
  WITH next AS (
    SELECT j."id" FROM "jobs" j
    WHERE j."account_id" = p_account_id AND j."source" = p_source AND j."status" = 'queued' AND j."released_at" IS NULL
      AND j."batch_id" IS NOT NULL
    ORDER BY j."created_at", j."batch_index", j."id"
    LIMIT v_child_room
    FOR UPDATE SKIP LOCKED
  ), released AS (
    UPDATE "jobs" j SET "released_at" = now(), "updated_at" = now() FROM next WHERE j."id" = next."id"
    RETURNING j."id", j."created_at", j."batch_index"
  )
  SELECT COALESCE(array_agg(r."id" ORDER BY r."created_at", r."batch_index", r."id"), '{}') INTO v_children FROM released r;
  RETURN v_ids || v_children;
END
$$;
