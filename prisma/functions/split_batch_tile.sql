-- split_batch_tile: what an area batch's tile came to, and, for a saturated tile, its quarters added to the
-- running batch as new children (docs/decisions/039-area-searches.md). The tile's row records its state
-- (done, split, saturated_at_minimum), the places its search listed and those outside the area. Each quarter
-- becomes a batch_tiles row and a child job (held, as create_batch writes children: released after the commit
-- under the account's share), and the batch's child_count, open_count and requested_count grow with them.
-- p_children is a JSON array of { jobId, resultSetId, path, rect, source, request, requestedCount, reserve }.
-- Called by: packages/db/src/area-batches.ts (recordTileOutcome), by the worker before it settles the tile's
--   child, so the batch, whose open_count still counts that child, cannot settle before its quarters exist.
-- Locks: the batches row (a tile's quarters and a sibling's, or a cancel, are serialised on it; start_job and
--   settle_batch_child take the jobs row before it, and this takes no jobs row that exists).
-- Guarantees: a quarter is added at most once ((batch_id, path) is the key: a worker repeating a split after a
--   crash adds nothing); nothing is added to a cancelled or terminal batch; the counters add up as
--   create_batch's do. Returns the jobs it added.

CREATE OR REPLACE FUNCTION "split_batch_tile"(
  p_batch_id TEXT, p_path TEXT, p_state TEXT, p_found INTEGER, p_outside INTEGER, p_children JSONB
) RETURNS TABLE (o_job_id TEXT)
LANGUAGE plpgsql AS $$
DECLARE
  v_batch "batches";
  v_added JSONB;
BEGIN
  SELECT * INTO v_batch FROM "batches" WHERE "id" = p_batch_id FOR UPDATE;
  IF NOT FOUND THEN RETURN; END IF;
  UPDATE "batch_tiles" SET "state" = p_state, "found" = p_found, "outside_area" = p_outside
  WHERE "batch_id" = p_batch_id AND "path" = p_path;
  IF jsonb_array_length(p_children) = 0 OR v_batch."status" <> 'running' OR v_batch."cancelled_at" IS NOT NULL THEN RETURN; END IF;

  WITH inserted AS (
    INSERT INTO "batch_tiles" ("batch_id", "path", "job_id", "rect")
    SELECT p_batch_id, c->>'path', c->>'jobId', c->'rect' FROM jsonb_array_elements(p_children) c
    ON CONFLICT ("batch_id", "path") DO NOTHING
    RETURNING "path"
  )
  SELECT COALESCE(jsonb_agg(c ORDER BY c->>'path'), '[]'::jsonb) INTO v_added
  FROM jsonb_array_elements(p_children) c WHERE c->>'path' IN (SELECT "path" FROM inserted);
  IF jsonb_array_length(v_added) = 0 THEN RETURN; END IF;

  INSERT INTO "jobs" ("id", "account_id", "result_set_id", "source", "request", "requested_count", "credits_reserved",
    "webhook_url", "batch_id", "batch_index", "reserve_on_start", "released_at")
  SELECT c.item->>'jobId', v_batch."account_id", c.item->>'resultSetId', (c.item->>'source')::"Source", c.item->'request',
    (c.item->>'requestedCount')::INTEGER, 0, NULL, p_batch_id, v_batch."child_count" + (c.ord - 1)::INTEGER,
    (c.item->>'reserve')::INTEGER, NULL
  FROM jsonb_array_elements(v_added) WITH ORDINALITY AS c(item, ord);

  UPDATE "batches" SET
    "child_count" = "child_count" + jsonb_array_length(v_added),
    "open_count" = "open_count" + jsonb_array_length(v_added),
    "requested_count" = "requested_count" + (SELECT COALESCE(sum((c->>'requestedCount')::INTEGER), 0) FROM jsonb_array_elements(v_added) c)
  WHERE "id" = p_batch_id;
  RETURN QUERY SELECT c->>'jobId' FROM jsonb_array_elements(v_added) c;
END
$$;
