-- delete_account: removes an account and everything it owns (keys, jobs and their leads, deliveries memory,
-- suppressions, webhooks, idempotency keys, its credit ledger) in one transaction, and returns the figures
-- the audit trail keeps of it (counts and credit totals, the balance summed over its credit stripes; no personal
-- data). It refuses while the account has a queued or running job: the caller cancels those first (a settlement
-- still under way finishes first).
-- Called by: packages/db/src/account-deletion.ts (deleteAccount), after purge_account_rows has taken, in bounded
--   batches, what grows with the account (its finished jobs and their leads, deliveries, suppressions): what is left
--   here is small (decision 043).
-- Locks: the accounts row (FOR UPDATE: a create_job, a batch child's start or a settlement of the account waits
--   for it before touching a credit stripe, then finds no account; one already holding a stripe holds KEY SHARE
--   too, so this waits for it to commit), then by the cascade every row it owns, its credit stripes included.
-- Guarantees: all or nothing; 'not_found' or 'open_jobs' change nothing; the ledger's append-only trigger lets
--   this account's rows go, inside this statement only (leadgen.account_deletion names the account and is
--   cleared before it returns), and no other row of the ledger.
-- Depends on: account_credits, credit_ledger_append_only

CREATE OR REPLACE FUNCTION "delete_account"(p_account_id TEXT)
RETURNS TABLE ("o_outcome" TEXT, "o_jobs" INTEGER, "o_leads" BIGINT, "o_api_keys" INTEGER, "o_ledger_rows" INTEGER, "o_granted" BIGINT, "o_charged" BIGINT, "o_balance" BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
  v_balance BIGINT;
BEGIN
  PERFORM 1 FROM "accounts" a WHERE a."id" = p_account_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'not_found'::TEXT, 0, 0::BIGINT, 0, 0, 0::BIGINT, 0::BIGINT, 0::BIGINT;
    RETURN;
  END IF;
  -- Under FOR UPDATE nobody else holds a stripe of the account (reserve_credits and settle_credits take KEY
  -- SHARE first, which waits for this), so the sum is settled.
  SELECT c."balance" INTO v_balance FROM account_credits(p_account_id) c;
  IF EXISTS (SELECT 1 FROM "jobs" j WHERE j."account_id" = p_account_id AND j."status" IN ('queued', 'running')) THEN
    RETURN QUERY SELECT 'open_jobs'::TEXT, 0, 0::BIGINT, 0, 0, 0::BIGINT, 0::BIGINT, v_balance;
    RETURN;
  END IF;

  RETURN QUERY SELECT 'deleted'::TEXT,
    (SELECT count(*)::INTEGER FROM "jobs" j WHERE j."account_id" = p_account_id),
    (SELECT count(*) FROM "leads" l JOIN "jobs" j ON j."id" = l."job_id" WHERE j."account_id" = p_account_id),
    (SELECT count(*)::INTEGER FROM "api_keys" k WHERE k."account_id" = p_account_id),
    (SELECT count(*)::INTEGER FROM "credit_ledger" c WHERE c."account_id" = p_account_id),
    (SELECT COALESCE(sum(c."amount"), 0)::BIGINT FROM "credit_ledger" c WHERE c."account_id" = p_account_id AND c."kind" = 'grant'),
    (SELECT COALESCE(sum(c."amount"), 0)::BIGINT FROM "credit_ledger" c WHERE c."account_id" = p_account_id AND c."kind" = 'charge'),
    v_balance;

  PERFORM set_config('leadgen.account_deletion', p_account_id, true);
  DELETE FROM "accounts" a WHERE a."id" = p_account_id;
  PERFORM set_config('leadgen.account_deletion', '', true);
END
$$;
