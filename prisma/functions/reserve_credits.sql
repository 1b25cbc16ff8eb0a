-- reserve_credits: a job's reservation on one of its account's credit stripes, so that one account's creations
-- and settlements do not all queue on one row lock (docs/decisions/023-redis-topologies.md, "One account at the
-- speed of many"). In order, each step only when the one before it found nothing:
-- 1. a stripe nobody holds that covers the amount, looked for from the job's own stripe on (SKIP LOCKED: no
--    wait at all while the account has credits spread and a stripe free);
-- 2. the first stripe that covered it when this statement began, waiting for whoever holds it;
-- 3. the gather: under the account row's lock (the only caller that takes it as a mutex, FOR NO KEY UPDATE so
--    job inserts' foreign-key checks pass), every stripe locked in stripe order, the base counters' available
--    moved into the stripes and the whole available spread evenly over them, the job's stripe taking the
--    reservation. The sum is exact here, so a refusal is exact too. A new account's first creation makes its
--    stripes here.
-- Called by: create_job.
-- Locks: one credit_stripes row; for the gather, the accounts row then every credit_stripes row of the account
--   in stripe order. So a transaction that also writes or locks the account row (beyond the foreign-key checks'
--   KEY SHARE, which a gather does not block) must do it before any stripe, never after. Steps 1 and 2 can leave
--   a stripe locked that the recheck refused; a gather holding the account row can then wait for it while its
--   holder waits for the account row, which PostgreSQL detects (deadlock_detected): createJob runs it again.
-- Guarantees: NULL when reserved (one stripe's reserved raised by p_amount); otherwise nothing written and the
--   account's whole available, less than p_amount. No stripe's available ever goes below zero
--   (CHECK credit_stripes_covered), so the account's never does: no overdraft.

CREATE OR REPLACE FUNCTION "reserve_credits"(p_account_id TEXT, p_job_id TEXT, p_amount BIGINT)
RETURNS BIGINT
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  -- Stripes per account: more than the transactions one account can have in flight on a small fleet's pools
  -- (DATABASE_POOL_SIZE per process), so step 1 nearly always finds one free. A new count applies as stripes
  -- are made (the gather makes any missing one); existing stripes are all used whatever their number.
  c_stripes CONSTANT INTEGER := 16;
  v_start INTEGER := (hashtext(p_job_id) & 2147483647) % c_stripes;
  v_stripe INTEGER;
  v_base BIGINT;
  v_total BIGINT;
  v_count INTEGER;
BEGIN
  UPDATE "credit_stripes" s SET "reserved" = s."reserved" + p_amount
  WHERE s."account_id" = p_account_id AND s."balance" - s."reserved" >= p_amount AND s."stripe" = (
    SELECT c."stripe" FROM "credit_stripes" c
    WHERE c."account_id" = p_account_id AND c."balance" - c."reserved" >= p_amount
    ORDER BY (c."stripe" + c_stripes - v_start) % c_stripes LIMIT 1
    FOR NO KEY UPDATE SKIP LOCKED);
  IF FOUND THEN RETURN NULL; END IF;

  SELECT c."stripe" INTO v_stripe FROM "credit_stripes" c
  WHERE c."account_id" = p_account_id AND c."balance" - c."reserved" >= p_amount
  ORDER BY (c."stripe" + c_stripes - v_start) % c_stripes LIMIT 1;
  IF FOUND THEN
    UPDATE "credit_stripes" s SET "reserved" = s."reserved" + p_amount
    WHERE s."account_id" = p_account_id AND s."stripe" = v_stripe AND s."balance" - s."reserved" >= p_amount;
    IF FOUND THEN RETURN NULL; END IF;
  END IF;

  SELECT a."balance" - a."reserved" INTO v_base FROM "accounts" a WHERE a."id" = p_account_id FOR NO KEY UPDATE;
  IF NOT FOUND THEN RETURN 0; END IF;
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
