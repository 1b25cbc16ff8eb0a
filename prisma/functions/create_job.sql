-- create_job: a job's creation in one round trip and one transaction (docs/decisions/011-hot-path-sql.md).
-- Each step runs only if the one before it succeeded, and each statement sees what committed before it
-- ran (a fresh snapshot per statement), which a single CTE could not:
-- 1. bind the key through its primary key: a live key conflicts, and a concurrent first call with the
--    same key waits here until that one commits; an expired key is taken over;
-- 2. reserve on one of the account's credit stripes (reserve_credits); if the account is short, the key is
--    unbound again, so a refused request never binds its key;
-- 3. insert the job (with its own webhookUrl), the ledger's reserve row, and the account's default webhook
--    secret with the first job that names a webhookUrl (p_webhook_secret is a fresh candidate, used only then).
-- Called by: packages/db/src/job-creation.ts (createJob).
-- Locks: the idempotency_keys row (account, key), then a credit_stripes row (reserve_credits says when more).
-- Guarantees: outcome 'created' (job, reserve row and counters written together), 'bound' (the key's job and
--   fingerprint; nothing written) or 'insufficient_credits' (what is available; nothing written, key unbound).
-- Depends on: reserve_credits

CREATE OR REPLACE FUNCTION "create_job"(
  p_account_id TEXT, p_key TEXT, p_fingerprint TEXT, p_job_id TEXT, p_ttl_hours INTEGER,
  p_reserve INTEGER, p_result_set_id TEXT, p_source "Source", p_request JSONB, p_requested_count INTEGER,
  p_webhook_url TEXT, p_webhook_secret TEXT
) RETURNS TABLE (o_outcome TEXT, o_job_id TEXT, o_fingerprint TEXT, o_available BIGINT)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_job_id TEXT;
  v_short BIGINT;
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

  v_short := reserve_credits(p_account_id, p_job_id, p_reserve);
  IF v_short IS NOT NULL THEN
    DELETE FROM "idempotency_keys" k WHERE k."account_id" = p_account_id AND k."key" = p_key AND k."job_id" = p_job_id;
    RETURN QUERY SELECT 'insufficient_credits'::TEXT, NULL::TEXT, NULL::TEXT, v_short;
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
