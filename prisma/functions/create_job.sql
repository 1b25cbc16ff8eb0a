-- create_job: a job's creation in one round trip and one transaction (docs/decisions/011-hot-path-sql.md).
-- Each step runs only if the one before it succeeded, and each statement sees what committed before it
-- ran (a fresh snapshot per statement), which a single CTE could not:
-- 1. bind the key through its primary key: a live key conflicts, and a concurrent first call with the
--    same key waits here until that one commits; an expired key is taken over;
-- 2. reserve on one of the account's credit stripes (reserve_credits); if the account is short, the key is
--    unbound again, so a refused request never binds its key;
-- 3. insert the job (with its own webhookUrl), the ledger's reserve row, and the account's default webhook
--    secret with the first job that names a webhookUrl (p_webhook_secret is a fresh candidate, used only then);
-- 4. release it into its queue if the account has fewer than p_share open released jobs of the source,
--    after any older held ones (release_held_jobs; docs/decisions/020-fair-queues.md); p_share 0: at once;
--    an account at its share keeps it held without the release's lock (a settlement releases it); one under its
--    share with nothing held inserts it released (one row version instead of an insert and an update).
-- Called by: packages/db/src/job-creation.ts (insertJobWithin, for @leadgen/commands' createJob and monitor runs).
-- Locks: the idempotency_keys row (account, key), then the accounts row FOR KEY SHARE and one credit_stripes
--   row (the reservation; reserve_credits says when more), then, unless the account is at its share,
--   release_held_jobs' advisory lock of the account and source and the held rows it releases.
-- Guarantees: outcome 'created' (job, reserve row and counters written together; o_released the jobs the
--   caller must enqueue, oldest first: this one unless it is held, and older held ones that fit now), 'bound'
--   (the key's job and fingerprint; nothing written) or 'insufficient_credits' (the account's whole available,
--   summed exactly under its lock by reserve_credits; nothing written, key unbound).
-- Depends on: release_held_jobs, reserve_credits, share_open_jobs

CREATE OR REPLACE FUNCTION "create_job"(
  p_account_id TEXT, p_key TEXT, p_fingerprint TEXT, p_job_id TEXT, p_ttl_hours INTEGER,
  p_reserve INTEGER, p_result_set_id TEXT, p_source "Source", p_request JSONB, p_requested_count INTEGER,
  p_webhook_url TEXT, p_webhook_secret TEXT, p_share INTEGER
) RETURNS TABLE (o_outcome TEXT, o_job_id TEXT, o_fingerprint TEXT, o_available BIGINT, o_released TEXT[])
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_job_id TEXT;
  v_short BIGINT;
  v_release BOOLEAN := false;
  v_at_share BOOLEAN := false;
BEGIN
  INSERT INTO "idempotency_keys" AS k ("account_id", "key", "fingerprint", "job_id", "created_at", "expires_at")
  VALUES (p_account_id, p_key, p_fingerprint, p_job_id, now(), now() + make_interval(hours => p_ttl_hours))
  ON CONFLICT ("account_id", "key") DO UPDATE
    SET "fingerprint" = EXCLUDED."fingerprint", "job_id" = EXCLUDED."job_id", "created_at" = EXCLUDED."created_at", "expires_at" = EXCLUDED."expires_at"
    WHERE k."expires_at" <= now()
  RETURNING k."job_id" INTO v_job_id;
  IF v_job_id IS NULL THEN
    RETURN QUERY SELECT 'bound'::TEXT, k."job_id", k."fingerprint", NULL::BIGINT, '{}'::TEXT[]
      FROM "idempotency_keys" k WHERE k."account_id" = p_account_id AND k."key" = p_key;
    RETURN;
  END IF;

  v_short := reserve_credits(p_account_id, p_job_id, p_reserve);
  IF v_short IS NOT NULL THEN
    DELETE FROM "idempotency_keys" k WHERE k."account_id" = p_account_id AND k."key" = p_key AND k."job_id" = p_job_id;
    RETURN QUERY SELECT 'insufficient_credits'::TEXT, NULL::TEXT, NULL::TEXT, v_short, '{}'::TEXT[];
    RETURN;
  END IF;

  -- Released as it is inserted at share 0, or when the account is under its share with nothing held (one row
  -- version, not an insert and then an update); held (released_at NULL) otherwise. An account already at its share (a
  -- burst of its own) keeps the job held without taking the release's lock, so its creations do not queue behind each
  -- other's commits: the settlement of one of those open jobs releases it (in the rare race where the last of them
  -- settled meanwhile, a borrowed slot or the periodic sweep does). Under the share with older jobs held,
  -- release_held_jobs below releases the oldest first.
  IF p_share = 0 THEN
    v_release := true;
  ELSIF share_open_jobs(p_account_id, p_source, p_share) >= p_share THEN
    v_at_share := true;
  ELSE
    -- The count again, under the lock every release of the account's jobs of the source takes (release_held_jobs).
    PERFORM pg_advisory_xact_lock(hashtextextended('release_held_jobs:' || p_account_id || ':' || p_source::text, 0));
    v_release := share_open_jobs(p_account_id, p_source, p_share) < p_share AND NOT EXISTS (
      SELECT 1 FROM "jobs" h WHERE h."account_id" = p_account_id AND h."source" = p_source AND h."status" = 'queued' AND h."released_at" IS NULL
    );
  END IF;
  INSERT INTO "jobs" ("id", "account_id", "result_set_id", "source", "request", "requested_count", "credits_reserved", "webhook_url", "released_at")
  VALUES (p_job_id, p_account_id, p_result_set_id, p_source, p_request, p_requested_count, p_reserve, p_webhook_url,
    CASE WHEN v_release THEN now() END);
  INSERT INTO "credit_ledger" ("account_id", "job_id", "kind", "amount") VALUES (p_account_id, p_job_id, 'reserve', p_reserve);
  IF p_webhook_url IS NOT NULL THEN
    INSERT INTO "account_webhook_secrets" ("account_id", "secret") VALUES (p_account_id, p_webhook_secret) ON CONFLICT DO NOTHING;
  END IF;
  RETURN QUERY SELECT 'created'::TEXT, p_job_id, p_fingerprint, NULL::BIGINT,
    CASE
      WHEN v_release THEN ARRAY[p_job_id]
      WHEN v_at_share THEN '{}'::TEXT[]
      ELSE release_held_jobs(p_account_id, p_source, p_share)
    END;
END
$$;
