-- settle_batch_child: a child's settlement, told to its batch in the settlement's own transaction
-- (docs/decisions/021-batches.md): the child leaves the open count for its status's count, its delivered
-- leads and its charge are added, its reservation leaves the batch's. The settlement that closes the last
-- open child settles the batch: status (docs/api.md#batches: CANCELLED if it was cancelled, COMPLETE if every
-- child is or an area search delivered its batch-wide maxResults, FAILED if every child failed, EMPTY if none delivered, else PARTIAL) and finishedAt, and records
-- the batch's event (batch.completed, batch.partial, batch.empty, batch.failed, batch.cancelled) as outbox
-- rows for every enabled endpoint subscribed to it and one for the batch's webhookUrl. That settlement also
-- deletes the batch's claims (batch_deliveries): they only keep its children from delivering a lead twice, and
-- no child can deliver any more. Every child is terminal then (open_count is zero, and each other child's
-- settlement committed before this one could take the batch row), a terminal job never becomes open again,
-- and commit_page writes nothing for a terminal job (it locks the job row and re-reads its status, so a page
-- commit in flight either committed before that child's settlement or finds it terminal). A cancelled batch
-- is the same case: it is terminal only once its last child has settled.
-- Called by: settle_job, for a job with a batch_id, before it touches the account.
-- Locks: the batches row (after the jobs row, before the accounts row: start_job's order); the last child, the
--   batch's claims (no page commit of the batch can hold them then).
-- Guarantees: counters that add up (open + the five terminal counts = child_count), no lost update when two
--   children end at once (the row lock), the batch settled exactly once; the new deliveries' ids returned; a
--   terminal batch keeps no claims.

CREATE OR REPLACE FUNCTION "settle_batch_child"(p_job "jobs")
RETURNS TEXT[]
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_batch "batches";
  v_status TEXT;
  v_event TEXT;
  v_ids TEXT[] := '{}';
BEGIN
  UPDATE "batches" SET
    "open_count" = "open_count" - 1,
    "complete_count" = "complete_count" + (p_job."status" = 'COMPLETE')::INTEGER,
    "partial_count" = "partial_count" + (p_job."status" = 'PARTIAL')::INTEGER,
    "empty_count" = "empty_count" + (p_job."status" = 'EMPTY')::INTEGER,
    "failed_count" = "failed_count" + (p_job."status" = 'FAILED')::INTEGER,
    "cancelled_count" = "cancelled_count" + (p_job."status" = 'CANCELLED')::INTEGER,
    "delivered_count" = "delivered_count" + p_job."delivered_count",
    "credits_charged" = "credits_charged" + COALESCE(p_job."credits_charged", 0),
    "credits_reserved" = "credits_reserved" - p_job."credits_reserved"
  WHERE "id" = p_job."batch_id"
  RETURNING * INTO v_batch;
  IF NOT FOUND OR v_batch."open_count" > 0 OR v_batch."status" <> 'running' THEN RETURN v_ids; END IF;

  v_status := CASE
    WHEN v_batch."cancelled_at" IS NOT NULL THEN 'CANCELLED'
    WHEN v_batch."complete_count" = v_batch."child_count" THEN 'COMPLETE'
    -- an area search that delivered its batch-wide maxResults has what was asked (its unneeded tiles CANCELLED)
    WHEN v_batch."max_results" IS NOT NULL AND v_batch."delivered_count" >= v_batch."max_results" THEN 'COMPLETE'
    WHEN v_batch."failed_count" = v_batch."child_count" THEN 'FAILED'
    WHEN v_batch."delivered_count" = 0 THEN 'EMPTY'
    ELSE 'PARTIAL' END;
  UPDATE "batches" SET "status" = v_status, "finished_at" = now() WHERE "id" = v_batch."id";
  DELETE FROM "batch_deliveries" WHERE "batch_id" = v_batch."id";
  v_event := CASE v_status WHEN 'COMPLETE' THEN 'batch.completed' ELSE 'batch.' || lower(v_status) END;

  WITH inserted AS (
    INSERT INTO "webhook_deliveries" ("account_id", "endpoint_id", "url", "batch_id", "event_type")
    SELECT v_batch."account_id", e."id", NULL, v_batch."id", v_event FROM "webhook_endpoints" e
    WHERE e."account_id" = v_batch."account_id" AND e."disabled_at" IS NULL AND e."events" ? v_event
    UNION ALL
    SELECT v_batch."account_id", NULL, v_batch."webhook_url", v_batch."id", v_event WHERE v_batch."webhook_url" IS NOT NULL
    RETURNING "id"
  )
  SELECT COALESCE(array_agg(inserted."id"), '{}') INTO v_ids FROM inserted;
  RETURN v_ids;
END
$$;
