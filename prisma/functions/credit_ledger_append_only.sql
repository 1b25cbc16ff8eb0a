-- credit_ledger_append_only: the trigger that refuses every UPDATE and DELETE of a ledger row, so the
-- ledger stays the proof of every balance (docs/decisions/004-terminal-status-and-billing.md), except the
-- deletion of an account's rows together with the account (docs/decisions/019-data-protection.md).
-- Called by: the trigger credit_ledger_no_update_or_delete (defined below, with its function); the account's
--   deletion is prisma/functions/delete_account.sql, its ledger's batches delete_account_ledger.sql.
-- Locks: nothing of its own.
-- Guarantees: a ledger row, once written, is never changed; it is removed only with its account, by
--   delete_account_ledger once the account's row is gone (decision 043), which names that account in
--   `leadgen.account_deletion` for the statement that deletes a batch of its rows.

CREATE OR REPLACE FUNCTION "credit_ledger_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('leadgen.account_deletion', true) = OLD."account_id" THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'credit_ledger is append-only';
END;
$$;

CREATE OR REPLACE TRIGGER "credit_ledger_no_update_or_delete"
  BEFORE UPDATE OR DELETE ON "credit_ledger"
  FOR EACH ROW EXECUTE FUNCTION "credit_ledger_append_only"();
