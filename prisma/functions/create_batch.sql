-- create_batch: a batch and its children (ordinary jobs, queued, each tagged with the batch and its index) in
-- one transaction, bound to its Idempotency-Key (docs/decisions/021-batches.md):
-- 1. an expired binding of the key is dropped; then the batch row binds the key through its unique
--    (account_id, idempotency_key): a live key conflicts (answered 'bound' with its batch and fingerprint),
--    and a concurrent first call with the same key waits at the index until this one commits;
-- 2. the account must be able to cover the first child's worst case now, else nothing is written and the
--    key is not bound ('insufficient_credits'). Nothing is reserved here: each child reserves its own worst
--    case when it starts (start_job), against the batch's maxCredits and the account's available credits;
-- 3. the children: p_children is a JSON array of { jobId, resultSetId, source, request, requestedCount, reserve },
--    each written held (released_at NULL, no queue entry): the caller releases what fits under the account's
--    cap (release_held_jobs) once this has committed, and each child's settlement releases the next
--    (docs/decisions/020-fair-queues.md), so a 1,000-child batch holds at most the cap's worth of queue slots.
-- Called by: packages/db/src/batch-creation.ts (insertBatchWithin, for @leadgen/commands' createBatch and monitor runs).
-- Locks: the batches row it inserts (and, for a conflicting key, waits for the other binding's transaction).
-- Guarantees: outcome 'created' (batch and every child written together), 'bound' or 'insufficient_credits'
--   (nothing written).
-- Depends on: account_credits

CREATE OR REPLACE FUNCTION "create_batch"(
  p_account_id TEXT, p_key TEXT, p_fingerprint TEXT, p_ttl_hours INTEGER, p_batch_id TEXT, p_name TEXT,
  p_exclude_delivered BOOLEAN, p_max_credits INTEGER, p_webhook_url TEXT, p_webhook_secret TEXT,
  p_first_reserve INTEGER, p_children JSONB
) RETURNS TABLE (o_outcome TEXT, o_batch_id TEXT, o_fingerprint TEXT, o_available BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
  v_batch_id TEXT;
  v_available BIGINT;
BEGIN
  UPDATE "batches" SET "idempotency_key" = NULL, "key_expires_at" = NULL
  WHERE "account_id" = p_account_id AND "idempotency_key" = p_key AND "key_expires_at" <= now();

  INSERT INTO "batches" ("id", "account_id", "name", "idempotency_key", "fingerprint", "key_expires_at", "exclude_delivered",
    "max_credits", "webhook_url", "child_count", "open_count", "requested_count")
  SELECT p_batch_id, p_account_id, p_name, p_key, p_fingerprint, now() + make_interval(hours => p_ttl_hours), p_exclude_delivered,
    p_max_credits, p_webhook_url, jsonb_array_length(p_children), jsonb_array_length(p_children),
    (SELECT COALESCE(sum((c->>'requestedCount')::INTEGER), 0) FROM jsonb_array_elements(p_children) c)
  ON CONFLICT ("account_id", "idempotency_key") DO NOTHING
  RETURNING "id" INTO v_batch_id;
  IF v_batch_id IS NULL THEN
    RETURN QUERY SELECT 'bound'::TEXT, b."id", b."fingerprint", NULL::BIGINT
      FROM "batches" b WHERE b."account_id" = p_account_id AND b."idempotency_key" = p_key;
    RETURN;
  END IF;

  -- The account's whole available (base and stripes, one snapshot): a check, not a reservation (the child
  -- reserves when it starts), so it takes no lock.
  SELECT c."balance" - c."reserved" INTO v_available FROM account_credits(p_account_id) c;
  IF COALESCE(v_available, 0) < p_first_reserve THEN
    DELETE FROM "batches" WHERE "id" = v_batch_id;
    RETURN QUERY SELECT 'insufficient_credits'::TEXT, NULL::TEXT, NULL::TEXT, COALESCE(v_available, 0);
    RETURN;
  END IF;

  INSERT INTO "jobs" ("id", "account_id", "result_set_id", "source", "request", "requested_count", "credits_reserved",
    "webhook_url", "batch_id", "batch_index", "reserve_on_start", "released_at")
  SELECT c.item->>'jobId', p_account_id, c.item->>'resultSetId', (c.item->>'source')::"Source", c.item->'request',
    (c.item->>'requestedCount')::INTEGER, 0, c.item->'request'->>'webhookUrl', v_batch_id, (c.ord - 1)::INTEGER,
    (c.item->>'reserve')::INTEGER, NULL
  FROM jsonb_array_elements(p_children) WITH ORDINALITY AS c(item, ord);

  IF p_webhook_secret IS NOT NULL AND (p_webhook_url IS NOT NULL OR EXISTS (SELECT 1 FROM jsonb_array_elements(p_children) c WHERE c->'request' ? 'webhookUrl')) THEN
    INSERT INTO "account_webhook_secrets" ("account_id", "secret") VALUES (p_account_id, p_webhook_secret) ON CONFLICT DO NOTHING;
  END IF;
  RETURN QUERY SELECT 'created'::TEXT, v_batch_id, p_fingerprint, NULL::BIGINT;
END
$$;
