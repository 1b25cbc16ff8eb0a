-- Credits in O(1): the account carries its balance (granted - charged) and what open jobs hold
-- (reserved), kept in the same statement as the ledger rows that justify them. The ledger stays
-- the proof; `npm run admin -- credits:verify` and the tests check that both agree.
ALTER TABLE "accounts" ADD COLUMN "balance" BIGINT NOT NULL DEFAULT 0,
                       ADD COLUMN "reserved" BIGINT NOT NULL DEFAULT 0;

UPDATE "accounts" AS a
SET "balance" = s.balance, "reserved" = s.reserved
FROM (
  SELECT "account_id",
         COALESCE(SUM("amount") FILTER (WHERE "kind" = 'grant'), 0) - COALESCE(SUM("amount") FILTER (WHERE "kind" = 'charge'), 0) AS balance,
         COALESCE(SUM("amount") FILTER (WHERE "kind" = 'reserve'), 0) - COALESCE(SUM("amount") FILTER (WHERE "kind" = 'release'), 0) AS reserved
  FROM "credit_ledger" GROUP BY "account_id"
) AS s
WHERE a."id" = s."account_id";

-- No code path can overdraw an account: a reservation only succeeds while balance - reserved
-- covers it, and a settlement charges at most what it releases.
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_credits_covered" CHECK ("reserved" >= 0 AND "reserved" <= "balance");

-- When a job last moved (created, started, a page committed, settled): the lost-job sweep only
-- looks at open jobs that have been still for a while.
ALTER TABLE "jobs" ADD COLUMN "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
UPDATE "jobs" SET "updated_at" = COALESCE("finished_at", "started_at", "created_at");

-- Not indexed: the sweep finds the (few) open jobs through the status index and filters them by
-- updated_at, and a page commit, which changes no indexed column, stays a HOT update. Room on each
-- page for those updates:
ALTER TABLE "jobs" SET (fillfactor = 85);

-- API keys may expire, and say when they were last used (to the hour: a write per hour per key at
-- most, never one per request).
ALTER TABLE "api_keys" ADD COLUMN "expires_at" TIMESTAMPTZ(3), ADD COLUMN "last_used_at" TIMESTAMPTZ(3);

-- A job's creation in one round trip and one transaction (docs/decisions/011-hot-path-sql.md).
-- Each step runs only if the one before it succeeded, and each statement in here sees what
-- committed before it ran (a fresh snapshot per statement), which a single CTE could not:
-- 1. bind the key through its primary key: a live key conflicts, and a concurrent first call with
--    the same key waits here until that one commits; an expired key is taken over;
-- 2. reserve through a conditional update of the account's counters; if the account is short, the
--    key is unbound again, so a refused request never binds its key;
-- 3. insert the job and the ledger's reserve row.
CREATE FUNCTION "create_job"(
  p_account_id TEXT, p_key TEXT, p_fingerprint TEXT, p_job_id TEXT, p_ttl_hours INTEGER,
  p_reserve INTEGER, p_result_set_id TEXT, p_source "Source", p_request JSONB, p_requested_count INTEGER
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

  INSERT INTO "jobs" ("id", "account_id", "result_set_id", "source", "request", "requested_count", "credits_reserved")
  VALUES (p_job_id, p_account_id, p_result_set_id, p_source, p_request, p_requested_count, p_reserve);
  INSERT INTO "credit_ledger" ("account_id", "job_id", "kind", "amount") VALUES (p_account_id, p_job_id, 'reserve', p_reserve);
  RETURN QUERY SELECT 'created'::TEXT, p_job_id, p_fingerprint, NULL::BIGINT;
END
$$;
