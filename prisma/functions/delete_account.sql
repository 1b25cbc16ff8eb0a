-- delete_account: removes an account and what is left of it once purge_account_rows has taken, in bounded batches,
-- what grows with its use (decision 043): keys, monitors, batches, webhooks, credit stripes, idempotency keys and its
-- test account (decision 036) with its row, then its credit ledger, p_ledger_rows rows a call (issue 39: the ledger of
-- a customer's year is 80,000 rows, which the row's cascade deleted in one statement, 0.3 s to 1.5 s). It returns the
-- figures the audit trail keeps of it (counts and credit totals, the balance summed over its credit stripes; no
-- personal data). It refuses while the account has a queued or running job: the caller cancels those first (a
-- settlement still under way finishes first).
-- Each call is one step, and answers what it did:
--   'not_found'  no account, and no deletion of it under way; nothing changed.
--   'open_jobs'  the account has an open job; nothing changed.
--   'ledger'     the first call: the figures taken and recorded in account_deletions, then the account row deleted
--                (and by the cascade all it owns but its ledger); or a later one: p_ledger_rows of its ledger
--                deleted (delete_account_ledger), maybe more left. Call again.
--   'deleted'    a later call that found fewer than p_ledger_rows left (NULL: all of it) and deleted them: the
--                recorded figures returned, and their row deleted.
-- The one-argument form (the previous release's, packages/db/test/fixtures/previous-release-statements.sql) runs the
-- steps to the end in one transaction, the whole ledger at once, as the cascade did.
-- Called by: packages/db/src/account-deletion.ts (deleteAccount), after purge_account_rows' batches, until it
--   answers something else than 'ledger'.
-- Locks: the first call, the accounts row (FOR UPDATE: a create_job, a batch child's start or a settlement of the
--   account waits for it before touching a credit stripe, then finds no account; one already holding a stripe holds
--   KEY SHARE too, so this waits for it to commit), then by the cascade every row it owns, its credit stripes
--   included, and its test account's (whose ledger, a sandbox's, goes in the same call). A later call, its
--   account_deletions row (one deleter at a time) and one batch of ledger rows.
-- Guarantees: the figures (ledger rows, granted, charged, balance) are taken under the account row's lock before any
--   ledger row goes, and nothing adds to the ledger once the row is gone (credit_ledger_account_exists), so they stay
--   what the batches delete; 'not_found' and 'open_jobs' change nothing; the ledger's append-only trigger lets only
--   this account's rows go, and only once its row is gone (delete_account_ledger); a deletion that stops halfway (the
--   account row gone, some of its ledger left) carries on at the next call and answers the figures taken at first.
-- Plans: custom, for the account (plan_cache_mode = force_custom_plan, as purge_account_rows): a generic plan reads
--   the whole ledger for the figures of a small account beside a big one.
-- Depends on: account_credits, credit_ledger_append_only, delete_account_ledger

CREATE OR REPLACE FUNCTION "delete_account"(p_account_id TEXT, p_ledger_rows INTEGER)
RETURNS TABLE ("o_outcome" TEXT, "o_jobs" INTEGER, "o_leads" BIGINT, "o_api_keys" INTEGER, "o_ledger_rows" INTEGER, "o_granted" BIGINT, "o_charged" BIGINT, "o_balance" BIGINT)
LANGUAGE plpgsql SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  v_balance BIGINT;
  v_test TEXT;
  v_done RECORD;
BEGIN
  SELECT * INTO v_done FROM "account_deletions" d WHERE d."account_id" = p_account_id FOR UPDATE;
  IF FOUND THEN
    -- Fewer than p_ledger_rows: the ledger is empty now (nothing adds to it), and the deletion ends in this call.
    IF delete_account_ledger(p_account_id, p_ledger_rows) >= p_ledger_rows THEN
      RETURN QUERY SELECT 'ledger'::TEXT, v_done."jobs", v_done."leads", v_done."api_keys", v_done."ledger_rows",
        v_done."granted", v_done."charged", v_done."balance";
      RETURN;
    END IF;
    DELETE FROM "account_deletions" d WHERE d."account_id" = p_account_id;
    RETURN QUERY SELECT 'deleted'::TEXT, v_done."jobs", v_done."leads", v_done."api_keys", v_done."ledger_rows",
      v_done."granted", v_done."charged", v_done."balance";
    RETURN;
  END IF;

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

  INSERT INTO "account_deletions" ("account_id", "jobs", "leads", "api_keys", "ledger_rows", "granted", "charged", "balance")
  SELECT p_account_id,
    (SELECT count(*)::INTEGER FROM "jobs" j WHERE j."account_id" = p_account_id),
    (SELECT count(*) FROM "leads" l JOIN "jobs" j ON j."id" = l."job_id" WHERE j."account_id" = p_account_id),
    (SELECT count(*)::INTEGER FROM "api_keys" k WHERE k."account_id" = p_account_id),
    c."rows", c."granted", c."charged", v_balance
  FROM (SELECT count(*)::INTEGER AS "rows",
          COALESCE(sum(l."amount") FILTER (WHERE l."kind" = 'grant'), 0)::BIGINT AS "granted",
          COALESCE(sum(l."amount") FILTER (WHERE l."kind" = 'charge'), 0)::BIGINT AS "charged"
        FROM "credit_ledger" l WHERE l."account_id" = p_account_id) c
  RETURNING * INTO v_done;

  -- Its test account goes with it by the cascade, as before; that one's ledger (a sandbox's) in this call.
  SELECT a."id" INTO v_test FROM "accounts" a WHERE a."live_account_id" = p_account_id;
  IF v_test IS NOT NULL THEN
    INSERT INTO "account_deletions" ("account_id", "jobs", "leads", "api_keys", "ledger_rows", "granted", "charged", "balance")
    VALUES (v_test, 0, 0, 0, 0, 0, 0, 0);
  END IF;
  DELETE FROM "accounts" a WHERE a."id" = p_account_id;
  IF v_test IS NOT NULL THEN
    PERFORM delete_account_ledger(v_test, NULL);
    DELETE FROM "account_deletions" d WHERE d."account_id" = v_test;
  END IF;
  RETURN QUERY SELECT 'ledger'::TEXT, v_done."jobs", v_done."leads", v_done."api_keys", v_done."ledger_rows",
    v_done."granted", v_done."charged", v_done."balance";
END
$$;

CREATE OR REPLACE FUNCTION "delete_account"(p_account_id TEXT)
RETURNS TABLE ("o_outcome" TEXT, "o_jobs" INTEGER, "o_leads" BIGINT, "o_api_keys" INTEGER, "o_ledger_rows" INTEGER, "o_granted" BIGINT, "o_charged" BIGINT, "o_balance" BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
  v_step RECORD;
BEGIN
  LOOP
    SELECT * INTO v_step FROM delete_account(p_account_id, NULL) s;
    EXIT WHEN v_step."o_outcome" <> 'ledger';
  END LOOP;
  RETURN QUERY SELECT v_step."o_outcome", v_step."o_jobs", v_step."o_leads", v_step."o_api_keys", v_step."o_ledger_rows",
    v_step."o_granted", v_step."o_charged", v_step."o_balance";
END
$$;
