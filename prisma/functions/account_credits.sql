-- account_credits: an account's credit counters as one pair, whatever the length of its history: the base part
-- on its row (grants land there) plus its credit stripes' (docs/decisions/023-redis-topologies.md, "One account
-- at the speed of many"). One statement, so one snapshot: a reservation or a gather moving credits between the
-- parts is seen whole or not at all.
-- Called by: create_batch (the first child's cover), delete_account (the balance it records), packages/db/src/
--   credit-ledger.ts (creditSummary: GET /account, the admin commands).
-- Locks: nothing (a read).
-- Guarantees: balance = grants - charges and reserved = reserves - returns (kind 'release') as the ledger sums them (credits:verify
--   and the fault suite's invariants check it); no row for an account that does not exist.

CREATE OR REPLACE FUNCTION "account_credits"(p_account_id TEXT)
RETURNS TABLE ("balance" BIGINT, "reserved" BIGINT)
LANGUAGE sql STABLE AS $$
  SELECT (a."balance" + COALESCE(sum(s."balance"), 0))::BIGINT, (a."reserved" + COALESCE(sum(s."reserved"), 0))::BIGINT
  FROM "accounts" a LEFT JOIN "credit_stripes" s ON s."account_id" = a."id"
  WHERE a."id" = p_account_id
  GROUP BY a."id"
$$;
