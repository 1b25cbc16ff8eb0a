-- reserve_credits: a job's reservation on one of its account's credit stripes, so that one account's creations,
-- batch children's starts and settlements do not all queue on one row lock (docs/decisions/023-redis-topologies.md,
-- "One account at the speed of many"). In order:
-- 0. the account row FOR KEY SHARE (the lock a job or ledger insert's foreign-key check takes anyway; a gather's
--    FOR NO KEY UPDATE does not block it): only delete_account's FOR UPDATE excludes it, so an account being
--    deleted is never reserved on, and nobody holds a stripe while waiting for that deletion;
-- 1. a stripe nobody holds that covers the amount, looked for from the job's own stripe on (SKIP LOCKED: no
--    wait at all while the account has credits spread and a stripe free), in a subtransaction rolled back on a
--    miss, which unlocks any stripe the search locked without using it;
-- 2. otherwise the gather: under the account row's FOR NO KEY UPDATE (the only lock taken on it as a mutex),
--    every stripe locked in stripe order (waiting for whoever holds one: a holder is past its own credit step
--    and never waits for the account row or another stripe), the base counters' available moved into the
--    stripes and the whole available spread evenly over them, the job's stripe taking the reservation. The
--    sum is exact there, so a refusal is exact too. A new account's first reservation makes its stripes there.
--    Step 1 never waits and a miss keeps no lock, so no caller holds a stripe while it waits for the account
--    row: gathers cannot deadlock with reservations or settlements.
-- Called by: create_job (a job's creation), start_job (a batch child's first start).
-- Locks: the accounts row FOR KEY SHARE, then one credit_stripes row; for the gather, the accounts row FOR NO KEY
--   UPDATE then every credit_stripes row of the account in stripe order. A transaction must therefore not lock
--   the account row more strongly than KEY SHARE after it touched a stripe, nor reserve twice (the second could
--   gather while holding the first's stripe).
-- Guarantees: NULL when reserved (one stripe's reserved raised by p_amount); otherwise nothing written and the
--   account's whole available, less than p_amount (0 for an account that does not exist). No stripe's available
--   ever goes below zero (CHECK credit_stripes_covered), nor the base counters' (CHECK accounts_credits_covered),
--   so the account's, their sum, never does: no overdraft.

CREATE OR REPLACE FUNCTION "reserve_credits"(p_account_id TEXT, p_job_id TEXT, p_amount BIGINT)
RETURNS BIGINT
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  -- Stripes per account: more than the transactions one account can have in flight on a small fleet's pools
  -- (DATABASE_POOL_SIZE per process), so step 1 nearly always finds one free. A new count applies as stripes
  -- are made (the gather makes any missing one); existing stripes are all used whatever their number.
  c_stripes CONSTANT INTEGER := 16;
  v_start INTEGER := (hashtext(p_job_id) & 2147483647) % c_stripes;
  v_base BIGINT;
  v_total BIGINT;
  v_count INTEGER;
BEGIN
  PERFORM 1 FROM "accounts" a WHERE a."id" = p_account_id FOR KEY SHARE;
  IF NOT FOUND THEN RETURN 0; END IF;

  -- Step 1 in a subtransaction that a miss rolls back: a row that SKIP LOCKED locked and whose newer version
  -- then failed the recheck stays locked otherwise, and the gather must not wait for the account row while
  -- this transaction holds a stripe (a gather holding the account row could be waiting for that stripe).
  BEGIN
    UPDATE "credit_stripes" s SET "reserved" = s."reserved" + p_amount
    WHERE s."account_id" = p_account_id AND s."balance" - s."reserved" >= p_amount AND s."stripe" = (
      SELECT c."stripe" FROM "credit_stripes" c
      WHERE c."account_id" = p_account_id AND c."balance" - c."reserved" >= p_amount
      ORDER BY (c."stripe" + c_stripes - v_start) % c_stripes LIMIT 1
      FOR NO KEY UPDATE SKIP LOCKED);
    IF FOUND THEN RETURN NULL; END IF;
    RAISE no_data_found;
  EXCEPTION WHEN no_data_found THEN
    NULL;
  END;

  SELECT a."balance" - a."reserved" INTO v_base FROM "accounts" a WHERE a."id" = p_account_id FOR NO KEY UPDATE;
  INSERT INTO "credit_stripes" ("account_id", "stripe")
  SELECT p_account_id, g FROM generate_series(0, c_stripes - 1) g
  ON CONFLICT DO NOTHING;
  SELECT v_base + COALESCE(sum(l."balance" - l."reserved"), 0), count(*) INTO v_total, v_count FROM (
    SELECT c."balance", c."reserved" FROM "credit_stripes" c WHERE c."account_id" = p_account_id ORDER BY c."stripe" FOR NO KEY UPDATE
  ) l;
  IF v_total < p_amount THEN RETURN v_total; END IF;
  IF v_base <> 0 THEN
    UPDATE "accounts" SET "balance" = "reserved" WHERE "id" = p_account_id;
  END IF;
  -- Each stripe's available becomes an even share of what is left; the job's stripe also takes the remainder
  -- and holds the reservation. The sums of balance and reserved move exactly as the reservation says.
  UPDATE "credit_stripes" s SET
    "balance" = s."reserved" + (v_total - p_amount) / v_count
      + CASE WHEN s."stripe" = v_start THEN p_amount + (v_total - p_amount) % v_count ELSE 0 END,
    "reserved" = s."reserved" + CASE WHEN s."stripe" = v_start THEN p_amount ELSE 0 END
  WHERE s."account_id" = p_account_id;
  RETURN NULL;
END
$$;
