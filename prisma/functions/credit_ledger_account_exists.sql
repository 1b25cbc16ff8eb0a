-- credit_ledger_account_exists: the check the ledger's foreign key to accounts made on every insert, kept when the key
-- went (migration 20261203100000: its cascade deleted an account's whole ledger in one statement; issue 39, decision
-- 043): a ledger row names an account that exists, locked FOR KEY SHARE until the insert commits, so an account's
-- deletion (delete_account, FOR UPDATE on the row) waits for it, or it fails on the gone account (23503, as the key did).
-- Called by: the trigger credit_ledger_account_exists (defined below, with its function), on every INSERT into the
--   ledger (reserve_credits, settle_credits, settle_job's release, grants).
-- Locks: the accounts row FOR KEY SHARE, as the key's check did (the writers already hold it: reserve_credits and
--   settle_credits take it first).
-- Guarantees: no ledger row is written for an account that does not exist, so once delete_account has taken an
--   account's figures and its row, nothing adds to the ledger delete_account_ledger then takes in batches.

CREATE OR REPLACE FUNCTION "credit_ledger_account_exists"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM "accounts" a WHERE a."id" = NEW."account_id" FOR KEY SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'insert or update on table "credit_ledger": account % is not present in table "accounts"', NEW."account_id"
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NEW;
END;
$$;

CREATE OR REPLACE TRIGGER "credit_ledger_account_exists"
  BEFORE INSERT ON "credit_ledger"
  FOR EACH ROW EXECUTE FUNCTION "credit_ledger_account_exists"();
