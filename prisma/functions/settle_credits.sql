-- settle_credits: a job's settlement in its account's credit counters: the charge taken from the balance and
-- the whole reservation returned, on any one stripe (docs/decisions/023-redis-topologies.md, "One account at the
-- speed of many"). A settlement returns at least what it charges, so it only ever adds to a stripe's available:
-- it may land on a stripe other than the one that took the reservation, and so need not wait for that one.
-- In order, after the account row FOR KEY SHARE (as reserve_credits, so an account being deleted is never
-- settled on half-way): a stripe nobody holds (SKIP LOCKED), from the job's own on; else the job's own, waiting
-- for it (its holder is past its credit step and waits for nothing this transaction holds); else, for an account
-- that has no stripes yet (its jobs predate them), the base counters on the account row. Nothing for 0 and 0
-- (a batch child cancelled before it started).
-- Called by: settle_job (a terminal status), packages/db/src/job-creation.ts (a withdrawn creation, charge 0).
-- Locks: the accounts row FOR KEY SHARE, then one credit_stripes row (or the accounts row, for an account without
--   stripes).
-- Guarantees: the sums of balance and reserved fall by exactly p_charge and p_unreserve (the reservation returned,
--   the unreserve: the ledger's kind 'release', which is data and keeps its name); returns the stripe
--   used, -1 for the account row, NULL when there was nothing to settle. p_charge > p_unreserve is refused by the
--   CHECK (a settlement never overdraws).

CREATE OR REPLACE FUNCTION "settle_credits"(p_account_id TEXT, p_job_id TEXT, p_charge BIGINT, p_unreserve BIGINT)
RETURNS INTEGER
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  c_stripes CONSTANT INTEGER := 16;
  v_start INTEGER := (hashtext(p_job_id) & 2147483647) % c_stripes;
  v_stripe INTEGER;
BEGIN
  IF p_charge = 0 AND p_unreserve = 0 THEN RETURN NULL; END IF;
  PERFORM 1 FROM "accounts" a WHERE a."id" = p_account_id FOR KEY SHARE;

  UPDATE "credit_stripes" s SET "balance" = s."balance" - p_charge, "reserved" = s."reserved" - p_unreserve
  WHERE s."account_id" = p_account_id AND s."stripe" = (
    SELECT c."stripe" FROM "credit_stripes" c WHERE c."account_id" = p_account_id
    ORDER BY (c."stripe" + c_stripes - v_start) % c_stripes LIMIT 1
    FOR NO KEY UPDATE SKIP LOCKED)
  RETURNING s."stripe" INTO v_stripe;
  IF FOUND THEN RETURN v_stripe; END IF;

  UPDATE "credit_stripes" s SET "balance" = s."balance" - p_charge, "reserved" = s."reserved" - p_unreserve
  WHERE s."account_id" = p_account_id AND s."stripe" = (
    SELECT c."stripe" FROM "credit_stripes" c WHERE c."account_id" = p_account_id
    ORDER BY (c."stripe" + c_stripes - v_start) % c_stripes LIMIT 1)
  RETURNING s."stripe" INTO v_stripe;
  IF FOUND THEN RETURN v_stripe; END IF;

  UPDATE "accounts" SET "balance" = "balance" - p_charge, "reserved" = "reserved" - p_unreserve WHERE "id" = p_account_id;
  RETURN -1;
END
$$;
