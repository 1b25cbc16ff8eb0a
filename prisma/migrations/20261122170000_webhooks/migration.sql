-- Signed webhooks (issue 12, docs/decisions/016-webhooks.md): a job's terminal status reaches the
-- consumer without polling. The event is recorded here, in the statement that writes the terminal
-- status (an outbox), so no terminal job is ever without its event and no event exists for a job
-- that did not end; a BullMQ queue (`webhooks`) only carries the attempts.

-- An account's endpoints (at most 10, enforced by the API under the account's row lock).
CREATE TABLE "webhook_endpoints" (
  "id" TEXT NOT NULL,
  "account_id" TEXT NOT NULL,
  "url" TEXT NOT NULL,
  "description" TEXT,
  -- a JSON array of event types (job.completed, ...): `events ? 'job.failed'` is the subscription test
  "events" JSONB NOT NULL,
  -- `whsec_` + base64: shown once, kept as is because every delivery is signed with it
  "secret" TEXT NOT NULL,
  -- the secret before the last rotation, which deliveries are also signed with until it expires
  "previous_secret" TEXT,
  "previous_secret_expires_at" TIMESTAMPTZ(3),
  "disabled_at" TIMESTAMPTZ(3),
  -- why: `disabled_by_owner`, `gone` (it answered 410), `failing` (every attempt failed for WEBHOOK_DISABLE_AFTER_MS)
  "disabled_reason" TEXT,
  -- the first failed attempt since the last success: what the failing-for-days rule counts from
  "failing_since" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);
-- The settlement's test "does this account have endpoints" is one probe of this index.
CREATE INDEX "webhook_endpoints_account_id_idx" ON "webhook_endpoints"("account_id");
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The account's default secret, which signs deliveries to a job's own `webhookUrl`: created with the
-- first such job (or the first request for it), shown once.
CREATE TABLE "account_webhook_secrets" (
  "account_id" TEXT NOT NULL,
  "secret" TEXT NOT NULL,
  "previous_secret" TEXT,
  "previous_secret_expires_at" TIMESTAMPTZ(3),
  -- when the secret was shown; null: it has not been yet, and the next request for it shows it
  "revealed_at" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "account_webhook_secrets_pkey" PRIMARY KEY ("account_id")
);
ALTER TABLE "account_webhook_secrets" ADD CONSTRAINT "account_webhook_secrets_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TYPE "WebhookDeliveryStatus" AS ENUM ('pending', 'succeeded', 'failed');

-- One message to one target: an endpoint, or (endpoint_id null) a job's own webhookUrl. Its id is
-- the Standard Webhooks `webhook-id`, the same on every attempt, and the BullMQ entry's id, so
-- enqueueing it twice is harmless.
CREATE TABLE "webhook_deliveries" (
  "id" TEXT NOT NULL DEFAULT ('msg_' || replace(gen_random_uuid()::text, '-', '')),
  "account_id" TEXT NOT NULL,
  "endpoint_id" TEXT,
  -- the target when there is no endpoint (a job's webhookUrl); an endpoint's is read at each attempt
  "url" TEXT,
  "job_id" TEXT,
  "event_type" TEXT NOT NULL,
  "status" "WebhookDeliveryStatus" NOT NULL DEFAULT 'pending',
  -- attempts made, and those of the current round (a manual retry starts a new round of the schedule)
  "attempts" INTEGER NOT NULL DEFAULT 0,
  "round_attempts" INTEGER NOT NULL DEFAULT 0,
  -- when the next attempt is due: the outbox sweep looks only at pending deliveries well past it
  "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "delivered_at" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "webhook_deliveries_endpoint_id_created_at_idx" ON "webhook_deliveries"("endpoint_id", "created_at");
CREATE INDEX "webhook_deliveries_account_id_created_at_idx" ON "webhook_deliveries"("account_id", "created_at");
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at");
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_target" CHECK (("endpoint_id" IS NULL) <> ("url" IS NULL));

-- Every attempt, as the account sees it at GET /api/v1/webhooks/{id}/deliveries.
CREATE TABLE "webhook_attempts" (
  "id" BIGSERIAL NOT NULL,
  "delivery_id" TEXT NOT NULL,
  "attempt" INTEGER NOT NULL,
  "url" TEXT NOT NULL,
  "started_at" TIMESTAMPTZ(3) NOT NULL,
  -- the HTTP status; null when no answer came (timeout, refused address, network error)
  "response_status" INTEGER,
  "latency_ms" INTEGER NOT NULL,
  -- the first bytes of the answer's body (at most 1 KiB of text)
  "response_excerpt" TEXT,
  -- why it failed when the status does not say it: timeout, forbidden_address, network_error, ...
  "error" TEXT,
  "succeeded" BOOLEAN NOT NULL,
  CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "webhook_attempts_delivery_id_attempt_key" ON "webhook_attempts"("delivery_id", "attempt");
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A job's own target, as the generation request's `webhookUrl` gave it (also kept in `request`):
-- what the settlement reads, without opening the request's JSON.
ALTER TABLE "jobs" ADD COLUMN "webhook_url" TEXT;

-- create_job of 20261122120000 with the job's webhookUrl: stored with the job, and the account's
-- default secret created with the first such job (p_webhook_secret is a fresh candidate, used only
-- then). Otherwise unchanged.
DROP FUNCTION "create_job"(TEXT, TEXT, TEXT, TEXT, INTEGER, INTEGER, TEXT, "Source", JSONB, INTEGER);
CREATE FUNCTION "create_job"(
  p_account_id TEXT, p_key TEXT, p_fingerprint TEXT, p_job_id TEXT, p_ttl_hours INTEGER,
  p_reserve INTEGER, p_result_set_id TEXT, p_source "Source", p_request JSONB, p_requested_count INTEGER,
  p_webhook_url TEXT, p_webhook_secret TEXT
) RETURNS TABLE (o_outcome TEXT, o_job_id TEXT, o_fingerprint TEXT, o_available BIGINT)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_job_id TEXT;
BEGIN
  INSERT INTO "idempotency_keys" AS k ("account_id", "key", "fingerprint", "job_id", "created_at", "expires_at")
  VALUES (p_account_id, p_key, p_fingerprint, p_job_id, now(), now() + make_interval(hours => p_ttl_hours))
  ON CONFLICT ("account_id", "key") DO UPDATE
    SET "fingerprint" = EXCLUDED."fingerprint", "job_id" = EXCLUDED."job_id", "created_at" = EXCLUDED."created_at", "expires_at" = EXCLUDED."expires_at"
    WHERE k."expires_at" <= now()
  RETURNING k."job_id" INTO v_job_id;
  IF v_job_id IS NULL THEN
    RETURN QUERY SELECT 'bound'::TEXT, k."job_id", k."fingerprint", NULL::BIGINT
      FROM "idempotency_keys" k WHERE k."account_id" = p_account_id AND k."key" = p_key;
    RETURN;
  END IF;

  UPDATE "accounts" SET "reserved" = "reserved" + p_reserve WHERE "id" = p_account_id AND "balance" - "reserved" >= p_reserve;
  IF NOT FOUND THEN
    DELETE FROM "idempotency_keys" k WHERE k."account_id" = p_account_id AND k."key" = p_key AND k."job_id" = p_job_id;
    RETURN QUERY SELECT 'insufficient_credits'::TEXT, NULL::TEXT, NULL::TEXT, COALESCE((SELECT a."balance" - a."reserved" FROM "accounts" a WHERE a."id" = p_account_id), 0);
    RETURN;
  END IF;

  INSERT INTO "jobs" ("id", "account_id", "result_set_id", "source", "request", "requested_count", "credits_reserved", "webhook_url")
  VALUES (p_job_id, p_account_id, p_result_set_id, p_source, p_request, p_requested_count, p_reserve, p_webhook_url);
  INSERT INTO "credit_ledger" ("account_id", "job_id", "kind", "amount") VALUES (p_account_id, p_job_id, 'reserve', p_reserve);
  IF p_webhook_url IS NOT NULL THEN
    INSERT INTO "account_webhook_secrets" ("account_id", "secret") VALUES (p_account_id, p_webhook_secret) ON CONFLICT DO NOTHING;
  END IF;
  RETURN QUERY SELECT 'created'::TEXT, p_job_id, p_fingerprint, NULL::BIGINT;
END
$$;

-- The event a terminal status raises, recorded for every enabled endpoint of the account that
-- subscribes to it and for the job's own webhookUrl; the new deliveries' ids, for the settler to
-- enqueue at once (the outbox sweep enqueues any it could not).
CREATE FUNCTION "record_job_event"(p_job "jobs")
RETURNS TEXT[]
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_event TEXT := CASE p_job."status" WHEN 'COMPLETE' THEN 'job.completed' ELSE 'job.' || lower(p_job."status"::TEXT) END;
  v_ids TEXT[];
BEGIN
  WITH inserted AS (
    INSERT INTO "webhook_deliveries" ("account_id", "endpoint_id", "url", "job_id", "event_type")
    SELECT p_job."account_id", e."id", NULL, p_job."id", v_event FROM "webhook_endpoints" e
    WHERE e."account_id" = p_job."account_id" AND e."disabled_at" IS NULL AND e."events" ? v_event
    UNION ALL
    SELECT p_job."account_id", NULL, p_job."webhook_url", p_job."id", v_event WHERE p_job."webhook_url" IS NOT NULL
    RETURNING "id"
  )
  SELECT COALESCE(array_agg(inserted."id"), '{}') INTO v_ids FROM inserted;
  RETURN v_ids;
END
$$;

-- settle_job of 20261122130000, now also returning the ids of the deliveries its terminal status
-- raised, recorded in the same transaction. A job without webhookUrl of an account without
-- endpoints pays one probe of webhook_endpoints_account_id_idx and nothing else.
DROP FUNCTION "settle_job"(TEXT, "JobStatus", TEXT, INTEGER, INTEGER);
CREATE FUNCTION "settle_job"(p_job_id TEXT, p_status "JobStatus", p_stop_reason TEXT, p_charge INTEGER, p_delivered INTEGER)
RETURNS TABLE ("job" "jobs", "webhook_deliveries" TEXT[])
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_job "jobs";
  v_deliveries TEXT[] := '{}';
BEGIN
  UPDATE "jobs" SET "status" = p_status, "stop_reason" = p_stop_reason, "credits_charged" = p_charge, "finished_at" = now(), "updated_at" = now()
  WHERE "id" = p_job_id AND "status" IN ('queued', 'running') AND "delivered_count" = p_delivered
  RETURNING * INTO v_job;
  IF NOT FOUND THEN RETURN; END IF;
  IF v_job."credits_reserved" > 0 THEN
    INSERT INTO "credit_ledger" ("account_id", "job_id", "kind", "amount") VALUES (v_job."account_id", p_job_id, 'release', v_job."credits_reserved");
  END IF;
  IF p_charge > 0 THEN
    INSERT INTO "credit_ledger" ("account_id", "job_id", "kind", "amount") VALUES (v_job."account_id", p_job_id, 'charge', p_charge);
  END IF;
  UPDATE "accounts" SET "balance" = "balance" - p_charge, "reserved" = "reserved" - v_job."credits_reserved" WHERE "id" = v_job."account_id";
  IF v_job."webhook_url" IS NOT NULL OR EXISTS (SELECT 1 FROM "webhook_endpoints" e WHERE e."account_id" = v_job."account_id") THEN
    v_deliveries := record_job_event(v_job);
  END IF;
  RETURN QUERY SELECT v_job, v_deliveries;
END
$$;
